#include "thm/queue/queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace thm {
namespace {

// A port that records every request and answers what the test scripted.
class RecordingQueue final : public MentionTurnQueue {
 public:
  explicit RecordingQueue(Result<EnqueueOutcome, QueueError> answer) : answer_(std::move(answer)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override {
    calls.push_back(request);
    return answer_;
  }
  std::vector<MentionTurnRequest> calls;

 private:
  Result<EnqueueOutcome, QueueError> answer_;
};

struct Fixture {
  std::vector<RosterMember> members{{.id = "alice"}, {.id = "bob"}};
  std::vector<Person> people{};
  std::vector<std::string> retired{};
  [[nodiscard]] Roster roster() const { return Roster(members, people, retired); }
  MentionDispatchInput input{
      .key = {.trigger_sequence = 9},
      .conversation = {.desk_id = "eng", .thread_root = 4},
      .author_id = "alice",
      .content = "please take this @bob",
      .mentions = {{.target = AgentTarget{"bob"}, .text = "@bob", .offset = 17}},
      .hop = 0,
  };
  MentionDispatchPolicy policy{.enabled = true, .max_hops = 2};
};

TEST(DispatchMentionTest, NoDecisionMakesZeroQueueCalls) {
  Fixture f;
  f.policy.enabled = false;
  RecordingQueue queue(EnqueueOutcome{Enqueued{}});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, MentionDispatchOutcome{NotDispatched{NoDispatchReason::Disabled}});
  EXPECT_TRUE(queue.calls.empty());
}

TEST(DispatchMentionTest, EveryNoDispatchReasonMakesZeroQueueCalls) {
  Fixture f;
  f.input.mentions.clear();
  RecordingQueue queue(EnqueueOutcome{Enqueued{}});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome,
            MentionDispatchOutcome{NotDispatched{NoDispatchReason::NoDirectAgentMention}});
  EXPECT_TRUE(queue.calls.empty());
}

TEST(DispatchMentionTest, AdmittedRequestReachesTheQueueOnceAndUnchanged) {
  Fixture f;
  RecordingQueue queue(EnqueueOutcome{Enqueued{}});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, MentionDispatchOutcome{Enqueued{}});
  ASSERT_EQ(queue.calls.size(), 1U);
  const auto decision = mention_dispatch(f.policy, f.input, f.roster());
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(queue.calls.front(), std::get<DispatchOne>(*decision).request);
}

TEST(DispatchMentionTest, QueueAnswersMapOneToOne) {
  const std::vector<std::pair<EnqueueOutcome, MentionDispatchOutcome>> table{
      {Enqueued{}, Enqueued{}},
      {Already{}, Already{}},
      {Refused{EnqueueRefusal::Unauthorized}, Refused{EnqueueRefusal::Unauthorized}},
      {Refused{EnqueueRefusal::TargetUnavailable}, Refused{EnqueueRefusal::TargetUnavailable}},
      {Refused{EnqueueRefusal::FeatureDisabled}, Refused{EnqueueRefusal::FeatureDisabled}},
  };
  for (const auto& [answer, expected] : table) {
    Fixture f;
    RecordingQueue queue(answer);
    const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
    ASSERT_TRUE(outcome.has_value());
    EXPECT_EQ(*outcome, expected);
    EXPECT_EQ(queue.calls.size(), 1U);
  }
}

TEST(DispatchMentionTest, HostFailureIsTypedPreservedAndNeverRetried) {
  Fixture f;
  const QueueError failure{.kind = QueueErrorKind::Unavailable, .message = "store unavailable"};
  RecordingQueue queue(unexpected{failure});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error(), DispatchMentionError{EnqueueFailure{failure}});
  EXPECT_EQ(name(outcome.error()), "Enqueue");
  EXPECT_NE(to_string(outcome.error()).find("store unavailable"), std::string::npos);
  EXPECT_EQ(queue.calls.size(), 1U);
}

TEST(DispatchMentionTest, CoreErrorIsKeptApartFromHostErrorsAndCallsNoQueue) {
  Fixture f;
  f.members.push_back({.id = "bob"});
  RecordingQueue queue(EnqueueOutcome{Enqueued{}});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error(),
            DispatchMentionError{CoreFailure{DuplicateRosterMemberId{.member_id = "bob"}}});
  EXPECT_EQ(name(outcome.error()), "Core");
  EXPECT_TRUE(queue.calls.empty());
}

TEST(DispatchMentionTest, FailClosedDecisionNeverFallsBackToALaterMention) {
  Fixture f;
  f.input.mentions = {{.target = AgentTarget{"alice"}, .text = "@alice", .offset = 0},
                      {.target = AgentTarget{"bob"}, .text = "@bob", .offset = 17}};
  RecordingQueue queue(EnqueueOutcome{Enqueued{}});
  const auto outcome = dispatch_mention(queue, f.policy, f.input, f.roster());
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(*outcome, MentionDispatchOutcome{NotDispatched{NoDispatchReason::SelfMention}});
  EXPECT_TRUE(queue.calls.empty());
}

TEST(QueueNamesTest, RefusalAndErrorKindNamesRoundTrip) {
  for (const EnqueueRefusal refusal : kAllEnqueueRefusals) {
    EXPECT_EQ(enqueue_refusal_from_name(name(refusal)), refusal);
  }
  for (const QueueErrorKind kind : kAllQueueErrorKinds) {
    EXPECT_EQ(queue_error_kind_from_name(name(kind)), kind);
  }
  EXPECT_EQ(enqueue_refusal_from_name("refused"), std::nullopt);
  EXPECT_EQ(queue_error_kind_from_name("Unavailable"), std::nullopt);
}

}  // namespace
}  // namespace thm
