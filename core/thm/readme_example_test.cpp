// The example in README.md, compiled and checked so that it stays true.
#include <gtest/gtest.h>

#include <iostream>

#include "thm/core.hpp"

namespace {

// A host's queue port: here it only counts; a real one writes to its store (SPEC §4).
class CountingQueue final : public thm::MentionTurnQueue {
 public:
  thm::Result<thm::EnqueueOutcome, thm::QueueError> enqueue_once(
      const thm::MentionTurnRequest&) noexcept override {
    ++calls;
    return thm::EnqueueOutcome{thm::Enqueued{}};
  }
  int calls = 0;
};

TEST(ReadmeExampleTest, DispatchesOneChildTurn) {
  // --- README example begins ---
  const thm::RosterSnapshot team{.members = {{.id = "alice"}, {.id = "bob"}}};
  const thm::MentionDispatchInput reply{
      .key = {.trigger_sequence = 41},
      .conversation = {.desk_id = "eng", .thread_root = 7},
      .author_id = "alice",
      .content = "@bob can you review this?",
      .mentions = {{.target = thm::AgentTarget{"bob"}, .text = "@bob", .offset = 0}},
      .hop = 0,
  };
  const thm::MentionDispatchPolicy policy{.enabled = true, .max_hops = 2};

  CountingQueue queue;
  auto outcome = thm::dispatch_mention(queue, policy, reply, thm::Roster(team));
  if (!outcome) {
    std::cerr << thm::to_string(outcome.error()) << "\n";  // malformed roster or host failure
  } else if (auto* declined = std::get_if<thm::NotDispatched>(&*outcome)) {
    std::cout << thm::to_string(declined->reason) << "\n";  // safe to show to the agent
  }
  // --- README example ends ---
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, thm::MentionDispatchOutcome{thm::Enqueued{}});
  EXPECT_EQ(queue.calls, 1);
}

}  // namespace
