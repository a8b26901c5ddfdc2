#pragma once
// Reading a function's arguments (adr/0014): the first is positional, the others named in
// one object, as `thm eval` names them. A missing or mistyped one is a `TypeError` naming
// the function and the argument.

#include <napi.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "convert.hpp"

namespace thm::node {

/// `op(argument)`, how messages name an argument: `resolveMentions(body)`.
inline std::string where(std::string_view op, std::string_view argument) {
  return std::string(op) + "(" + std::string(argument) + ")";
}

/// The object of named arguments at `info[index]`, e.g. `{ roster, desks }`.
inline Napi::Object named(const Napi::CallbackInfo& info, std::size_t index, std::string_view op) {
  const Napi::Value value = info[index];
  if (!value.IsObject() || value.IsArray() || value.IsFunction()) {
    throw Napi::TypeError::New(
        info.Env(),
        std::string(op) + ": expected an object of named arguments, got " + described(value));
  }
  return value.As<Napi::Object>();
}

/// The positional argument `info[index]`, which must be given: `name` names it.
inline Napi::Value given(const Napi::CallbackInfo& info, std::size_t index, std::string_view op,
                         std::string_view name) {
  Napi::Value value = info[index];
  if (value.IsUndefined()) {
    throw Napi::TypeError::New(
        info.Env(), std::string(op) + ": the argument " + std::string(name) + " is missing");
  }
  return value;
}

/// The named argument `key` of `args`, or undefined: an own property only, so that a key
/// another library put on `Object.prototype` is no argument of any call.
inline Napi::Value argument(Napi::Object args, const char* key) {
  return args.HasOwnProperty(key) ? args.Get(key) : args.Env().Undefined();
}

/// The named argument `key` of `args`, which must be given.
inline Napi::Value required(Napi::Object args, const char* key, std::string_view op) {
  Napi::Value value = argument(args, key);
  if (value.IsUndefined()) {
    throw Napi::TypeError::New(args.Env(),
                               std::string(op) + ": the argument " + key + " is missing");
  }
  return value;
}

}  // namespace thm::node
