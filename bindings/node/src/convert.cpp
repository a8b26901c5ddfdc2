#include "convert.hpp"

#include <unicode/utf8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "state.hpp"
#include "thm/json/pointer.hpp"

namespace thm::node {
namespace {

// The largest integer a `number` holds exactly with every smaller one (2^53 - 1).
constexpr std::uint64_t kMaxSafeUnsigned = 9007199254740991ULL;
constexpr auto kMaxSafeInteger = static_cast<double>(kMaxSafeUnsigned);

// SPEC §6's `Sequence` fields: u64s, a bigint both ways, also from a decimal string.
bool is_sequence_key(std::string_view key) {
  return key == "trigger_sequence" || key == "thread_root";
}

// The fields that may exceed 2^53 - 1: the Sequences, and a byte `offset` (a size_t). Only
// these take a bigint that large; every other integer of the wire forms is 32 bits or less.
bool is_wide_key(std::string_view key) { return is_sequence_key(key) || key == "offset"; }
constexpr char kWideFields[] = "Sequence (trigger_sequence, thread_root) or a byte offset";

// The lone surrogate in `value`'s UTF-16 text, if it has one, as its index.
std::optional<std::size_t> lone_surrogate(Napi::Env env, napi_value value) {
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf16(env, value, nullptr, 0, &length),
                       std::nullopt);
  std::u16string units(length, u'\0');
  NAPI_THROW_IF_FAILED(env,
                       napi_get_value_string_utf16(env, value, units.data(), length + 1, &length),
                       std::nullopt);
  for (std::size_t i = 0; i < units.size(); ++i) {
    const char16_t unit = units[i];
    if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 &&
        units[i + 1] <= 0xDFFF) {
      ++i;
    } else if (unit >= 0xD800 && unit <= 0xDFFF) {
      return i;
    }
  }
  return std::nullopt;
}

// `value`, a string, as UTF-8, or the index of its lone surrogate. Node writes a lone
// surrogate as U+FFFD, so the UTF-16 text is looked at only when U+FFFD appears.
std::string utf8(Napi::Env env, napi_value value, std::optional<std::size_t>& surrogate) {
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf8(env, value, nullptr, 0, &length), {});
  std::string out(length, '\0');
  NAPI_THROW_IF_FAILED(env, napi_get_value_string_utf8(env, value, out.data(), length + 1, &length),
                       {});
  if (out.find("\xEF\xBF\xBD") != std::string::npos) surrogate = lone_surrogate(env, value);
  return out;
}

// A decimal string for a u64 field: digits only, no sign or leading zero, at most 2^64 - 1.
std::optional<std::uint64_t> decimal_u64(std::string_view digits) {
  if (digits.empty() || digits.size() > 20 || (digits.size() > 1 && digits[0] == '0')) {
    return std::nullopt;
  }
  std::uint64_t out = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (out > (UINT64_MAX - digit) / 10) return std::nullopt;
    out = out * 10 + digit;
  }
  return out;
}

// An integral `number` as its decimal digits (2**60 as 1152921504606846976, not 1.15e+18).
std::string integer_text(double number) {
  char digits[320];  // the largest double has 309 digits
  std::snprintf(digits, sizeof digits, "%.0f", number);
  return digits;
}

napi_value js(json::WireReader::Node node) {
  return static_cast<napi_value>(const_cast<void*>(node.value));
}

}  // namespace

json::WireReader::Look JsReader::cannot_say(std::string reason) {
  reason_ = std::move(reason);
  return {.kind = Kind::Unsaid};
}

json::WireReader::Look JsReader::look(Node node) {
  const napi_value value = js(node);
  napi_valuetype type = last_member_type_;
  if (value != last_member_) NAPI_THROW_IF_FAILED(env_, napi_typeof(env_, value, &type), {});
  switch (type) {
    case napi_null:
      return {.kind = Kind::Null};
    case napi_boolean: {
      bool out = false;
      NAPI_THROW_IF_FAILED(env_, napi_get_value_bool(env_, value, &out), {});
      return {.kind = Kind::Boolean, .boolean = out};
    }
    case napi_number: {
      double out = 0;
      NAPI_THROW_IF_FAILED(env_, napi_get_value_double(env_, value, &out), {});
      return number(out, node.key);
    }
    case napi_bigint:
      return bigint(value, is_wide_key(node.key));
    case napi_string:
      return string(value, is_sequence_key(node.key));
    case napi_object:
      return object(value);
    case napi_undefined:
    case napi_symbol:
    case napi_function:
    case napi_external:
      break;
  }
  return cannot_say(described(Napi::Value(env_, value)));
}

json::WireReader::Look JsReader::number(double value, std::string_view key) {
  if (!std::isfinite(value)) return cannot_say("a number that is not finite");
  if (std::trunc(value) != value) return {.kind = Kind::Fraction};
  if (std::fabs(value) > kMaxSafeInteger) {
    const std::string unsafe =
        integer_text(value) + " is not a safe integer (it may have lost digits)";
    if (value < 0) return cannot_say(unsafe);  // no field of the wire forms holds it
    if (is_sequence_key(key)) return cannot_say(unsafe + "; pass a BigInt or a decimal string");
    if (is_wide_key(key)) return cannot_say(unsafe + "; pass a BigInt");
    return cannot_say(unsafe + ", and only a " + kWideFields + " may be beyond 2^53 - 1");
  }
  if (value >= 0) return {.kind = Kind::Unsigned, .number = static_cast<std::uint64_t>(value)};
  return {.kind = Kind::Negative};
}

json::WireReader::Look JsReader::bigint(napi_value value, bool wide) {
  bool lossless = false;
  std::uint64_t unsigned_value = 0;
  NAPI_THROW_IF_FAILED(env_, napi_get_value_bigint_uint64(env_, value, &unsigned_value, &lossless),
                       {});
  if (lossless && (wide || unsigned_value <= kMaxSafeUnsigned)) {
    return {.kind = Kind::Unsigned, .number = unsigned_value};
  }
  if (lossless) {
    return cannot_say(std::to_string(unsigned_value) + "n is beyond 2^53 - 1, which only a " +
                      kWideFields + " may be");
  }
  std::int64_t signed_value = 0;
  NAPI_THROW_IF_FAILED(env_, napi_get_value_bigint_int64(env_, value, &signed_value, &lossless),
                       {});
  if (lossless && signed_value < 0) return {.kind = Kind::Negative};
  return cannot_say("a BigInt outside -2^63 .. 2^64 - 1");
}

json::WireReader::Look JsReader::string(napi_value value, bool sequence) {
  // Most strings fit the buffer at once; a longer one is measured, then read. A string is
  // whole when it left room for one more character of four bytes.
  std::size_t length = 0;
  NAPI_THROW_IF_FAILED(
      env_, napi_get_value_string_utf8(env_, value, short_.data(), short_.size(), &length), {});
  std::string_view text(short_.data(), length);
  if (length + 4 >= short_.size()) {
    NAPI_THROW_IF_FAILED(env_, napi_get_value_string_utf8(env_, value, nullptr, 0, &length), {});
    long_.resize(length + 1);
    NAPI_THROW_IF_FAILED(
        env_, napi_get_value_string_utf8(env_, value, long_.data(), long_.size(), &length), {});
    text = {long_.data(), length};
  }
  // Node writes a lone surrogate as U+FFFD, so the UTF-16 text is looked at only then.
  if (text.find("\xEF\xBF\xBD") != std::string_view::npos) {
    if (const auto surrogate = lone_surrogate(env_, value)) {
      return cannot_say("a string with a lone surrogate at index " + std::to_string(*surrogate));
    }
  }
  if (!sequence) return {.kind = Kind::String, .text = text};
  if (const auto parsed = decimal_u64(text)) return {.kind = Kind::Unsigned, .number = *parsed};
  return cannot_say(
      "a Sequence is a BigInt, a decimal string or a safe integer, from 0 to "
      "18446744073709551615");
}

json::WireReader::Look JsReader::object(napi_value value) {
  // Object.prototype of any realm (a vm context's, a test runner's) is the only object in
  // its chain with a null prototype: one step up from a plain object is the end. The realms'
  // are kept, so that the next plain object of one is known at once.
  napi_value prototype = nullptr;
  NAPI_THROW_IF_FAILED(env_, napi_get_prototype(env_, value, &prototype), {});
  for (const napi_value realm : realms_) {
    bool same = false;
    NAPI_THROW_IF_FAILED(env_, napi_strict_equals(env_, prototype, realm, &same), {});
    if (same) return {.kind = Kind::Object};
  }
  bool is_array = false;
  NAPI_THROW_IF_FAILED(env_, napi_is_array(env_, value, &is_array), {});
  if (is_array) {
    std::uint32_t length = 0;
    NAPI_THROW_IF_FAILED(env_, napi_get_array_length(env_, value, &length), {});
    return {.kind = Kind::Array, .size = length};
  }
  if (Napi::Value(env_, prototype).IsNull()) {
    // An object made with no prototype, or a Proxy, which N-API reports so.
    if (const auto length = array_length(env_, value)) {
      return {.kind = Kind::Array, .size = *length};
    }
    return {.kind = Kind::Object};
  }
  napi_value above = nullptr;
  NAPI_THROW_IF_FAILED(env_, napi_get_prototype(env_, prototype, &above), {});
  if (Napi::Value(env_, above).IsNull()) {
    realms_.push_back(prototype);
    return {.kind = Kind::Object};
  }
  return not_plain(value);
}

json::WireReader::Look JsReader::not_plain(napi_value value) {
  bool is_typed = false;
  NAPI_THROW_IF_FAILED(env_, napi_is_typedarray(env_, value, &is_typed), {});
  if (is_typed) {
    napi_typedarray_type type = napi_int8_array;
    std::size_t length = 0;
    void* data = nullptr;
    NAPI_THROW_IF_FAILED(
        env_, napi_get_typedarray_info(env_, value, &type, &length, &data, nullptr, nullptr), {});
    // Bytes (a Buffer, a Uint8Array) are text as it is, UTF-8 or not.
    if (type == napi_uint8_array) {
      return {.kind = Kind::String, .text = {static_cast<const char*>(data), length}};
    }
  }
  return cannot_say(described(Napi::Value(env_, value)) + ", not a plain object");
}

json::WireReader::Node JsReader::element(Node array, std::size_t index) {
  napi_value out = nullptr;
  NAPI_THROW_IF_FAILED(
      env_, napi_get_element(env_, js(array), static_cast<std::uint32_t>(index), &out), {});
  return {.value = out};
}

std::optional<json::WireReader::Node> JsReader::member(Node object, std::string_view key) {
  // Its own property only: what a prototype holds is not the object's, and a getter there
  // does not run. Every object read here is plain, so only a realm's Object.prototype can
  // lend it a property: the object is asked whether the property is its own, before it is
  // read, only when one of those has one of that name. A property that is `undefined` is
  // absent, as JSON.stringify has it.
  const char* name = key.data();  // NUL-terminated: a literal of the decoder's
  if (lent(key, name)) {
    napi_value name_value = Napi::String::New(env_, name);
    bool own = false;
    NAPI_THROW_IF_FAILED(env_, napi_has_own_property(env_, js(object), name_value, &own),
                         std::nullopt);
    if (!own) return std::nullopt;
  }
  napi_value out = nullptr;
  NAPI_THROW_IF_FAILED(env_, napi_get_named_property(env_, js(object), name, &out), std::nullopt);
  napi_valuetype type = napi_undefined;
  NAPI_THROW_IF_FAILED(env_, napi_typeof(env_, out, &type), std::nullopt);
  if (type == napi_undefined) return std::nullopt;
  last_member_ = out;
  last_member_type_ = type;
  return Node{.value = out, .key = key};
}

bool JsReader::lent(std::string_view key, const char* name) {
  // The decoder names each key by the one string literal it has for it.
  Key* known = nullptr;
  for (Key& each : keys_) {
    if (each.key.data() == key.data() || each.key == key) {
      known = &each;
      break;
    }
  }
  if (known == nullptr) known = &keys_.emplace_back(Key{.key = key});
  for (; known->realms_asked < realms_.size(); ++known->realms_asked) {
    bool has = false;  // Object.prototype has no prototype: what it has is its own
    NAPI_THROW_IF_FAILED(
        env_, napi_has_named_property(env_, realms_[known->realms_asked], name, &has), true);
    known->lent = known->lent || has;
  }
  return known->lent;
}

std::optional<json::WireReader::Unsaid> JsReader::unsaid(Node refused, std::size_t depth) {
  const Look found = look(refused);
  if (found.kind == Kind::Unsaid) return Unsaid{.below = "", .reason = reason_};
  if (found.kind == Kind::Array) return unsaid_inside(js(refused), depth);
  return std::nullopt;
}

// An array with a value JSON cannot say is not JSON as a whole: refused, it is explained at
// that value, the first one, found through the arrays inside it. The nesting limit counts as
// the parser does: the 257th array or object inside another is too deep.
std::optional<json::WireReader::Unsaid> JsReader::unsaid_inside(napi_value array,
                                                                std::size_t depth) {
  const std::uint32_t length = array_length(env_, array).value_or(0);
  for (std::uint32_t i = 0; i < length; ++i) {
    const Node item = element({.value = array}, i);
    const std::string below = "/" + std::to_string(i);
    const Look found = look(item);
    const bool container = found.kind == Kind::Array || found.kind == Kind::Object ||
                           (found.kind == Kind::Unsaid && reason_.ends_with("not a plain object"));
    if (container && depth + 1 >= json::kMaxDepth) {
      return Unsaid{.below = below,
                    .reason = "nested deeper than " + std::to_string(json::kMaxDepth) + " levels"};
    }
    if (found.kind == Kind::Unsaid) return Unsaid{.below = below, .reason = reason_};
    if (found.kind != Kind::Array) continue;
    if (auto inside = unsaid_inside(js(item), depth + 1)) {
      inside->below = below + inside->below;
      return inside;
    }
  }
  return std::nullopt;
}

namespace {

// Answers are made in JavaScript, one call per object or array: a function compiled for an
// object's keys returns the frozen literal, whose shape V8 knows up front. Made from C++ a
// property at a time, the same object costs several times as much (bench/README.md).
// Containers longer than this are made from C++, one element at a time.
constexpr std::size_t kMaxMadeInJs = 256;

// FNV-1a, over an object's keys.
constexpr std::uint64_t kFnvPrime = 1099511628211ULL;

// The function that makes the frozen object with `keys`, in order, from their values
// (lib/make.cjs), compiled once per list of keys; `hash` is the keys' FNV-1a hash.
napi_value object_maker(Napi::Env env, std::span<const std::string_view> keys, std::uint64_t hash) {
  auto& makers = state(env).object_makers;
  auto [first, last] = makers.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    if (std::equal(keys.begin(), keys.end(), it->second.keys.begin(), it->second.keys.end())) {
      return it->second.make.Value();
    }
  }
  State::ObjectMaker made;
  Napi::Array names = Napi::Array::New(env, keys.size());
  for (std::uint32_t i = 0; i < keys.size(); ++i) {
    made.keys.emplace_back(keys[i]);
    names.Set(i, Napi::String::New(env, keys[i].data(), keys[i].size()));
  }
  made.make = Napi::Persistent(state(env).compile_object_maker.Call({names}).As<Napi::Function>());
  return makers.emplace(hash, std::move(made))->second.make.Value();
}

// `value`'s tree, fed to `out` as the encoder feeds it.
void feed(const json::Value& value, JsWriter& out) {
  switch (value.type()) {
    case json::Value::value_t::null:
      return out.null();
    case json::Value::value_t::boolean:
      return out.boolean(value.get<bool>());
    case json::Value::value_t::number_unsigned:
      return out.number(value.get<std::uint64_t>());
    case json::Value::value_t::number_integer:
      return out.real(static_cast<double>(value.get<std::int64_t>()));
    case json::Value::value_t::number_float:
      return out.real(value.get<double>());
    case json::Value::value_t::string:
      return out.string(value.get_ref<const std::string&>());
    case json::Value::value_t::array:
      out.begin_array(value.size());
      for (const auto& item : value) feed(item, out);
      return out.end_array();
    case json::Value::value_t::object:
      out.begin_object(value.size());
      for (const auto& [name, item] : value.items()) {
        out.key(name);
        feed(item, out);
      }
      return out.end_object();
    case json::Value::value_t::binary:
    case json::Value::value_t::discarded:
      break;
  }
  out.null();
}

}  // namespace

Napi::Value make_error(Napi::Env env, const char* family, const json::Value& wire) {
  return state(env).make_error.Call({Napi::String::New(env, family), to_js(env, wire)});
}

void throw_error(Napi::Env env, const char* family, const json::Value& wire) {
  throw Napi::Error(env, make_error(env, family, wire));
}

void throw_decode_error(Napi::Env env, const json::DecodeError& error) {
  throw_error(env, "DecodeError", json::error_value(error));
}

Napi::Value to_js(Napi::Env env, const json::Value& value) {
  JsWriter out(env);
  feed(value, out);
  return out.take();
}

// ---- JsWriter ------------------------------------------------------------------------------

JsWriter::JsWriter(Napi::Env env) : env_(env) {}

Napi::Value JsWriter::take() { return {env_, root_}; }

void JsWriter::null() { add(env_.Null()); }
void JsWriter::boolean(bool value) { add(Napi::Boolean::New(env_, value)); }
void JsWriter::number(std::uint64_t value) {
  // A Sequence is always a bigint; any other integer a number, unless a number would lose
  // digits (an offset beyond 2^53 - 1).
  if ((!frames_.empty() && frames_.back().object && is_sequence_key(key_)) ||
      value > kMaxSafeUnsigned) {
    add(Napi::BigInt::New(env_, value));
  } else {
    add(Napi::Number::New(env_, static_cast<double>(value)));
  }
}
void JsWriter::real(double value) { add(Napi::Number::New(env_, value)); }
void JsWriter::string(std::string_view value) { add(text_or_bytes(env_, value)); }
void JsWriter::begin_array(std::size_t size) {
  frames_.push_back({.object = false, .first = values_.size(), .first_key = keys_.size()});
  values_.reserve(values_.size() + size);
}
void JsWriter::begin_object(std::size_t size) {
  frames_.push_back({.object = true, .first = values_.size(), .first_key = keys_.size()});
  values_.reserve(values_.size() + size);
  keys_.reserve(keys_.size() + size);
}
void JsWriter::key(std::string_view name) {
  key_ = name;
  keys_.push_back(name);
  std::uint64_t& hash = frames_.back().hash;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  hash *= kFnvPrime;  // the key's end, so that ("ab", "c") and ("a", "bc") differ
}

void JsWriter::end_array() {
  const Frame frame = frames_.back();
  frames_.pop_back();
  const std::span<const napi_value> items(values_.data() + frame.first,
                                          values_.size() - frame.first);
  napi_value out = nullptr;
  if (items.size() <= kMaxMadeInJs) {
    NAPI_THROW_IF_FAILED_VOID(
        env_, napi_call_function(env_, env_.Undefined(), state(env_).freeze_array.Value(),
                                 items.size(), items.data(), &out));
  } else {
    Napi::Array array = Napi::Array::New(env_, items.size());
    for (std::uint32_t i = 0; i < items.size(); ++i) array.Set(i, Napi::Value(env_, items[i]));
    array.Freeze();
    out = array;
  }
  values_.resize(frame.first);
  add(out);
}

void JsWriter::end_object() {
  const Frame frame = frames_.back();
  frames_.pop_back();
  const std::span<const napi_value> members(values_.data() + frame.first,
                                            values_.size() - frame.first);
  const std::span<const std::string_view> keys(keys_.data() + frame.first_key,
                                               keys_.size() - frame.first_key);
  napi_value out = nullptr;
  if (members.size() <= kMaxMadeInJs) {
    NAPI_THROW_IF_FAILED_VOID(
        env_, napi_call_function(env_, env_.Undefined(), object_maker(env_, keys, frame.hash),
                                 members.size(), members.data(), &out));
  } else {
    Napi::Object object = Napi::Object::New(env_);
    for (std::size_t i = 0; i < members.size(); ++i) {
      object.Set(Napi::String::New(env_, keys[i].data(), keys[i].size()),
                 Napi::Value(env_, members[i]));
    }
    object.Freeze();
    out = object;
  }
  values_.resize(frame.first);
  keys_.resize(frame.first_key);
  add(out);
}

void JsWriter::add(napi_value value) {
  if (frames_.empty()) {
    root_ = value;
  } else {
    values_.push_back(value);
  }
}

std::string text(Napi::Value value, std::string_view what) {
  const Napi::Env env = value.Env();
  if (value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
    const auto bytes = value.As<Napi::Uint8Array>();  // a Buffer too: its bytes, exactly
    return {reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength()};
  }
  if (!value.IsString()) {
    throw Napi::TypeError::New(env,
                               std::string(what) + ": expected a string, got " + described(value));
  }
  std::optional<std::size_t> surrogate;
  std::string out = utf8(env, value, surrogate);
  if (surrogate) {
    throw Napi::TypeError::New(env, std::string(what) + ": a lone surrogate at index " +
                                        std::to_string(*surrogate) + " is not Unicode text");
  }
  return out;
}

std::optional<std::string> nullable_text(Napi::Value value, std::string_view what) {
  if (value.IsNull() || value.IsUndefined()) return std::nullopt;
  return text(value, what);
}

std::string shown(Napi::Value value) {
  try {
    return value.ToString().Utf8Value();
  } catch (const Napi::Error&) {
    return described(value);
  }
}

Napi::Value text_or_bytes(Napi::Env env, std::string_view value) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(value.data());
  const auto length = static_cast<std::int32_t>(value.size());
  for (std::int32_t i = 0; i < length;) {
    UChar32 c = 0;
    U8_NEXT(data, i, length, c);
    if (c < 0) return Napi::Buffer<char>::Copy(env, value.data(), value.size());
  }
  return Napi::String::New(env, value.data(), value.size());
}

std::optional<std::uint32_t> array_length(Napi::Env env, napi_value value) {
  bool is_array = false;
  NAPI_THROW_IF_FAILED(env, napi_is_array(env, value, &is_array), std::nullopt);
  std::uint32_t length = 0;
  if (is_array) {
    NAPI_THROW_IF_FAILED(env, napi_get_array_length(env, value, &length), std::nullopt);
    return length;
  }
  const Napi::Value given(env, value);
  if (!given.IsObject() || !state(env).is_array.Call({given}).ToBoolean().Value()) {
    return std::nullopt;
  }
  const Napi::Value said = given.As<Napi::Object>().Get("length");
  const double number = said.IsNumber() ? said.As<Napi::Number>().DoubleValue() : -1;
  if (!(number >= 0 && number <= UINT32_MAX && std::trunc(number) == number)) {
    throw Napi::TypeError::New(
        env, "a Proxy around an array whose length is " + shown(said) + ", not an array's");
  }
  return static_cast<std::uint32_t>(number);
}

std::string described(Napi::Value value) {
  switch (value.Type()) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean:
      return "a boolean";
    case napi_number:
      return "a number";
    case napi_bigint:
      return "a BigInt";
    case napi_string:
      return "a string";
    case napi_symbol:
      return "a symbol";
    case napi_function:
      return "a function";
    case napi_external:
      return "an external";
    case napi_object:
      break;
  }
  if (state(value.Env()).is_array.Call({value}).ToBoolean().Value()) return "an array";
  const Napi::Value constructor = value.As<Napi::Object>().Get("constructor");
  if (constructor.IsFunction()) {
    const Napi::Value name = constructor.As<Napi::Object>().Get("name");
    if (name.IsString() && !name.As<Napi::String>().Utf8Value().empty()) {
      const std::string type = name.As<Napi::String>().Utf8Value();
      const bool vowel =
          std::string_view("AEIOUaeiou").find(type.front()) != std::string_view::npos;
      return (vowel ? "an " : "a ") + type;
    }
  }
  return "an object";
}

}  // namespace thm::node
