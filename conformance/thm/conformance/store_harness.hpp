#pragma once
/// \file
/// Pieces every harness over a store adapter repeats, for adapters shaped like the
/// reference stores (`thm::sqlite::SqliteQueue`, `thm::postgres::PostgresQueue`): a session
/// over one queue object, a hook slot shared by every connection, and the inspector's rows.

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thm/conformance/harness.hpp"

namespace thm::conformance {

/// The value of `result`, or `std::runtime_error("<what>: <kind>: <message>")` (harness
/// members report store failures by throwing).
template <class T>
T value_or_throw(Result<T, QueueError> result, const char* what) {
  if (!result) {
    throw std::runtime_error(std::string(what) + ": " + std::string(name(result.error().kind)) +
                             ": " + result.error().message);
  }
  return *std::move(result);
}

/// A session over one queue object, held by `Handle` (a `std::unique_ptr` to a connection of
/// its own, or a `std::shared_ptr` to a store shared in process), whose queue has
/// `enqueue_once`, `claim`, `renew`, and `complete`/`fail` returning
/// `Result<TurnState, LeaseError>`.
template <class Handle>
class QueueSession final : public Session {
 public:
  explicit QueueSession(Handle queue) : queue_(std::move(queue)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    return queue_->enqueue_once(request);
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return queue_->claim(duration);
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return queue_->renew(token, duration);
  }
  Result<std::string, LeaseError> complete(const std::string& token) override {
    return state_name(queue_->complete(token));
  }
  Result<std::string, LeaseError> fail(const std::string& token) override {
    return state_name(queue_->fail(token));
  }

 private:
  static Result<std::string, LeaseError> state_name(const Result<TurnState, LeaseError>& state) {
    if (!state) return unexpected{state.error()};
    return std::string(name(*state));
  }
  Handle queue_;
};

/// Ends child `child_id` the way `how` says on a store whose `settle(id, TurnState)` and
/// `remove(id)` return `Result<bool, QueueError>` (false: no such child). Throws
/// `std::invalid_argument` for a missing child and `std::runtime_error` for a store failure.
template <class Queue>
void settle_child(Queue& queue, std::uint64_t child_id, Settlement how) {
  const auto settled = [&] {
    switch (how) {
      case Settlement::Complete:
        return queue.settle(child_id, TurnState::Completed);
      case Settlement::Fail:
        return queue.settle(child_id, TurnState::Failed);
      case Settlement::DeadLetter:
        return queue.settle(child_id, TurnState::Dead);
      case Settlement::Delete:
        break;
    }
    return queue.remove(child_id);
  }();
  if (!value_or_throw(settled, "settling a child turn")) {
    throw std::invalid_argument("no child turn with id " + std::to_string(child_id));
  }
}

/// The hook the suite installs, shared by every connection a harness opens (including ones
/// opened before it was installed).
class HookSlot {
 public:
  /// Installs `hook` for every connection; an empty one removes it.
  void install(TransactionHook hook) {
    auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
    const std::scoped_lock guard(mutex_);
    hook_ = std::move(installed);
  }
  /// A hook for one connection that calls whatever is installed when it runs.
  [[nodiscard]] static TransactionHook trampoline(std::shared_ptr<HookSlot> slot) {
    return [slot = std::move(slot)](HookPoint point, const MentionTurnRequest& request) {
      std::shared_ptr<const TransactionHook> hook;
      {
        const std::scoped_lock guard(slot->mutex_);
        hook = slot->hook_;
      }
      return !hook || (*hook)(point, request);
    };
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const TransactionHook> hook_;
};

/// The inspector's record rows from a store's records (`key`, `child_id`).
template <class Records>
std::vector<RecordRow> record_rows(Records records) {
  std::vector<RecordRow> out;
  for (auto& record : records) out.push_back({std::move(record.key), record.child_id});
  return out;
}

/// The inspector's child rows from a store's children (`id`, `key`, `request`, `state`,
/// `attempts`, `lease_expires_at`).
template <class Children>
std::vector<ChildRow> child_rows(Children children) {
  std::vector<ChildRow> out;
  for (auto& child : children) {
    out.push_back({.id = child.id,
                   .key = std::move(child.key),
                   .request = std::move(child.request),
                   .state = std::string(name(child.state)),
                   .attempts = child.attempts,
                   .lease_expires_at = child.lease_expires_at});
  }
  return out;
}

}  // namespace thm::conformance
