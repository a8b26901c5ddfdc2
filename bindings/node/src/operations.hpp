#pragma once
// The functions the addon exports (adr/0014), defined where their families are.

#include <napi.h>

namespace thm::node {

/// Adds the operations of `thm eval`, `fromJSON`, `parse`, `stringify` and `WIRE_TYPES` and
/// `QUEUE_ERROR_KINDS`.
void add_operations(Napi::Env env, Napi::Object exports);

/// Adds `dispatchMention` (queue.cpp).
void add_dispatch_mention(Napi::Env env, Napi::Object exports);

}  // namespace thm::node
