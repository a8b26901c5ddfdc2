#pragma once
// JavaScript values to the wire codec and back (adr/0014, adr/0028). Going in, what JSON
// can say is taken as it is, and a Uint8Array (a Buffer) as text of its bytes; coming out,
// text that is not UTF-8 (only text that came in as bytes can be) is a Buffer. What JSON cannot
// say is refused with a `thm.DecodeError` at its JSON Pointer, but only where the decoder reads it,
// so an unknown key holding anything is ignored: `undefined` in an array, a function, a symbol, a
// `Map`, a `Date` or any other object that is not plain, a number that is not finite or is an
// integer beyond 2^53 - 1 (it has already lost digits), a `bigint` beyond 2^53 - 1 outside SPEC
// §6's u64 and size_t fields (the Sequences and `offset`) or outside 0 .. 2^64 - 1 in them, a
// string with a lone surrogate, nesting deeper than `json::kMaxDepth`. A property whose value is
// `undefined` is absent, as `JSON.stringify` has it. The Sequences (`trigger_sequence`,
// `thread_root`) also take a decimal string. Coming out, the Sequences are always `bigint`, an
// integer beyond 2^53 - 1 anywhere else (an offset) is a `bigint` too, every other number is a
// `number`, and every object and array is frozen.

#include <napi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "thm/json/json.hpp"

namespace thm::node {

/// Throws `thm.DecodeError(path, reason)` as a JavaScript exception.
[[noreturn]] void throw_decode_error(Napi::Env env, const json::DecodeError& error);

/// Throws the thm error class `family` (`"DecodeError"`, `"RosterError"`, `"DeskError"`,
/// `"ResponderError"`, `"QueueError"`) built from a core error's case-file form.
[[noreturn]] void throw_error(Napi::Env env, const char* family, const json::Value& wire);

/// The thm error `family` built from `wire`, not thrown (what `validateDesks` answers).
[[nodiscard]] Napi::Value make_error(Napi::Env env, const char* family, const json::Value& wire);

/// Reads JavaScript values for the wire decoder where they are (`json::WireReader`), each
/// value it decodes once, with no tree in between (see the file comment). An object's members
/// are its own properties, looked up by the keys the decoder knows; what JSON cannot say is
/// `Unsaid`, and `unsaid` says why. What a getter or a proxy throws is thrown as it was.
class JsReader final : public json::WireReader {
 public:
  explicit JsReader(Napi::Env env) : env_(env) {}
  /// `value` as the decoder's root.
  [[nodiscard]] static Node root(Napi::Value value) { return {.value = napi_value(value)}; }

  Look look(Node node) override;
  Node element(Node array, std::size_t index) override;
  std::optional<Node> member(Node object, std::string_view key) override;
  std::optional<Unsaid> unsaid(Node refused, std::size_t depth) override;

 private:
  Look number(double value, std::string_view key);
  Look bigint(napi_value value, bool wide);
  Look string(napi_value value, bool sequence);
  Look object(napi_value value);
  Look cannot_say(std::string reason);
  Look not_plain(napi_value value);
  // A key the decoder looked up, and whether the Object.prototype of a realm (of the first
  // `realms_asked` of `realms_`) has a property of that name.
  struct Key {
    std::string_view key;
    std::size_t realms_asked = 0;
    bool lent = false;
  };
  // Whether a realm's Object.prototype has a property named `key` (`name`, NUL-terminated).
  bool lent(std::string_view key, const char* name);
  std::optional<Unsaid> unsaid_inside(napi_value array, std::size_t depth);

  Napi::Env env_;
  std::array<char, 256> short_;     // the last string `look` read, when it fits
  std::string long_;                // or else
  std::string reason_;              // why the value `look` found last cannot be said in JSON
  std::vector<Key> keys_;           // the keys looked up so far
  std::vector<napi_value> realms_;  // the Object.prototype of each realm read so far
  // The member `member` found last, and its type, which `look` then need not ask again.
  napi_value last_member_ = nullptr;
  napi_valuetype last_member_type_ = napi_undefined;
};

/// Builds the JavaScript form of what the wire encoder writes (`json::write`): plain frozen
/// objects and arrays, u64 `Sequence` fields as `bigint`, every other number a `number`.
/// Each object is made by a function compiled for its keys (lib/make.cjs).
class JsWriter final : public json::WireWriter {
 public:
  explicit JsWriter(Napi::Env env);
  /// The value written.
  [[nodiscard]] Napi::Value take();

  void null() override;
  void boolean(bool value) override;
  void number(std::uint64_t value) override;
  /// A number that is not a wire form's (a tree's signed or fractional one).
  void real(double value);
  void string(std::string_view value) override;
  void begin_array(std::size_t size) override;
  void end_array() override;
  void begin_object(std::size_t size) override;
  void key(std::string_view name) override;
  void end_object() override;

 private:
  // An open array or object: its values (and keys) are those of `values_` (and `keys_`)
  // from `first` (and `first_key`) on; `hash` is its keys' so far.
  struct Frame {
    bool object = false;
    std::size_t first = 0;
    std::size_t first_key = 0;
    std::uint64_t hash = 14695981039346656037ULL;
  };
  void add(napi_value value);

  Napi::Env env_;
  std::vector<Frame> frames_;
  std::vector<napi_value> values_;
  std::vector<std::string_view> keys_;
  std::string_view key_;  // the last key written: `number` makes a Sequence's a bigint
  napi_value root_ = nullptr;
};

/// `value`'s JavaScript form: the wire encoder's, written to a `JsWriter`.
template <json::WireType T>
[[nodiscard]] Napi::Value to_js(Napi::Env env, const T& value) {
  JsWriter out(env);
  json::write(value, out);
  return out.take();
}

/// A tree's JavaScript form, as `JsWriter` makes it: a core error's case-file form.
[[nodiscard]] Napi::Value to_js(Napi::Env env, const json::Value& value);

/// `value` as text: a string as UTF-8, or a Uint8Array (a Buffer too) as its bytes, which
/// need not be UTF-8; `what` names it for the `TypeError` thrown for anything else or a
/// string holding a lone surrogate, e.g. `resolveMentions(body)`.
[[nodiscard]] std::string text(Napi::Value value, std::string_view what);

/// Like `text`, but `null` or `undefined` is `std::nullopt`.
[[nodiscard]] std::optional<std::string> nullable_text(Napi::Value value, std::string_view what);

/// `value` as JavaScript: a string when it is UTF-8, else a Buffer of its bytes (only text
/// that came in as bytes can be other than UTF-8).
[[nodiscard]] Napi::Value text_or_bytes(Napi::Env env, std::string_view value);

/// `value`'s length when it is an array as `Array.isArray` has it: an Array of any realm, or a
/// Proxy around one, as reactive state libraries hand out (`napi_is_array` is false for a
/// Proxy, whose `length` and elements are read through it); else `std::nullopt`. Throws a
/// `TypeError` for a Proxy whose `length` is not an array's.
[[nodiscard]] std::optional<std::uint32_t> array_length(Napi::Env env, napi_value value);

/// `value` as `String(value)` says it, for messages, or `described(value)` where that throws
/// (a symbol, an object whose `toString` throws).
[[nodiscard]] std::string shown(Napi::Value value);

/// The type name of `value` for messages: `undefined`, `null`, `a number`, `a Map`.
[[nodiscard]] std::string described(Napi::Value value);

}  // namespace thm::node
