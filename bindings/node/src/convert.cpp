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

// A container of more values than this is not reserved for up front: its length is the
// caller's to claim (an array's `length` can be 2^32 - 1 with nothing in it).
constexpr std::size_t kMaxReserved = 1024;

}  // namespace

json::Value JsonReader::read(Napi::Value value, const Where& where) {
  return read_at(value, where, 0);
}

json::DecodeError JsonReader::explain(json::DecodeError error) const {
  for (const Placeholder& placeholder : placeholders_) {
    if (placeholder.at == error.path) {
      return {.path = placeholder.path, .reason = "not JSON: " + placeholder.reason};
    }
  }
  return error;
}

json::Value JsonReader::placeholder(const Where& where, std::string reason) {
  std::string path = where.pointer();
  placeholders_.push_back({.at = path, .path = std::move(path), .reason = std::move(reason)});
  return json::Value::binary({});
}

json::Value JsonReader::read_at(Napi::Value value, const Where& where, std::size_t depth) {
  switch (value.Type()) {
    case napi_null:
      return nullptr;
    case napi_boolean:
      return value.As<Napi::Boolean>().Value();
    case napi_number:
      return number(value.As<Napi::Number>().DoubleValue(), where);
    case napi_bigint:
      return bigint(value, where, is_wide_key(where.key));
    case napi_string: {
      std::optional<std::size_t> surrogate;
      std::string out = utf8(env_, value, surrogate);
      if (surrogate) {
        return placeholder(where,
                           "a string with a lone surrogate at index " + std::to_string(*surrogate));
      }
      if (is_sequence_key(where.key)) {
        if (const auto parsed = decimal_u64(out)) return *parsed;
        return placeholder(where,
                           "a Sequence is a BigInt, a decimal string or a safe integer, "
                           "from 0 to 18446744073709551615");
      }
      return out;
    }
    case napi_object:
      if (value.IsTypedArray() &&
          value.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array) {
        // Bytes (a Buffer, a Uint8Array) are text as it is, UTF-8 or not.
        const auto bytes = value.As<Napi::Uint8Array>();
        return std::string(reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength());
      }
      // As the parser counts: the 257th array or object inside another is too deep.
      if (depth >= json::kMaxDepth) {
        return placeholder(where,
                           "nested deeper than " + std::to_string(json::kMaxDepth) + " levels");
      }
      if (value.IsArray()) return array(value.As<Napi::Array>(), where, depth);
      return object(value.As<Napi::Object>(), where, depth);
    case napi_undefined:
    case napi_symbol:
    case napi_function:
    case napi_external:
      break;
  }
  return placeholder(where, described(value));
}

json::Value JsonReader::number(double value, const Where& where) {
  if (!std::isfinite(value)) return placeholder(where, "a number that is not finite");
  if (std::trunc(value) != value) return value;  // the decoder refuses it, saying why
  if (std::fabs(value) > kMaxSafeInteger) {
    return placeholder(where, integer_text(value) +
                                  " is not a safe integer (it may have lost digits); pass a "
                                  "BigInt or a decimal string");
  }
  if (value >= 0) return static_cast<std::uint64_t>(value);
  return static_cast<std::int64_t>(value);
}

json::Value JsonReader::bigint(Napi::Value value, const Where& where, bool wide) {
  bool lossless = false;
  std::uint64_t unsigned_value = 0;
  NAPI_THROW_IF_FAILED(env_, napi_get_value_bigint_uint64(env_, value, &unsigned_value, &lossless),
                       {});
  if (lossless && (wide || unsigned_value <= kMaxSafeUnsigned)) {
    return unsigned_value;
  }
  if (lossless) {
    return placeholder(where, std::to_string(unsigned_value) +
                                  "n is beyond 2^53 - 1, which only a Sequence (trigger_sequence, "
                                  "thread_root) or a byte offset may be");
  }
  std::int64_t signed_value = 0;
  NAPI_THROW_IF_FAILED(env_, napi_get_value_bigint_int64(env_, value, &signed_value, &lossless),
                       {});
  if (lossless && signed_value < 0) return signed_value;
  return placeholder(where, "a BigInt outside -2^63 .. 2^64 - 1");
}

json::Value JsonReader::array(Napi::Array array, const Where& where, std::size_t depth) {
  json::Value out = json::Value::array();
  const std::uint32_t length = array.Length();
  out.get_ref<json::Value::array_t&>().reserve(std::min<std::size_t>(length, kMaxReserved));
  for (std::uint32_t i = 0; i < length; ++i) {
    const Where element{.parent = &where, .index = i, .is_index = true};
    const std::size_t before = placeholders_.size();
    json::Value item = read_at(array.Get(i), element, depth + 1);
    if (item.is_binary()) {
      // An array with a value JSON cannot say is not JSON as a whole: it is one placeholder,
      // refused where the array is read, and explained at the element. Reading on would
      // walk a `length` of 2^32 - 1 with nothing in it.
      placeholders_[before].at = where.pointer();
      placeholders_.resize(before + 1);
      return json::Value::binary({});
    }
    out.push_back(std::move(item));
  }
  return out;
}

bool JsonReader::plain(Napi::Object object) {
  // Object.prototype of any realm (a vm context's, a test runner's) is the only object in
  // its chain with a null prototype: one step up from a plain object is the end.
  napi_value prototype = nullptr;
  NAPI_THROW_IF_FAILED(env_, napi_get_prototype(env_, object, &prototype), false);
  if (Napi::Value(env_, prototype).IsNull()) return true;
  napi_value above = nullptr;
  NAPI_THROW_IF_FAILED(env_, napi_get_prototype(env_, prototype, &above), false);
  return Napi::Value(env_, above).IsNull();
}

json::Value JsonReader::object(Napi::Object object, const Where& where, std::size_t depth) {
  if (!plain(object)) return placeholder(where, described(object) + ", not a plain object");
  napi_value names_value = nullptr;
  NAPI_THROW_IF_FAILED(env_,
                       napi_get_all_property_names(env_, object, napi_key_own_only,
                                                   static_cast<napi_key_filter>(
                                                       napi_key_enumerable | napi_key_skip_symbols),
                                                   napi_key_numbers_to_strings, &names_value),
                       {});
  const Napi::Array names(env_, names_value);
  json::Value out = json::Value::object();
  const std::uint32_t count = names.Length();
  out.get_ref<json::Value::object_t&>().reserve(std::min<std::size_t>(count, kMaxReserved));
  for (std::uint32_t i = 0; i < count; ++i) {
    const Napi::Value name = names.Get(i);
    std::optional<std::size_t> surrogate;
    std::string key = utf8(env_, name, surrogate);
    if (surrogate) continue;  // no wire form has such a key: an unknown key, ignored
    const Napi::Value item = object.Get(name);
    if (item.IsUndefined()) continue;  // absent, as JSON.stringify has it
    const Where member{.parent = &where, .key = key};
    json::Value converted = read_at(item, member, depth + 1);
    out.emplace(std::move(key), std::move(converted));
  }
  return out;
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

std::string Where::pointer() const {
  std::vector<const Where*> chain;
  for (const Where* at = this; at != nullptr; at = at->parent) chain.push_back(at);
  std::string out(chain.back()->root);
  for (auto it = chain.rbegin() + 1; it != chain.rend(); ++it) {
    out += '/';
    out += (*it)->is_index ? std::to_string((*it)->index) : json::escape_pointer_token((*it)->key);
  }
  return out;
}

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
  if (value.IsArray()) return "an array";
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
