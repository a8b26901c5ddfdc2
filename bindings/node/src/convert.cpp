#include "convert.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "state.hpp"
#include "thm/json/pointer.hpp"

namespace thm::node {
namespace {

// The largest integer a `number` holds exactly with every smaller one (2^53 - 1).
constexpr double kMaxSafeInteger = 9007199254740991.0;

// SPEC §6's `Sequence` fields, the only u64 values of the wire forms.
bool is_sequence_key(std::string_view key) {
  return key == "trigger_sequence" || key == "thread_root";
}

[[noreturn]] void refuse(Napi::Env env, const Where& where, const std::string& why) {
  throw_decode_error(env, json::DecodeError{.path = where.pointer(), .reason = "not JSON: " + why});
}

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
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.0f", number);
  return digits;
}

json::Value number_to_json(Napi::Env env, double number, const Where& where) {
  if (!std::isfinite(number)) refuse(env, where, "a number that is not finite");
  if (std::trunc(number) != number) return number;  // the decoder refuses it, saying why
  if (std::fabs(number) > kMaxSafeInteger) {
    refuse(env, where,
           integer_text(number) +
               " is not a safe integer (it may have lost digits); pass a BigInt or a decimal "
               "string");
  }
  if (number >= 0) return static_cast<std::uint64_t>(number);
  return static_cast<std::int64_t>(number);
}

json::Value bigint_to_json(Napi::Env env, napi_value value, const Where& where) {
  bool lossless = false;
  std::uint64_t unsigned_value = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_bigint_uint64(env, value, &unsigned_value, &lossless),
                       {});
  if (lossless) return unsigned_value;
  std::int64_t signed_value = 0;
  NAPI_THROW_IF_FAILED(env, napi_get_value_bigint_int64(env, value, &signed_value, &lossless), {});
  if (lossless && signed_value < 0) return signed_value;
  refuse(env, where, "a BigInt outside -2^63 .. 2^64 - 1");
}

json::Value to_json_at(Napi::Env env, Napi::Value value, const Where& where, std::size_t depth);

json::Value array_to_json(Napi::Env env, Napi::Array array, const Where& where, std::size_t depth) {
  json::Value out = json::Value::array();
  const std::uint32_t length = array.Length();
  out.get_ref<json::Value::array_t&>().reserve(length);
  for (std::uint32_t i = 0; i < length; ++i) {
    const Where element{.parent = &where, .index = i, .is_index = true};
    out.push_back(to_json_at(env, array.Get(i), element, depth + 1));
  }
  return out;
}

json::Value object_to_json(Napi::Env env, Napi::Object object, const Where& where,
                           std::size_t depth) {
  napi_value prototype = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_get_prototype(env, object, &prototype), {});
  const Napi::Value proto(env, prototype);
  if (!proto.IsNull() && !proto.StrictEquals(state(env).object_prototype.Value())) {
    refuse(env, where, described(object) + ", not a plain object");
  }
  napi_value names_value = nullptr;
  NAPI_THROW_IF_FAILED(env,
                       napi_get_all_property_names(env, object, napi_key_own_only,
                                                   static_cast<napi_key_filter>(
                                                       napi_key_enumerable | napi_key_skip_symbols),
                                                   napi_key_numbers_to_strings, &names_value),
                       {});
  const Napi::Array names(env, names_value);
  json::Value out = json::Value::object();
  const std::uint32_t count = names.Length();
  out.get_ref<json::Value::object_t&>().reserve(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    const Napi::Value name = names.Get(i);
    std::optional<std::size_t> surrogate;
    std::string key = utf8(env, name, surrogate);
    const Napi::Value item = object.Get(name);
    if (item.IsUndefined()) continue;  // absent, as JSON.stringify has it
    const Where member{.parent = &where, .key = key};
    if (surrogate) refuse(env, member, "a key with a lone surrogate");
    if (is_sequence_key(key) && item.IsString()) {
      std::optional<std::size_t> lone;
      const std::string digits = utf8(env, item, lone);
      const auto parsed = decimal_u64(digits);
      if (!parsed) {
        throw_decode_error(env, json::DecodeError{.path = member.pointer(),
                                                  .reason = "expected a BigInt, a decimal string "
                                                            "or a safe integer from 0 to "
                                                            "18446744073709551615"});
      }
      out.emplace(std::move(key), *parsed);
      continue;
    }
    json::Value converted = to_json_at(env, item, member, depth + 1);
    out.emplace(std::move(key), std::move(converted));
  }
  return out;
}

json::Value to_json_at(Napi::Env env, Napi::Value value, const Where& where, std::size_t depth) {
  switch (value.Type()) {
    case napi_null:
      return nullptr;
    case napi_boolean:
      return value.As<Napi::Boolean>().Value();
    case napi_number:
      return number_to_json(env, value.As<Napi::Number>().DoubleValue(), where);
    case napi_bigint:
      return bigint_to_json(env, value, where);
    case napi_string: {
      std::optional<std::size_t> surrogate;
      std::string out = utf8(env, value, surrogate);
      if (surrogate) {
        refuse(env, where, "a string with a lone surrogate at index " + std::to_string(*surrogate));
      }
      return out;
    }
    case napi_object:
      // As the parser counts: the 257th array or object inside another is too deep.
      if (depth >= json::kMaxDepth) {
        refuse(env, where, "nested deeper than " + std::to_string(json::kMaxDepth) + " levels");
      }
      if (value.IsArray()) return array_to_json(env, value.As<Napi::Array>(), where, depth);
      return object_to_json(env, value.As<Napi::Object>(), where, depth);
    case napi_undefined:
    case napi_symbol:
    case napi_function:
    case napi_external:
      break;
  }
  refuse(env, where, described(value));
}

Napi::Value to_js_at(Napi::Env env, const json::Value& value, std::string_view key, bool freeze);

// Answers are made in JavaScript, one call per object or array: a function compiled for the
// object's keys builds the frozen literal, where V8 knows its shape up front. Made from C++
// one property at a time, the same object costs several times as much (bench/README.md).
// Arrays and objects longer than this are made from C++, one element at a time.
constexpr std::size_t kMaxMadeInJs = 256;

// The function that makes an object with `value`'s keys, in order, from their values. Found
// by a hash of the keys, and the keys compared, so that no string is made on the way.
Napi::Function object_maker(Napi::Env env, const json::Value& value) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a over the keys, each ended by a NUL
  for (const auto& [name, item] : value.items()) {
    for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    hash *= 1099511628211ULL;
  }
  const auto same_keys = [&](const std::vector<std::string>& keys) {
    if (keys.size() != value.size()) return false;
    std::size_t i = 0;
    for (const auto& [name, item] : value.items()) {
      if (keys[i++] != name) return false;
    }
    return true;
  };
  auto& makers = state(env).object_makers;
  auto [first, last] = makers.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    if (same_keys(it->second.keys)) return it->second.make.Value();
  }
  State::ObjectMaker made;
  Napi::Array keys = Napi::Array::New(env, value.size());
  std::uint32_t i = 0;
  for (const auto& [name, item] : value.items()) {
    made.keys.push_back(name);
    keys.Set(i++, Napi::String::New(env, name));
  }
  made.make = Napi::Persistent(state(env).compile_object_maker.Call({keys}).As<Napi::Function>());
  return makers.emplace(hash, std::move(made))->second.make.Value();
}

// `make` called with `values`, on the stack when there are few.
Napi::Value call_with(Napi::Env env, const Napi::Function& make, const json::Value& value,
                      bool object) {
  constexpr std::size_t kOnStack = 16;
  std::array<napi_value, kOnStack> few{};
  std::vector<napi_value> many;
  napi_value* args = few.data();
  if (value.size() > kOnStack) {
    many.resize(value.size());
    args = many.data();
  }
  std::size_t i = 0;
  if (object) {
    for (const auto& [name, item] : value.items()) args[i++] = to_js_at(env, item, name, true);
  } else {
    for (const auto& item : value) args[i++] = to_js_at(env, item, {}, true);
  }
  napi_value out = nullptr;
  NAPI_THROW_IF_FAILED(env, napi_call_function(env, env.Undefined(), make, i, args, &out),
                       Napi::Value());
  return {env, out};
}

// Frozen, unless `freeze` is false for the outermost value.
Napi::Value to_js_at(Napi::Env env, const json::Value& value, std::string_view key, bool freeze) {
  switch (value.type()) {
    case json::Value::value_t::null:
      return env.Null();
    case json::Value::value_t::boolean:
      return Napi::Boolean::New(env, value.get<bool>());
    case json::Value::value_t::number_unsigned: {
      const auto number = value.get<std::uint64_t>();
      if (is_sequence_key(key)) return Napi::BigInt::New(env, number);
      return Napi::Number::New(env, static_cast<double>(number));
    }
    case json::Value::value_t::number_integer:
      return Napi::Number::New(env, static_cast<double>(value.get<std::int64_t>()));
    case json::Value::value_t::number_float:
      return Napi::Number::New(env, value.get<double>());
    case json::Value::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      return Napi::String::New(env, text.data(), text.size());
    }
    case json::Value::value_t::array: {
      if (value.size() <= kMaxMadeInJs) {
        return call_with(env, state(env).freeze_array.Value(), value, false);
      }
      Napi::Array out = Napi::Array::New(env, value.size());
      std::uint32_t i = 0;
      for (const auto& item : value) out.Set(i++, to_js_at(env, item, {}, true));
      out.Freeze();
      return out;
    }
    case json::Value::value_t::object: {
      if (freeze && value.size() <= kMaxMadeInJs) {
        return call_with(env, object_maker(env, value), value, true);
      }
      Napi::Object out = Napi::Object::New(env);
      for (const auto& [name, item] : value.items()) {
        out.Set(Napi::String::New(env, name.data(), name.size()), to_js_at(env, item, name, true));
      }
      if (freeze) out.Freeze();
      return out;
    }
    case json::Value::value_t::binary:
    case json::Value::value_t::discarded:
      break;
  }
  return env.Null();
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

json::Value to_json(Napi::Env env, Napi::Value value, const Where& where) {
  return to_json_at(env, value, where, 0);
}

Napi::Value to_js(Napi::Env env, const json::Value& value) {
  return to_js_at(env, value, {}, true);
}

Napi::Value to_js_unfrozen(Napi::Env env, const json::Value& value) {
  return to_js_at(env, value, {}, false);
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
      return "a " + name.As<Napi::String>().Utf8Value();
    }
  }
  return "an object";
}

}  // namespace thm::node
