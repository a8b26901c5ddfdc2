#include "thm/memory/memory_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

namespace thm::memory {
namespace {

// A store with one committed reply by alice (hop 0) in #eng mentioning bob, dispatch on.
struct Store {
  MemoryQueue queue;
  CommittedReply reply{.conversation = {.desk_id = "eng"},
                       .sequence = 17,
                       .author_id = "alice",
                       .content = "@bob please look",
                       .hop = 0};
  Store() {
    queue.commit_reply(reply);
    queue.set_policy({.enabled = true, .max_hops = 3});
    queue.set_available("bob", true);
  }
  [[nodiscard]] MentionTurnRequest request() const {
    return {.key = {reply.sequence},
            .source_id = reply.author_id,
            .target_id = "bob",
            .content = reply.content,
            .conversation = reply.conversation,
            .child_hop = reply.hop + 1};
  }
};

QueueErrorKind kind_of(const Result<EnqueueOutcome, QueueError>& answer) {
  EXPECT_FALSE(answer.has_value());
  return answer ? QueueErrorKind::Internal : answer.error().kind;
}

TEST(MemoryQueue, EnqueuesOnceThenAnswersAlready) {
  Store s;
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Enqueued{}});
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Already{}});
  ASSERT_EQ(s.queue.children().size(), 1U);
  ASSERT_EQ(s.queue.records().size(), 1U);
  EXPECT_EQ(s.queue.children()[0].request, s.request());
  EXPECT_EQ(s.queue.records()[0].child_id, s.queue.children()[0].id);
  EXPECT_EQ(s.queue.child_for(turn_key(s.request()))->id, s.queue.children()[0].id);
}

TEST(MemoryQueue, MismatchIsAnErrorEvenWhenTheKeyHasARecord) {
  Store s;
  ASSERT_TRUE(s.queue.enqueue_once(s.request()));
  auto edited = s.request();
  edited.content += "!";
  EXPECT_EQ(kind_of(s.queue.enqueue_once(edited)), QueueErrorKind::TriggerMismatch);
  auto impostor = s.request();
  impostor.source_id = "mallory";
  EXPECT_EQ(kind_of(s.queue.enqueue_once(impostor)), QueueErrorKind::TriggerMismatch);
  auto forged_hop = s.request();
  forged_hop.child_hop = 1000;
  EXPECT_EQ(kind_of(s.queue.enqueue_once(forged_hop)), QueueErrorKind::TriggerMismatch);
  auto elsewhere = s.request();
  elsewhere.conversation.thread_root = 5;
  EXPECT_EQ(kind_of(s.queue.enqueue_once(elsewhere)), QueueErrorKind::TriggerMissing);
  EXPECT_EQ(s.queue.children().size(), 1U);
  EXPECT_EQ(s.queue.records().size(), 1U);
}

TEST(MemoryQueue, RefusalsWriteNothingAndAreDecidedAgain) {
  Store s;
  s.queue.set_policy({.enabled = false, .max_hops = 3});
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::FeatureDisabled}});
  s.queue.set_policy({.enabled = true, .max_hops = 0});
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::FeatureDisabled}});
  s.queue.set_policy({.enabled = true, .max_hops = 1});
  s.queue.set_authorized("alice", "bob", false);
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::Unauthorized}});
  s.queue.set_authorized("alice", "bob", true);
  s.queue.set_available("bob", false);
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::TargetUnavailable}});
  EXPECT_TRUE(s.queue.records().empty());
  EXPECT_TRUE(s.queue.children().empty());
  s.queue.set_available("bob", true);
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Enqueued{}});
}

TEST(MemoryQueue, GeneralAliasesShareOneKey) {
  Store s;
  s.reply.conversation.desk_id = "main";
  s.queue.commit_reply(s.reply);
  auto request = s.request();
  EXPECT_EQ(s.queue.enqueue_once(request), EnqueueOutcome{Enqueued{}});
  for (const char* alias : {"General", "", "GENERAL", "Main"}) {
    request.conversation.desk_id = alias;
    EXPECT_EQ(s.queue.enqueue_once(request), EnqueueOutcome{Already{}}) << alias;
  }
}

TEST(MemoryQueue, RecordOutlivesItsChild) {
  Store s;
  ASSERT_TRUE(s.queue.enqueue_once(s.request()));
  const std::uint64_t id = s.queue.children()[0].id;
  EXPECT_TRUE(s.queue.settle(id, TurnState::Completed));
  EXPECT_EQ(s.queue.prune(), 1U);
  EXPECT_FALSE(s.queue.remove(id));
  EXPECT_TRUE(s.queue.children().empty());
  EXPECT_EQ(s.queue.records().size(), 1U);
  EXPECT_EQ(s.queue.child_for(turn_key(s.request())), std::nullopt);
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Already{}});
}

TEST(MemoryQueue, RequestsOverTheLimitsAreInvalidAndWriteNothing) {
  MemoryQueue queue(Limits{.max_content_bytes = 8, .max_id_bytes = 4});
  MentionTurnRequest request{.source_id = "al",
                             .target_id = "bob",
                             .content = "123456789",
                             .conversation = {.desk_id = "eng"},
                             .child_hop = 1};
  EXPECT_EQ(kind_of(queue.enqueue_once(request)), QueueErrorKind::InvalidRequest);
  request.content = "12345678";
  request.target_id = "bobby";
  EXPECT_EQ(kind_of(queue.enqueue_once(request)), QueueErrorKind::InvalidRequest);
  request.target_id = "bob";
  EXPECT_EQ(kind_of(queue.enqueue_once(request)), QueueErrorKind::TriggerMissing);
  EXPECT_TRUE(queue.records().empty());
}

TEST(MemoryQueue, AFailingHookRollsBackAndAfterCommitIsIndeterminate) {
  for (const HookPoint point : kAllHookPoints) {
    Store s;
    s.queue.set_hook([point](HookPoint at, const MentionTurnRequest&) { return at != point; });
    const auto answer = s.queue.enqueue_once(s.request());
    const bool committed = point == HookPoint::AfterCommitBeforeReturn;
    EXPECT_EQ(kind_of(answer),
              committed ? QueueErrorKind::Indeterminate : QueueErrorKind::Unavailable)
        << name(point);
    EXPECT_EQ(s.queue.children().size(), committed ? 1U : 0U) << name(point);
    EXPECT_EQ(s.queue.records().size(), committed ? 1U : 0U) << name(point);
    s.queue.set_hook({});
    EXPECT_EQ(s.queue.enqueue_once(s.request()),
              committed ? EnqueueOutcome{Already{}} : EnqueueOutcome{Enqueued{}});
  }
}

// A caller paused inside its step under one key does not hold up another key.
TEST(MemoryQueue, APausedKeyDoesNotBlockOtherKeys) {
  Store s;
  CommittedReply other = s.reply;
  other.sequence = 18;
  s.queue.commit_reply(other);
  std::promise<void> paused;
  std::promise<void> release;
  auto released = release.get_future().share();
  s.queue.set_hook([&](HookPoint at, const MentionTurnRequest& r) {
    if (at == HookPoint::AfterIdempotencyStatement && r.key.trigger_sequence == 17) {
      paused.set_value();
      released.wait();
    }
    return true;
  });
  auto first = std::async(std::launch::async, [&] { return s.queue.enqueue_once(s.request()); });
  paused.get_future().wait();
  auto second_request = s.request();
  second_request.key.trigger_sequence = 18;
  EXPECT_EQ(s.queue.enqueue_once(second_request), EnqueueOutcome{Enqueued{}});
  release.set_value();
  EXPECT_EQ(first.get(), EnqueueOutcome{Enqueued{}});
}

}  // namespace
}  // namespace thm::memory
