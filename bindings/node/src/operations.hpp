#pragma once
// The functions the addon exports (adr/0014), defined where their families are.

#include <napi.h>

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "thm/team/team.hpp"

namespace thm::node {

/// The prepared team under `args.team` (made by `prepareTeam`, adr/0016), or null when the
/// call of `op` gives its snapshots instead; a `TypeError` for anything else there, and for
/// a team given beside `roster` or `desks`.
[[nodiscard]] const Team* team_of(Napi::Env env, Napi::Object args, std::string_view op);

/// `Op`, with any C++ exception but a JavaScript one thrown to JavaScript as an `Error`
/// (a `RangeError` for exhausted memory) instead of ending the process: node-addon-api
/// turns only `Napi::Error` into a JavaScript exception.
template <Napi::Value (*Op)(const Napi::CallbackInfo&)>
Napi::Value guarded(const Napi::CallbackInfo& info) {
  try {
    return Op(info);
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw Napi::RangeError::New(info.Env(), "thm: out of memory");
  } catch (const std::exception& e) {
    throw Napi::Error::New(info.Env(), std::string("thm: ") + e.what());
  }
}

/// Adds the operations of `thm eval`, `fromJSON`, `parse`, `stringify` and `WIRE_TYPES` and
/// `QUEUE_ERROR_KINDS`.
void add_operations(Napi::Env env, Napi::Object exports);

/// Adds `dispatchMention` (queue.cpp).
void add_dispatch_mention(Napi::Env env, Napi::Object exports);

}  // namespace thm::node
