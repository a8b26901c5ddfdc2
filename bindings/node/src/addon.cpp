// The addon `thm.node` (adr/0014): the core and its wire codec, bound through Node-API.
// `lib/index.cjs` loads it, hands it the function that builds thm's error classes
// (`setup`), and is the package's only way in.
#include <napi.h>

#include <memory>
#include <utility>

#include "held.hpp"
#include "operations.hpp"
#include "state.hpp"

namespace thm::node {
Napi::Object init(Napi::Env env, Napi::Object exports);

namespace {

// The tag of the objects `attach` made: held values of this addon and no other.
constexpr napi_type_tag kHeldTag{0x9d3c'41a7'5be2'0f61ULL, 0x7c18'e4d2'a930'5b8eULL};

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
  made->object_prototype = Napi::Persistent(
      env.Global().Get("Object").As<Napi::Object>().Get("prototype").As<Napi::Object>());
  exports.Set("setup", Napi::Function::New(env, op_setup, "setup"));
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
  if (napi_check_object_type_tag(env, value, &kHeldTag, &tagged) != napi_ok || !tagged) {
    return nullptr;
  }
  void* data = nullptr;
  if (napi_unwrap(env, value, &data) != napi_ok) return nullptr;
  return static_cast<const Held*>(data);
}

void attach_held(Napi::Env env, Napi::Object wire, std::unique_ptr<Held> value) {
  // A frozen object takes a type tag and a wrap: both are private to the engine.
  NAPI_THROW_IF_FAILED_VOID(env, napi_type_tag_object(env, wire, &kHeldTag));
  NAPI_THROW_IF_FAILED_VOID(env,
                            napi_wrap(env, wire, value.get(), finalize_held, nullptr, nullptr));
  value.release();  // the object owns it now
}

}  // namespace thm::node

namespace {
Napi::Object init_thm(Napi::Env env, Napi::Object exports) { return thm::node::init(env, exports); }
}  // namespace

NODE_API_MODULE(thm, init_thm)
