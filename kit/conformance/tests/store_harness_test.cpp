// StoreHarness's own rules, beyond what the reference stores' suites exercise.
#include "thm/conformance/store_harness.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"

namespace thm::conformance {
namespace {

// The memory store, declared without hooks: what a store with no hook points would say.
class UnhookedSetup {
 public:
  using Store = memory::MemoryQueue;
  [[nodiscard]] std::string queue_name() const { return "memory without hooks"; }
  [[nodiscard]] Capabilities capabilities() const {
    Capabilities declared = inner_.capabilities();
    declared.hooks = false;
    return declared;
  }
  [[nodiscard]] Result<std::shared_ptr<memory::MemoryQueue>, QueueError> open(
      const TransactionHook& hook) const {
    return inner_.open(hook);
  }
  void advance_store_clock(std::chrono::milliseconds by) { inner_.advance_store_clock(by); }

 private:
  memory::MemorySetup inner_;
};

// The memory store, with a host clock of its own that the harness can move.
class ClockedSetup : public memory::MemorySetup {
 public:
  void set_client_clock(Clocks::ClientClock clock) { clock_ = std::move(clock); }
  [[nodiscard]] const Clocks::ClientClock& client_clock() const { return clock_; }

 private:
  Clocks::ClientClock clock_;
};

TEST(StoreHarnessTest, AClientClockReachesASetupThatReadsOne) {
  StoreHarness<ClockedSetup> harness;
  const StoreTime skewed{std::chrono::hours(1)};
  harness.clocks()->set_client_clock([skewed] { return skewed; });
  ASSERT_TRUE(harness.setup().client_clock());
  EXPECT_EQ(harness.setup().client_clock()(), skewed);
  harness.clocks()->set_client_clock({});
  EXPECT_FALSE(harness.setup().client_clock());
}

TEST(StoreHarnessTest, AHookIsRefusedWhenTheSetupDeclaresNone) {
  StoreHarness<UnhookedSetup> harness;
  EXPECT_THROW(harness.set_hook([](HookPoint, const MentionTurnRequest&) { return true; }),
               Unsupported);
  EXPECT_NO_THROW(harness.set_hook({}));  // removing none is fine, and reset does it
  EXPECT_NO_THROW(harness.reset());
  // So the capability check agrees: a harness that swallowed the hook would fail EQ-24 (R8).
  const CheckRun report = run_check("EQ-24", harness, Options{.seed = 5, .short_mode = true});
  EXPECT_EQ(report.verdict, Verdict::Pass) << report.reason;
}

TEST(StoreHarnessTest, TheMemoryHarnessHooksTheQueueItself) {
  memory::MemoryHarness harness;
  int calls = 0;
  harness.set_hook([&calls](HookPoint, const MentionTurnRequest&) {
    ++calls;
    return true;
  });
  harness.commit_reply({.conversation = {.desk_id = "eng"},
                        .sequence = 1,
                        .author_id = "alice",
                        .content = "@bob go",
                        .hop = 0});
  harness.set_policy({.enabled = true, .max_hops = 3});
  harness.set_available("bob", true);
  const auto session = harness.open_session();
  const auto answer = session->enqueue_once({.key = {1},
                                             .source_id = "alice",
                                             .target_id = "bob",
                                             .content = "@bob go",
                                             .conversation = {.desk_id = "eng"},
                                             .child_hop = 1});
  EXPECT_EQ(answer, (Result<EnqueueOutcome, QueueError>(Enqueued{})));
  EXPECT_EQ(calls, 6);  // every HookPoint once: the hook reached the queue itself
}

}  // namespace
}  // namespace thm::conformance
