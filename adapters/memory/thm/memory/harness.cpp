#include "thm/memory/harness.hpp"

#include <stdexcept>

namespace thm::memory {
namespace {

// A session is a handle on the shared queue: the queue itself is the concurrency boundary.
class MemorySession final : public conformance::Session {
 public:
  explicit MemorySession(std::shared_ptr<MemoryQueue> queue) : queue_(std::move(queue)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    return queue_->enqueue_once(request);
  }

 private:
  std::shared_ptr<MemoryQueue> queue_;
};

}  // namespace

MemoryHarness::MemoryHarness(Limits limits)
    : limits_(limits), queue_(std::make_shared<MemoryQueue>(limits)) {}

conformance::Capabilities MemoryHarness::capabilities() const {
  return {.hooks = true,
          .row_locking = true,
          .persistent = false,
          .sql_schema = false,
          .max_content_bytes = limits_.max_content_bytes,
          .max_id_bytes = limits_.max_id_bytes};
}

void MemoryHarness::reset() { queue_ = std::make_shared<MemoryQueue>(limits_); }

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
    out.push_back({child.id, std::move(child.key), std::move(child.request),
                   std::string(memory::name(child.state))});
  }
  return out;
}

}  // namespace thm::memory
