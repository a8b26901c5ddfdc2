#include "thm/memory/memory_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
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
    EXPECT_TRUE(queue.commit_reply(reply));
    EXPECT_TRUE(queue.set_policy({.enabled = true, .max_hops = 3}));
    EXPECT_TRUE(queue.set_available("bob", true));
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

TEST(MemoryQueueTest, EnqueuesOnceThenAnswersAlready) {
  Store s;
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Enqueued{}});
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Already{}});
  ASSERT_EQ(s.queue.children().value().size(), 1U);
  ASSERT_EQ(s.queue.records().value().size(), 1U);
  EXPECT_EQ(s.queue.children().value()[0].request, s.request());
  EXPECT_EQ(s.queue.records().value()[0].child_id, s.queue.children().value()[0].id);
  EXPECT_EQ(s.queue.child_for(turn_key(s.request()))->id, s.queue.children().value()[0].id);
}

TEST(MemoryQueueTest, MismatchIsAnErrorEvenWhenTheKeyHasARecord) {
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
  EXPECT_EQ(s.queue.children().value().size(), 1U);
  EXPECT_EQ(s.queue.records().value().size(), 1U);
}

TEST(MemoryQueueTest, RefusalsWriteNothingAndAreDecidedAgain) {
  Store s;
  EXPECT_TRUE(s.queue.set_policy({.enabled = false, .max_hops = 3}));
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::FeatureDisabled}});
  EXPECT_TRUE(s.queue.set_policy({.enabled = true, .max_hops = 0}));
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::FeatureDisabled}});
  EXPECT_TRUE(s.queue.set_policy({.enabled = true, .max_hops = 1}));
  EXPECT_TRUE(s.queue.set_authorized("alice", "bob", false));
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::Unauthorized}});
  EXPECT_TRUE(s.queue.set_authorized("alice", "bob", true));
  EXPECT_TRUE(s.queue.set_available("bob", false));
  EXPECT_EQ(s.queue.enqueue_once(s.request()),
            EnqueueOutcome{Refused{EnqueueRefusal::TargetUnavailable}});
  EXPECT_TRUE(s.queue.records().value().empty());
  EXPECT_TRUE(s.queue.children().value().empty());
  EXPECT_TRUE(s.queue.set_available("bob", true));
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Enqueued{}});
}

TEST(MemoryQueueTest, GeneralAliasesShareOneKey) {
  Store s;
  s.reply.conversation.desk_id = "main";
  EXPECT_TRUE(s.queue.commit_reply(s.reply));
  auto request = s.request();
  EXPECT_EQ(s.queue.enqueue_once(request), EnqueueOutcome{Enqueued{}});
  for (const char* alias : {"General", "", "GENERAL", "Main"}) {
    request.conversation.desk_id = alias;
    EXPECT_EQ(s.queue.enqueue_once(request), EnqueueOutcome{Already{}}) << alias;
  }
}

TEST(MemoryQueueTest, RecordOutlivesItsChild) {
  Store s;
  ASSERT_TRUE(s.queue.enqueue_once(s.request()));
  const std::uint64_t id = s.queue.children().value()[0].id;
  EXPECT_TRUE(s.queue.settle(id, TurnState::Completed).value());
  EXPECT_EQ(s.queue.prune().value(), 1U);
  EXPECT_FALSE(s.queue.remove(id).value());
  EXPECT_TRUE(s.queue.children().value().empty());
  EXPECT_EQ(s.queue.records().value().size(), 1U);
  EXPECT_EQ(s.queue.child_for(turn_key(s.request())), std::nullopt);
  EXPECT_EQ(s.queue.enqueue_once(s.request()), EnqueueOutcome{Already{}});
}

TEST(MemoryQueueTest, RequestsOverTheLimitsAreInvalidAndWriteNothing) {
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
  EXPECT_TRUE(queue.records().value().empty());
}

TEST(MemoryQueueTest, AFailingHookRollsBackAndAfterCommitIsIndeterminate) {
  for (const HookPoint point : kAllHookPoints) {
    Store s;
    s.queue.set_hook([point](HookPoint at, const MentionTurnRequest&) { return at != point; });
    const auto answer = s.queue.enqueue_once(s.request());
    const bool committed = point == HookPoint::AfterCommitBeforeReturn;
    EXPECT_EQ(kind_of(answer),
              committed ? QueueErrorKind::Indeterminate : QueueErrorKind::Unavailable)
        << name(point);
    EXPECT_EQ(s.queue.children().value().size(), committed ? 1U : 0U) << name(point);
    EXPECT_EQ(s.queue.records().value().size(), committed ? 1U : 0U) << name(point);
    s.queue.set_hook({});
    EXPECT_EQ(s.queue.enqueue_once(s.request()),
              committed ? EnqueueOutcome{Already{}} : EnqueueOutcome{Enqueued{}});
  }
}

// A caller paused inside its step under one key does not hold up another key.
TEST(MemoryQueueTest, APausedKeyDoesNotBlockOtherKeys) {
  Store s;
  CommittedReply other = s.reply;
  other.sequence = 18;
  EXPECT_TRUE(s.queue.commit_reply(other));
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

// ---- leases -----------------------------------------------------------------------------------

using namespace std::chrono_literals;

// A store clock the test moves by hand; starts at 2030-01-01T00:00:00Z.
struct ManualClock {
  std::shared_ptr<std::atomic<std::int64_t>> millis =
      std::make_shared<std::atomic<std::int64_t>>(1'893'456'000'000);
  StoreClock clock() const {
    return [m = millis] { return StoreTime(std::chrono::milliseconds(m->load())); };
  }
  void advance(std::chrono::milliseconds by) const { *millis += by.count(); }
  StoreTime now() const { return StoreTime(std::chrono::milliseconds(millis->load())); }
};

struct LeasedStore {
  ManualClock time;
  MemoryQueue queue{Limits{.max_attempts = 2}, time.clock()};
  explicit LeasedStore(int children = 1) {
    EXPECT_TRUE(queue.set_policy({.enabled = true, .max_hops = 3}));
    EXPECT_TRUE(queue.set_available("bob", true));
    for (int i = 1; i <= children; ++i) {
      const CommittedReply reply{.conversation = {.desk_id = "eng"},
                                 .sequence = static_cast<Sequence>(i),
                                 .author_id = "alice",
                                 .content = "@bob " + std::to_string(i),
                                 .hop = 0};
      EXPECT_TRUE(queue.commit_reply(reply));
      EXPECT_EQ(queue.enqueue_once({.key = {reply.sequence},
                                    .source_id = "alice",
                                    .target_id = "bob",
                                    .content = reply.content,
                                    .conversation = reply.conversation,
                                    .child_hop = 1}),
                EnqueueOutcome{Enqueued{}});
    }
  }
  Lease claim(std::chrono::milliseconds d = 30s) {
    auto lease = queue.claim(d);
    EXPECT_TRUE(lease.has_value() && lease->has_value());
    return lease && *lease ? **lease : Lease{};
  }
};

TEST(MemoryLeasesTest, ClaimCountsTheAttemptAndTakesExpiryFromTheStoreClock) {
  LeasedStore s;
  const Lease lease = s.claim(30s);
  EXPECT_EQ(lease.attempt, 1U);
  EXPECT_EQ(lease.expires_at, s.time.now() + 30s);
  EXPECT_EQ(lease.request.content, "@bob 1");
  EXPECT_EQ(s.queue.children().value()[0].attempts, 1U);  // visible on the row
  EXPECT_EQ(s.queue.children().value()[0].lease_expires_at, lease.expires_at);
  EXPECT_EQ(s.queue.claim(30s)->has_value(), false);  // held: nothing else to claim
}

TEST(MemoryLeasesTest, AnExpiredLeaseIsReclaimedAndItsTokenGoesStale) {
  LeasedStore s;
  const Lease first = s.claim(30s);
  s.time.advance(29'999ms);
  EXPECT_FALSE(s.queue.claim(30s)->has_value());
  s.time.advance(1ms);
  const Lease second = s.claim(10s);
  EXPECT_EQ(second.child_id, first.child_id);
  EXPECT_EQ(second.attempt, 2U);
  EXPECT_NE(second.token, first.token);
  EXPECT_EQ(s.queue.renew(first.token, 30s).error(), LeaseError::StaleToken);
  EXPECT_EQ(s.queue.complete(first.token).error(), LeaseError::StaleToken);
  EXPECT_EQ(s.queue.fail(first.token).error(), LeaseError::StaleToken);
  EXPECT_EQ(s.queue.complete(second.token), TurnState::Completed);
  EXPECT_EQ(s.queue.complete(second.token).error(), LeaseError::StaleToken);
}

TEST(MemoryLeasesTest, RenewReturnsTheExpiryAsStored) {
  LeasedStore s;
  const Lease lease = s.claim(30s);
  s.time.advance(20s);
  const auto renewed = s.queue.renew(lease.token, 30s);
  ASSERT_TRUE(renewed);
  EXPECT_EQ(*renewed, s.time.now() + 30s);
  EXPECT_EQ(s.queue.children().value()[0].lease_expires_at, *renewed);
  EXPECT_EQ(s.queue.renew(lease.token, 0ms).error(), LeaseError::InvalidDuration);
  EXPECT_EQ(s.queue.claim(-1ms).error(), LeaseError::InvalidDuration);
}

TEST(MemoryLeasesTest, SpentAttemptsMakeAChildDeadOrFailed) {
  LeasedStore s(2);
  // Child 1: abandoned twice (max_attempts = 2), then dead and skipped.
  s.claim(1s);
  s.time.advance(1s);
  const Lease again = s.claim(1s);
  EXPECT_EQ(again.attempt, 2U);
  EXPECT_EQ(again.child_id, 1U);
  s.time.advance(1s);
  const Lease other = s.claim(1s);
  EXPECT_EQ(other.child_id, 2U);
  EXPECT_EQ(s.queue.children().value()[0].state, TurnState::Dead);
  // Child 2: failed once (claimable again at once), then failed with no attempts left.
  EXPECT_EQ(s.queue.fail(other.token), TurnState::Pending);
  const Lease last = s.claim(1s);
  EXPECT_EQ(last.attempt, 2U);
  EXPECT_EQ(s.queue.fail(last.token), TurnState::Failed);
  EXPECT_FALSE(s.queue.claim(1s)->has_value());
  // Records survive every ending.
  EXPECT_EQ(s.queue.records().value().size(), 2U);
}

TEST(MemoryLeasesTest, ClaimsFollowSettlementsAndRemovalsInIdOrder) {
  LeasedStore s(4);
  ASSERT_TRUE(s.queue.settle(1, TurnState::Completed).value());  // settled: never claimed
  ASSERT_TRUE(s.queue.remove(2).value());                        // removed: never claimed
  const Lease third = s.claim();
  EXPECT_EQ(third.child_id, 3U);
  ASSERT_TRUE(s.queue.settle(1, TurnState::Pending).value());  // a host may put a child back
  EXPECT_EQ(s.claim().child_id, 1U);
  EXPECT_EQ(s.claim().child_id, 4U);
  EXPECT_FALSE(s.queue.claim(1s)->has_value());
  EXPECT_EQ(s.queue.complete(third.token), TurnState::Completed);
  EXPECT_EQ(s.queue.prune().value(), 1U);  // child 3; 1 and 4 are leased, still pending
  EXPECT_EQ(s.queue.children().value().size(), 2U);
}

TEST(MemoryLeasesTest, AnEmptyClockMeansTheSystemClock) {
  MemoryQueue queue(Limits{}, StoreClock{});
  const auto before = system_store_clock();
  EXPECT_GE(queue.now().value(), before);
  EXPECT_LE(queue.now().value() - before, std::chrono::minutes(1));
}

TEST(MemoryLeasesTest, ConcurrentClaimersOfOneChildGetExactlyOneLease) {
  for (int round = 0; round < 20; ++round) {
    LeasedStore s;
    std::atomic<int> ready{0};
    std::vector<std::optional<Lease>> got(8);
    {
      std::vector<std::jthread> claimers;
      for (std::size_t i = 0; i < got.size(); ++i) {
        claimers.emplace_back([&, i] {
          ++ready;
          while (ready.load() < 8) std::this_thread::yield();
          got[i] = *s.queue.claim(30s);
        });
      }
    }
    EXPECT_EQ(std::count_if(got.begin(), got.end(), [](const auto& g) { return g.has_value(); }),
              1);
    EXPECT_EQ(s.queue.children().value()[0].attempts, 1U);
  }
}

}  // namespace
}  // namespace thm::memory
