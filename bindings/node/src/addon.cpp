// The addon `thm.node` (adr/0014): the core and its wire codec, bound through Node-API.
// `lib/index.cjs` loads it, hands it the function that builds thm's error classes
// (`setup`), and is the package's only way in.
#include <napi.h>

#include <cstdint>
#include <memory>
#include <random>
#include <utility>

#include "held.hpp"
#include "operations.hpp"
#include "state.hpp"

namespace thm::node {
Napi::Object init(Napi::Env env, Napi::Object exports);

namespace {

// The tag of the objects `attach` made: held values of this copy of the addon and no other.
// It is drawn when the copy is loaded, so that two builds in one process (two versions in
// one node_modules, whose held values need not be laid out alike) never read each other's:
// each reads the other's objects as the plain wire objects they also are. Workers share
// the loaded copy, and its tag; a value cannot cross into another worker anyway.
const napi_type_tag& held_tag() {
  static const napi_type_tag tag = [] {
    std::random_device random;
    const auto draw = [&] { return (std::uint64_t{random()} << 32) ^ random(); };
    return napi_type_tag{draw(), draw()};
  }();
  return tag;
}

void finalize_held(napi_env /*env*/, void* data, void* /*hint*/) {
  delete static_cast<Held*>(data);
}

Napi::Value op_setup(const Napi::CallbackInfo& info) {
  for (std::size_t i = 0; i < 4; ++i) {
    if (!info[i].IsFunction()) {
      throw Napi::TypeError::New(info.Env(),
                                 "setup(makeError, QueueError, compileObjectMaker, freezeArray): "
                                 "expected four functions");
    }
  }
  State& kept = state(info.Env());
  kept.make_error = Napi::Persistent(info[0].As<Napi::Function>());
  kept.queue_error = Napi::Persistent(info[1].As<Napi::Function>());
  kept.compile_object_maker = Napi::Persistent(info[2].As<Napi::Function>());
  kept.freeze_array = Napi::Persistent(info[3].As<Napi::Function>());
  return info.Env().Undefined();
}

}  // namespace

Napi::Object init(Napi::Env env, Napi::Object exports) {
  auto* made = new State();
  env.SetInstanceData<State>(made);
  made->is_array = Napi::Persistent(
      env.Global().Get("Array").As<Napi::Object>().Get("isArray").As<Napi::Function>());
  exports.Set("setup", Napi::Function::New(env, guarded<op_setup>, "setup"));
  add_operations(env, exports);
  add_dispatch_mention(env, exports);
  exports.Set("version", Napi::String::New(env, THM_VERSION));
  exports.Set("heldValues", Napi::Function::New(
                                env,
                                [](const Napi::CallbackInfo& info) {
                                  return Napi::Number::New(info.Env(),
                                                           static_cast<double>(Held::alive.load()));
                                },
                                "heldValues"));
  return exports;
}

const Held* held(Napi::Env env, Napi::Value value) {
  if (!value.IsObject()) return nullptr;
  bool tagged = false;
  if (napi_check_object_type_tag(env, value, &held_tag(), &tagged) != napi_ok || !tagged) {
    return nullptr;
  }
  void* data = nullptr;
  if (napi_unwrap(env, value, &data) != napi_ok) return nullptr;
  return static_cast<const Held*>(data);
}

void attach_held(Napi::Env env, Napi::Object wire, std::unique_ptr<Held> value) {
  // A frozen object takes a type tag and a wrap: both are private to the engine.
  NAPI_THROW_IF_FAILED_VOID(env, napi_type_tag_object(env, wire, &held_tag()));
  NAPI_THROW_IF_FAILED_VOID(env,
                            napi_wrap(env, wire, value.get(), finalize_held, nullptr, nullptr));
  value.release();  // the object owns it now
}

}  // namespace thm::node

namespace {
Napi::Object init_thm(Napi::Env env, Napi::Object exports) { return thm::node::init(env, exports); }
}  // namespace

NODE_API_MODULE(thm, init_thm)
