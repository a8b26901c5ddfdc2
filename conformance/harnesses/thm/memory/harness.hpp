#pragma once
/// \file
/// `thm::memory::MemoryHarness`: the conformance harness over a `MemoryQueue`, the reference
/// every other harness can be read against.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "thm/conformance/store_harness.hpp"
#include "thm/memory/memory_queue.hpp"

namespace thm::memory {

/// One `MemoryQueue` that every session shares. Capabilities: hooks and row locking (an
/// enqueue holds the replies and policy it read until it commits); leases on an injected
/// store clock, a fake the harness owns that starts at 2030-01-01T00:00:00Z; not
/// persistent; the store's `Limits` (sizes, `max_attempts`) are declared.
class MemorySetup {
 public:
  using Store = MemoryQueue;
  explicit MemorySetup(Limits limits = {});

  [[nodiscard]] std::string name() const { return "memory"; }
  [[nodiscard]] conformance::Capabilities capabilities() const;
  /// The one queue, calling `hook` from now on; never fails.
  [[nodiscard]] Result<std::shared_ptr<MemoryQueue>, QueueError> open(TransactionHook hook);
  /// Moves the fake store clock forward.
  void advance_store_clock(std::chrono::milliseconds by) { *store_millis_ += by.count(); }

  /// The queue under test.
  [[nodiscard]] MemoryQueue& queue() noexcept { return *queue_; }

 private:
  Limits limits_;
  std::shared_ptr<std::atomic<std::int64_t>> store_millis_;
  std::shared_ptr<MemoryQueue> queue_;
};

/// The harness: `MemoryHarness harness(limits)`.
using MemoryHarness = conformance::StoreHarness<MemorySetup>;

}  // namespace thm::memory
