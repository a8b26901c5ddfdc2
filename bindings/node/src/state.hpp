#pragma once
// What the addon keeps per JavaScript environment (the main thread and each worker has its
// own): what `lib/index.cjs` hands it once it is loaded (how to build thm's errors and
// answers, and the class `QueueError`) and the answers' compiled object makers.

#include <napi.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace thm::node {

/// The addon's per-environment state (`napi_set_instance_data`).
struct State {
  /// `(family, caseForm) => Error`: the thm error class `family` built from a core error's
  /// case-file form (lib/errors.cjs `fromCase`).
  Napi::FunctionReference make_error;
  /// The class `thm.QueueError`, what a queue throws to report a host failure.
  Napi::FunctionReference queue_error;
  /// How deep `dispatchMention` is nested in this environment: a queue that dispatches from
  /// inside `enqueueOnce`.
  int nested_dispatches = 0;
  /// `(keys) => function`: compiles, for one list of keys, the function that makes the
  /// frozen object with those keys from its arguments (lib/make.cjs).
  Napi::FunctionReference compile_object_maker;
  /// `(...items) => frozen array`.
  Napi::FunctionReference freeze_array;
  /// `Array.isArray` as it was when the addon was loaded.
  Napi::FunctionReference is_array;
  /// A compiled maker, and the keys it makes.
  struct ObjectMaker {
    std::vector<std::string> keys;
    Napi::FunctionReference make;
  };
  /// The compiled makers, by a hash of their keys: one per shape of answer, a few dozen in
  /// all (the wire forms' and the errors').
  std::unordered_multimap<std::uint64_t, ObjectMaker> object_makers;
};

/// The state of `env`, made when the addon was loaded into it.
inline State& state(Napi::Env env) { return *env.GetInstanceData<State>(); }

}  // namespace thm::node
