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
  /// The store every session shares.
  using Store = MemoryQueue;
  /// A queue with `limits`, on the fake store clock.
  explicit MemorySetup(Limits limits = {});

  /// `memory`.
  [[nodiscard]] std::string queue_name() const { return "memory"; }
  /// As the class says.
  [[nodiscard]] conformance::Capabilities capabilities() const;
  /// The one queue; never fails. Hooks reach it through `set_hook`, so `hook` is empty.
  [[nodiscard]] Result<std::shared_ptr<MemoryQueue>, QueueError> open(
      const TransactionHook& hook) const;
  /// Installs `hook` on the queue itself (an empty one removes it), so a step without a
  /// hook takes no hook lock at all, as a host's would.
  void set_hook(TransactionHook hook) { queue_->set_hook(std::move(hook)); }
  /// Moves the fake store clock forward.
  void advance_store_clock(std::chrono::milliseconds by) { *store_millis_ += by.count(); }

 private:
  Limits limits_;
  std::shared_ptr<std::atomic<std::int64_t>> store_millis_;
  std::shared_ptr<MemoryQueue> queue_;
};

/// The harness: `MemoryHarness harness(limits)`.
using MemoryHarness = conformance::StoreHarness<MemorySetup>;

}  // namespace thm::memory
