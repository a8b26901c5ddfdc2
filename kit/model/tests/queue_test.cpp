// The model host queue on its own: the answers it allows, and the lease bookkeeping EQ-25
// compares a host against.
#include "thm/model/queue.hpp"

#include <gtest/gtest.h>

namespace thm::model {
namespace {

const DispatchConversation kEng{"eng", std::nullopt};

TurnRequest request_for(const StoredReply& reply, const std::string& target) {
  return {reply.sequence, reply.author_id,    target,
          reply.content,  reply.conversation, reply.hop + 1};
}

TurnQueue open_queue(const StoredReply& reply) {
  TurnQueue queue(2);
  queue.set_policy({true, 5});
  queue.set_available("bob", true);
  queue.commit_reply(reply);
  return queue;
}

TEST(ModelQueueTest, FirstExactRequestIsEnqueuedThenAlready) {
  const StoredReply reply{kEng, 1, "ann", "@bob go", 0};
  TurnQueue queue = open_queue(reply);
  const TurnRequest request = request_for(reply, "bob");
  EXPECT_EQ(queue.answers(request), Allowed{"enqueued"});
  queue.record(request, "enqueued");
  EXPECT_EQ(queue.answers(request), Allowed{"already"});
  EXPECT_EQ(queue.children().size(), 1U);
}

TEST(ModelQueueTest, EveryApplicableRefusalOrErrorIsAllowedAndNoneWrites) {
  const StoredReply reply{kEng, 1, "ann", "@cat go", 0};
  TurnQueue queue = open_queue(reply);
  queue.set_authorized("ann", "cat", false);  // and cat is not available
  TurnRequest request = request_for(reply, "cat");
  request.content = "@cat something else";
  // A failed trigger check may be reported as either trigger error.
  EXPECT_EQ(queue.answers(request),
            (Allowed{"error:trigger_missing", "error:trigger_mismatch",
                     "refused:target_unavailable", "refused:unauthorized"}));
  queue.record(request, "refused:unauthorized");
  EXPECT_TRUE(queue.children().empty());
}

TEST(ModelQueueTest, GeneralSpellingsShareOneKeyAndDeskIdsAreExact) {
  const StoredReply reply{{"main", std::nullopt}, 4, "ann", "@bob go", 0};
  TurnQueue queue = open_queue(reply);
  TurnRequest request = request_for(reply, "bob");
  request.conversation.desk_id = "General";
  EXPECT_EQ(queue.answers(request), Allowed{"enqueued"});
  EXPECT_EQ(turn_key({"Eng", std::nullopt}, 1) == turn_key(kEng, 1), false);
}

TEST(ModelQueueTest, LeasesCountAttemptsExpireAndRunOut) {
  const StoredReply reply{kEng, 1, "ann", "@bob go", 0};
  TurnQueue queue = open_queue(reply);
  const TurnRequest request = request_for(reply, "bob");
  queue.record(request, "enqueued");
  const TurnKey key = turn_key(kEng, 1);
  ASSERT_EQ(queue.claimable(0).must.size(), 1U);
  queue.claim(key, 0, 100);
  EXPECT_TRUE(queue.claimable(99).may.empty());
  EXPECT_EQ(queue.live(key, 1, 99), Tri::Yes);
  // At the expiry instant either reading is allowed; after it, a late answer may be taken
  // until someone claims the child again.
  EXPECT_TRUE(queue.claimable(100).must.empty());
  EXPECT_EQ(queue.claimable(100).may.size(), 1U);
  EXPECT_EQ(queue.live(key, 1, 100), Tri::Either);
  ASSERT_EQ(queue.claimable(101).must.size(), 1U);
  EXPECT_EQ(queue.live(key, 1, 101), Tri::Either);
  queue.claim(key, 101, 100);
  EXPECT_EQ(queue.live(key, 1, 150), Tri::No);  // the first claim's token is stale
  queue.fail(key);
  EXPECT_TRUE(queue.claimable(150).may.empty());  // two attempts spent
  EXPECT_TRUE(queue.children().at(key).failed);
}

}  // namespace
}  // namespace thm::model
