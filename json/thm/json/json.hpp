#pragma once
/// \file
/// `thm::json`: the JSON wire forms of SPEC §6 over nlohmann_json. Core never sees this
/// header. Decoding follows SPEC §0.5 and §0.8: a missing required key, a wrong type, a
/// negative, fractional (`2.0`, `1e3`) or out-of-range integer, an unknown enum token, or a
/// key repeated within one object is a `DecodeError` naming the JSON Pointer path of the
/// offending value. Unknown keys are ignored; `null` is never the same as absent; u64
/// values round-trip exactly. Nothing here throws through the API.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "thm/core.hpp"

namespace thm::json {

/// A JSON tree that keeps object keys in insertion order, so that encodings match the
/// SPEC §6 examples byte for byte.
using Value = nlohmann::ordered_json;

/// Why a document was refused (SPEC §0.5): `path` is a JSON Pointer (RFC 6901) to the
/// offending value, prefixed by the caller's root (e.g. `/input/policy/max_hops`); for a
/// missing key it points where the key should be. `reason` says what is wrong, for people.
struct DecodeError {
  std::string path{};
  std::string reason{};
  friend bool operator==(const DecodeError&, const DecodeError&) = default;
};

/// Every type with a wire form: those of SPEC §6, the case files' roster and desk
/// snapshots, the selector result of `settle_selection`, the host's `QueueError`
/// (cases.md) and a decision trace's `TraceStep` (SPEC §8).
using WireTypes =
    std::tuple<MentionTarget, MentionAuthor, Mention, RosterMember, Person, RosterSnapshot,
               ResponderMode, Desk, DeskMember, DeskOrder, DeskSnapshot, SelectorCandidate,
               SelectionPolicy, ResponderRequest, SelectionRequest, ResponderRung,
               SelectionDisposition, ResponderDecision, ResponderPlan, Probability,
               CandidateProbability, SelectionEvaluation, SelectorResult, Handoff,
               MentionDispatchPolicy, DispatchKey, DispatchConversation, MentionDispatchInput,
               MentionTurnRequest, NoDispatchReason, MentionDispatchDecision, EnqueueRefusal,
               EnqueueOutcome, MentionDispatchOutcome, Conversation, MentionDispatchContext,
               QueueErrorKind, QueueError, Brevity, BriefedTeammate, TeamBriefing, TraceStep>;

namespace detail {
template <class T, class Tuple>
struct is_one_of;
template <class T, class... Ts>
struct is_one_of<T, std::tuple<Ts...>> : std::bool_constant<(std::same_as<T, Ts> || ...)> {};
}  // namespace detail

/// One of `WireTypes`: a type `decode`, `encode`, `from_value` and `to_value` accept.
template <class T>
concept WireType = detail::is_one_of<T, WireTypes>::value;

/// The names of `WireTypes`, in its order: what the case files' `decode` operation and the
/// language packages call each type (`"MentionDispatchInput"`).
inline constexpr std::array<std::string_view, std::tuple_size_v<WireTypes>> kWireTypeNames{
    "MentionTarget",
    "MentionAuthor",
    "Mention",
    "RosterMember",
    "Person",
    "RosterSnapshot",
    "ResponderMode",
    "Desk",
    "DeskMember",
    "DeskOrder",
    "DeskSnapshot",
    "SelectorCandidate",
    "SelectionPolicy",
    "ResponderRequest",
    "SelectionRequest",
    "ResponderRung",
    "SelectionDisposition",
    "ResponderDecision",
    "ResponderPlan",
    "Probability",
    "CandidateProbability",
    "SelectionEvaluation",
    "SelectorResult",
    "Handoff",
    "MentionDispatchPolicy",
    "DispatchKey",
    "DispatchConversation",
    "MentionDispatchInput",
    "MentionTurnRequest",
    "NoDispatchReason",
    "MentionDispatchDecision",
    "EnqueueRefusal",
    "EnqueueOutcome",
    "MentionDispatchOutcome",
    "Conversation",
    "MentionDispatchContext",
    "QueueErrorKind",
    "QueueError",
    "Brevity",
    "BriefedTeammate",
    "TeamBriefing",
    "TraceStep"};

/// Calls `visit(std::type_identity<T>{})` for the wire type `T` named `name` and returns
/// true, or returns false when no wire type has that name.
template <class Visit>
bool visit_wire_type(std::string_view name, Visit&& visit) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return ((name == kWireTypeNames[I] &&
             (visit(std::type_identity<std::tuple_element_t<I, WireTypes>>{}), true)) ||
            ...);
  }
  (std::make_index_sequence<std::tuple_size_v<WireTypes>>{});
}

/// The deepest nesting of arrays and objects `parse` accepts. Wire forms need fewer than
/// ten levels; the limit keeps hostile documents from exhausting the stack of any code
/// that walks a tree recursively.
inline constexpr std::size_t kMaxDepth = 256;

// The tree-level calls below (`parse`, `from_value`, `to_value`, `error_value`) take or
// return `Value`; using them needs `<nlohmann/json.hpp>`. `decode` and `encode` do not.

/// Parses `text` as one JSON document. Refuses malformed JSON, a leading byte order mark,
/// nesting deeper than `kMaxDepth`, anything but white space after the value (a NUL byte
/// and what follows it included), and any key repeated within one object (SPEC §0.5).
/// When `repeated_keys` is given, repeated keys are not refused but their JSON Pointer
/// paths are appended there (the first value is kept), so a caller can refuse just the
/// part of a larger document that holds them.
[[nodiscard]] Result<Value, DecodeError> parse(std::string_view text,
                                               std::vector<std::string>* repeated_keys = nullptr);

/// Decodes `value` as a `T`; error paths start with `root` (a JSON Pointer, "" for the
/// document itself).
template <WireType T>
[[nodiscard]] Result<T, DecodeError> from_value(const Value& value, std::string_view root = "");

/// The wire form of `value` as a JSON tree (SPEC §6): required-nullable keys are written as
/// `null`; only `quiet: false` and `responder_mode: "lead"` are omitted.
template <WireType T>
[[nodiscard]] Value to_value(const T& value);

/// What receives a wire form (SPEC §6) as the encoder writes it, one value at a time: the
/// values, keys and order of the tree `to_value` builds (which is made through one). Every
/// number of a wire form is unsigned. A container's size is given when it begins: an array
/// of `size` values, or an object of `size` members, each a `key` and then its value. A
/// key's view stays valid until `write` returns. A language package builds its own values
/// from these calls, with no tree in between (bindings/node).
class WireWriter {
 public:
  virtual ~WireWriter() = default;
  /// A `null`: an absent value of a required-nullable field.
  virtual void null() = 0;
  /// `true` or `false`.
  virtual void boolean(bool value) = 0;
  /// An integer: an offset, a u32, a u64 `Sequence` or a probability's parts per million.
  virtual void number(std::uint64_t value) = 0;
  /// A string, UTF-8 as the value holds it.
  virtual void string(std::string_view value) = 0;
  /// An array of `size` values follows, then `end_array`.
  virtual void begin_array(std::size_t size) = 0;
  /// The array begun last is complete.
  virtual void end_array() = 0;
  /// An object of `size` members follows, each a `key` and then its value, then `end_object`.
  virtual void begin_object(std::size_t size) = 0;
  /// The next member's key.
  virtual void key(std::string_view name) = 0;
  /// The object begun last is complete.
  virtual void end_object() = 0;

 protected:
  WireWriter() = default;
  WireWriter(const WireWriter&) = default;
  WireWriter& operator=(const WireWriter&) = default;
};

/// What the decoder reads a wire form from, as `WireWriter` is what the encoder writes to: a
/// host's own values (a JavaScript object, a Python dict), read where they are, with no tree
/// in between (bindings/node, bindings/python). The decoder asks only for what it decodes:
/// the members of each object it knows, by key, and each element of each array it reads, in
/// order, once; a key it does not know is never looked at. `from_value` reads a tree through
/// the same decoder, so both refuse the same values with the same `DecodeError`.
class WireReader {
 public:
  /// One value of the source, as the source names it (a napi_value, a PyObject*), and the
  /// key of the object member it is (empty for an array's element or the root). Valid while
  /// the decoder runs.
  struct Node {
    const void* value = nullptr;
    std::string_view key{};
  };
  /// What a value is, as JSON. `Negative` is an integer below zero, `Fraction` any other
  /// number that is not an unsigned integer (`2.5`, `2.0` in text, `1e3`). `Unsaid` is a value
  /// JSON cannot say (a JavaScript `undefined` or `Map`, a Python `datetime`): the decoder
  /// refuses it wherever it reads one, and `unsaid` says why.
  enum class Kind : std::uint8_t {
    Null,
    Boolean,
    Unsigned,
    Negative,
    Fraction,
    String,
    Array,
    Object,
    Unsaid
  };
  /// A value as `look` found it: `boolean`, `number`, `text` or `size` (an array's length)
  /// as its kind has one. `text` stays valid until the next call of the reader.
  struct Look {
    Kind kind = Kind::Null;
    bool boolean = false;
    std::uint64_t number = 0;
    std::string_view text{};
    std::size_t size = 0;
  };
  /// Why a value the decoder refused cannot be said in JSON: `below` is the JSON Pointer of
  /// the value that cannot, from the refused one ("" for itself, `/0/3` inside it).
  struct Unsaid {
    std::string below;
    std::string reason;
  };

  virtual ~WireReader() = default;
  /// What `node` is.
  virtual Look look(Node node) = 0;
  /// Element `index` (below `look`'s `size`) of the array `array`.
  virtual Node element(Node array, std::size_t index) = 0;
  /// The member `key` of the object `object`, or nothing when it has none. `key` is one of
  /// the decoder's string literals (NUL-terminated, and the same address on every call), so a
  /// reader may keep what it made of a key by that address.
  virtual std::optional<Node> member(Node object, std::string_view key) = 0;
  /// When the decoder refused `refused` (a value `depth` levels below the root) for its
  /// type: the value JSON cannot say that makes it so (itself, or one inside it), if any.
  /// The error then names that value, and this reason prefixed by `not JSON: `.
  virtual std::optional<Unsaid> unsaid(Node refused, std::size_t depth) = 0;

 protected:
  WireReader() = default;
  WireReader(const WireReader&) = default;
  WireReader& operator=(const WireReader&) = default;
};

/// Decodes the value `value` of `in` as a `T`, as `from_value` decodes a tree; error paths
/// start with `root`. What `in` throws (what a JavaScript getter throws) is not caught.
template <WireType T>
[[nodiscard]] Result<T, DecodeError> from_reader(WireReader& in, WireReader::Node value,
                                                 std::string_view root = "");

/// Writes the wire form of `value` to `out` (SPEC §6), as `to_value` would build it.
template <WireType T>
void write(const T& value, WireWriter& out);

/// `parse` then `from_value`: the one-call decoder of a wire document (SPEC §0.5, §0.8).
template <WireType T>
[[nodiscard]] Result<T, DecodeError> decode(std::string_view text);

/// The compact wire text of `value` (SPEC §6), keys in the SPEC's order.
template <WireType T>
[[nodiscard]] std::string encode(const T& value);

/// The case-file form of a core error (cases.md): `{"variant": name, <its fields>,
/// "message": sentence}`.
[[nodiscard]] Value error_value(const RosterError& error);
/// `{"variant": name, <its fields>, "message": sentence}` for a desk error.
[[nodiscard]] Value error_value(const DeskError& error);
/// The inner roster, desk or ladder error in the same flat form.
[[nodiscard]] Value error_value(const ResponderError& error);
/// The inner roster or desk error in the same flat form.
[[nodiscard]] Value error_value(const BriefingError& error);
/// `{"variant": "Core", "core": {...}}` or `{"variant": "Enqueue", "kind", "message"}`.
[[nodiscard]] Value error_value(const DispatchMentionError& error);
/// `{"variant": "Decode", "path", "reason"}`.
[[nodiscard]] Value error_value(const DecodeError& error);

}  // namespace thm::json
