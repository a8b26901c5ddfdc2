#pragma once
// What the addon keeps per JavaScript environment (the main thread and each worker has its
// own): the function that builds thm's error classes, and the class `QueueError`, given by
// `lib/index.cjs` once it has loaded the addon, and `Object.prototype`, against which a plain
// object is told apart.

#include <napi.h>

namespace thm::node {

/// The addon's per-environment state (`napi_set_instance_data`).
struct State {
  /// `(family, caseForm) => Error`: the thm error class `family` built from a core error's
  /// case-file form (lib/errors.cjs `fromCase`).
  Napi::FunctionReference make_error;
  /// The class `thm.QueueError`, what a queue throws to report a host failure.
  Napi::FunctionReference queue_error;
  /// `Object.prototype` of the environment.
  Napi::ObjectReference object_prototype;
  /// How deep `dispatchMention` is nested in this environment: a queue that dispatches from
  /// inside `enqueueOnce`.
  int nested_dispatches = 0;
};

/// The state of `env`, made when the addon was loaded into it.
inline State& state(Napi::Env env) { return *env.GetInstanceData<State>(); }

}  // namespace thm::node
