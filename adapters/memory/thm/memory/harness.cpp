#include "thm/memory/harness.hpp"

#include <stdexcept>

#include "thm/conformance/store_harness.hpp"

namespace thm::memory {

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
          .skewable_client_clock = true,  // its only clock is the store's, which the suite owns
          .max_attempts = limits_.max_attempts};
}

void MemoryHarness::reset() { queue_ = make_queue(); }

std::unique_ptr<conformance::Session> MemoryHarness::open_session() {
  return std::make_unique<conformance::QueueSession<std::shared_ptr<MemoryQueue>>>(queue_);
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
  return conformance::record_rows(queue_->records());
}

std::vector<conformance::ChildRow> MemoryHarness::children() {
  return conformance::child_rows(queue_->children());
}

}  // namespace thm::memory
