#pragma once
/// \file
/// `thm::memory::MemoryHarness`: the conformance harness over a `MemoryQueue`, the reference
/// every other harness can be read against.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/memory/memory_queue.hpp"

namespace thm::memory {

/// Drives one `MemoryQueue` (rebuilt by `reset`). Capabilities: hooks and row locking (an
/// enqueue holds the replies and policy it read until it commits); leases on an injected
/// store clock; not persistent; the store's `Limits` (sizes, `max_attempts`) are declared.
class MemoryHarness final : public conformance::Harness {
 public:
  explicit MemoryHarness(Limits limits = {});

  [[nodiscard]] std::string name() const override { return "memory"; }
  [[nodiscard]] conformance::Capabilities capabilities() const override;
  void reset() override;
  [[nodiscard]] std::unique_ptr<conformance::Session> open_session() override;
  void commit_reply(const CommittedReply& reply) override { queue_->commit_reply(reply); }
  void set_policy(MentionDispatchPolicy policy) override { queue_->set_policy(policy); }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    queue_->set_authorized(source_id, target_id, authorized);
  }
  void set_available(const std::string& agent_id, bool available) override {
    queue_->set_available(agent_id, available);
  }
  void set_hook(TransactionHook hook) override { queue_->set_hook(std::move(hook)); }
  void settle(std::uint64_t child_id, conformance::Settlement how) override;
  void run_maintenance() override { queue_->prune(); }
  [[nodiscard]] StoreTime store_now() override { return queue_->now(); }
  /// The store's clock is a fake the harness owns, starting at 2030-01-01T00:00:00Z.
  void advance_store_clock(std::chrono::milliseconds by) override { *store_millis_ += by.count(); }
  [[nodiscard]] std::vector<conformance::RecordRow> records() override;
  [[nodiscard]] std::vector<conformance::ChildRow> children() override;

  /// The queue under test (replaced by every `reset`).
  [[nodiscard]] MemoryQueue& queue() noexcept { return *queue_; }

 private:
  [[nodiscard]] std::shared_ptr<MemoryQueue> make_queue() const;

  Limits limits_;
  std::shared_ptr<std::atomic<std::int64_t>> store_millis_;
  std::shared_ptr<MemoryQueue> queue_;
};

}  // namespace thm::memory
