#include "thm/memory/harness.hpp"

#include <stdexcept>

namespace thm::memory {
namespace {

Result<std::string, LeaseError> state_name(const Result<TurnState, LeaseError>& state) {
  if (!state) return unexpected{state.error()};
  return std::string(name(*state));
}

// A session is a handle on the shared queue: the queue itself is the concurrency boundary.
class MemorySession final : public conformance::Session {
 public:
  explicit MemorySession(std::shared_ptr<MemoryQueue> queue) : queue_(std::move(queue)) {}
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
  std::shared_ptr<MemoryQueue> queue_;
};

}  // namespace

MemoryHarness::MemoryHarness(Limits limits)
    : limits_(limits),
      store_millis_(std::make_shared<std::atomic<std::int64_t>>(1'893'456'000'000)),
      queue_(make_queue()) {}

std::shared_ptr<MemoryQueue> MemoryHarness::make_queue() const {
  return std::make_shared<MemoryQueue>(limits_, [millis = store_millis_] {
    return StoreTime(std::chrono::milliseconds(millis->load()));
  });
}

conformance::Capabilities MemoryHarness::capabilities() const {
  return {.hooks = true,
          .row_locking = true,
          .persistent = false,
          .sql_schema = false,
          .max_content_bytes = limits_.max_content_bytes,
          .max_id_bytes = limits_.max_id_bytes,
          .leases = true,
          .injected_store_clock = true,
          .max_attempts = limits_.max_attempts};
}

void MemoryHarness::reset() { queue_ = make_queue(); }

std::unique_ptr<conformance::Session> MemoryHarness::open_session() {
  return std::make_unique<MemorySession>(queue_);
}

void MemoryHarness::settle(std::uint64_t child_id, conformance::Settlement how) {
  const bool found = [&] {
    switch (how) {
      case conformance::Settlement::Complete:
        return queue_->settle(child_id, TurnState::Completed);
      case conformance::Settlement::Fail:
        return queue_->settle(child_id, TurnState::Failed);
      case conformance::Settlement::DeadLetter:
        return queue_->settle(child_id, TurnState::Dead);
      case conformance::Settlement::Delete:
        return queue_->remove(child_id);
    }
    return false;
  }();
  if (!found) throw std::invalid_argument("no child turn with id " + std::to_string(child_id));
}

std::vector<conformance::RecordRow> MemoryHarness::records() {
  std::vector<conformance::RecordRow> out;
  for (auto& record : queue_->records()) out.push_back({std::move(record.key), record.child_id});
  return out;
}

std::vector<conformance::ChildRow> MemoryHarness::children() {
  std::vector<conformance::ChildRow> out;
  for (auto& child : queue_->children()) {
    out.push_back({.id = child.id,
                   .key = std::move(child.key),
                   .request = std::move(child.request),
                   .state = std::string(thm::name(child.state)),
                   .attempts = child.attempts,
                   .lease_expires_at = child.lease_expires_at});
  }
  return out;
}

}  // namespace thm::memory
