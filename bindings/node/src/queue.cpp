// `dispatchMention` with a queue written in JavaScript (adr/0014): any object whose
// `enqueueOnce(request)` returns an EnqueueOutcome wire form (`{ status: "enqueued" }`,
// `{ status: "already" }`, `{ status: "refused", reason }`), synchronously (an async queue
// goes through `dispatchMentionAsync`, lib/async.cjs, which replays its answer through here).
// Nothing the queue does unwinds through the core (built without exceptions): what it throws is
// caught at the port, kept, and thrown again once the core returns.
#include <napi.h>

#include <optional>
#include <string>
#include <utility>

#include "arguments.hpp"
#include "convert.hpp"
#include "held.hpp"
#include "large_roster.hpp"
#include "operations.hpp"
#include "state.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"

namespace thm::node {
namespace {

// How deep `dispatchMention` may nest (a queue that dispatches from inside `enqueueOnce`):
// far past any real host, and far short of the native stack.
constexpr int kMaxNestedDispatches = 32;

// The port over a JavaScript object, called on the thread that called `dispatchMention`,
// once at most.
class JsQueue final : public MentionTurnQueue {
 public:
  JsQueue(Napi::Object queue, Napi::Function enqueue_once)
      : queue_(std::move(queue)), enqueue_once_(std::move(enqueue_once)) {}

  Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override {
    const Napi::Env env = queue_.Env();
    try {
      const Napi::Value answer = enqueue_once_.Call(queue_, {attach(env, request)});
      if (is_thenable(answer)) {  // a Promise, or anything with a then()
        // A rejection nobody handles would end the process later: handle it, and say why.
        answer.As<Napi::Object>().Get("then").As<Napi::Function>().Call(
            answer, {Napi::Function::New(env, [](const Napi::CallbackInfo&) {}),
                     Napi::Function::New(env, [](const Napi::CallbackInfo&) {})});
        return unexpected{QueueError{
            QueueErrorKind::Internal,
            "enqueueOnce returned a promise: dispatchMention needs the outcome synchronously "
            "(an async queue is served by dispatchMentionAsync)"}};
      }
      return outcome_of(answer);
    } catch (const Napi::Error& thrown) {
      return unexpected{keep(thrown, "enqueueOnce threw ")};
    } catch (const std::exception& e) {  // a C++ failure on the way (e.g. no memory)
      return unexpected{QueueError{QueueErrorKind::Internal, e.what()}};
    } catch (...) {
      return unexpected{QueueError{QueueErrorKind::Internal, "an unknown C++ exception"}};
    }
  }

  // The outcome `answer` is, or an `Internal` error saying what it is instead. What a getter
  // of the answer throws is kept as what the queue threw.
  Result<EnqueueOutcome, QueueError> outcome_of(Napi::Value answer) noexcept {
    try {
      JsReader reader(answer.Env());
      auto outcome = json::from_reader<EnqueueOutcome>(reader, JsReader::root(answer));
      if (outcome) return *std::move(outcome);
      const json::DecodeError& error = outcome.error();
      return unexpected{QueueError{QueueErrorKind::Internal,
                                   "enqueueOnce returned " + described(answer) +
                                       ", not an EnqueueOutcome (" + error.reason +
                                       (error.path.empty() ? "" : " at " + error.path) + ")"}};
    } catch (const Napi::Error& thrown) {
      return unexpected{keep(thrown, "reading what enqueueOnce returned threw ")};
    } catch (const std::exception& e) {
      return unexpected{QueueError{QueueErrorKind::Internal, e.what()}};
    }
  }

  // What the queue threw, if it threw.
  std::optional<Napi::Value> thrown() const {
    if (thrown_.IsEmpty()) return std::nullopt;
    return thrown_.Value().Get(0U);
  }
  // Whether what the queue threw is a thm.QueueError with a kind and a message.
  bool threw_its_own_error() const { return own_error_; }

 private:
  static bool is_thenable(Napi::Value value) {
    return value.IsObject() && value.As<Napi::Object>().Get("then").IsFunction();
  }

  // Keeps what the queue threw, and the host failure it stands for: a thm.QueueError's own
  // kind and message; for anything else, `Internal` with `doing` and its text.
  QueueError keep(const Napi::Error& error, const char* doing) noexcept {
    try {
      const Napi::Env env = queue_.Env();
      const Napi::Value value = error.Value();  // what was thrown, a primitive included
      // Node 20 makes references to objects only: a primitive is kept inside an array.
      Napi::Array holder = Napi::Array::New(env, 1);
      holder.Set(0U, value);
      thrown_ = Napi::Persistent(holder);
      if (value.IsObject() && value.As<Napi::Object>().InstanceOf(state(env).queue_error.Value())) {
        const Napi::Object object = value.As<Napi::Object>();
        const Napi::Value token = object.Get("kind");
        const Napi::Value message = object.Get("message");
        if (token.IsString() && message.IsString()) {
          if (const auto kind = queue_error_kind_from_name(token.As<Napi::String>().Utf8Value())) {
            own_error_ = true;
            return {*kind, message.As<Napi::String>().Utf8Value()};
          }
        }
        return {QueueErrorKind::Internal, std::string(doing) + "a QueueError without a valid kind"};
      }
      return {QueueErrorKind::Internal, std::string(doing) + shown(value)};
    } catch (...) {
      return {QueueErrorKind::Internal, std::string(doing) + "something that cannot be shown"};
    }
  }

  Napi::Object queue_;
  Napi::Function enqueue_once_;
  Napi::Reference<Napi::Array> thrown_;
  bool own_error_ = false;  // what was thrown is a well-formed thm.QueueError
};

Napi::Value op_dispatch_mention(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  int& nested = state(env).nested_dispatches;
  if (nested >= kMaxNestedDispatches) {
    throw Napi::RangeError::New(env, "dispatchMention nested more than " +
                                         std::to_string(kMaxNestedDispatches) +
                                         " deep: a queue is dispatching from inside enqueueOnce");
  }
  struct Nested {
    explicit Nested(int& depth) : depth_(depth) { ++depth_; }
    ~Nested() { --depth_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
    int& depth_;
  } const nesting(nested);

  const Napi::Value queue = info[0];
  const Napi::Value method =
      queue.IsObject() ? queue.As<Napi::Object>().Get("enqueueOnce") : env.Undefined();
  if (!method.IsFunction()) {
    throw Napi::TypeError::New(env,
                               "dispatchMention(queue): expected an object with "
                               "enqueueOnce(request), got " +
                                   described(queue));
  }
  constexpr std::string_view op = "dispatchMention";
  const Napi::Object args = named(info, 1, op);
  const Arg<MentionDispatchPolicy> policy(env, required(args, "policy", op), "/policy");
  const Arg<MentionDispatchInput> input(env, required(args, "input", op), "/input");
  const Team* team = team_of(env, args, op);
  std::optional<Arg<RosterSnapshot>> roster;
  if (team == nullptr) {
    roster.emplace(env, required(args, "roster", op), "/roster");
    warn_if_large(env, **roster, op);
  }

  JsQueue port(queue.As<Napi::Object>(), method.As<Napi::Function>());
  auto outcome = team != nullptr ? dispatch_mention(port, *policy, *input, *team)
                                 : dispatch_mention(port, *policy, *input, Roster(**roster));
  if (outcome) return to_js(env, *outcome);
  if (const auto* core = std::get_if<CoreFailure>(&outcome.error())) {
    throw_error(env, "RosterError", json::error_value(core->core));
  }
  const QueueError& failure = std::get<EnqueueFailure>(outcome.error()).error;
  const auto thrown = port.thrown();
  // The queue's own thm.QueueError is thrown again as it was.
  if (thrown && port.threw_its_own_error()) throw Napi::Error(env, *thrown);
  json::Value wire = json::to_value(failure);
  Napi::Object error = make_error(env, "QueueError", wire).As<Napi::Object>();
  if (thrown) error.Set("cause", *thrown);
  throw Napi::Error(env, error);
}

}  // namespace

void add_dispatch_mention(Napi::Env env, Napi::Object exports) {
  exports.Set("dispatchMention",
              Napi::Function::New(env, guarded<op_dispatch_mention>, "dispatchMention"));
}

}  // namespace thm::node
