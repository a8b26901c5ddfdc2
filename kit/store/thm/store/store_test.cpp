#include "thm/store/store.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

namespace thm {
namespace {

MentionTurnRequest request_of(std::string content, std::uint32_t child_hop = 1) {
  return {.key = {7},
          .source_id = "alice",
          .target_id = "bob",
          .content = std::move(content),
          .conversation = {.desk_id = "eng"},
          .child_hop = child_hop};
}

TEST(HookPointTest, NamesRoundTripInTransactionOrder) {
  std::set<std::string_view> names;
  for (const HookPoint point : kAllHookPoints) {
    EXPECT_EQ(hook_point_from_name(name(point)), point);
    names.insert(name(point));
  }
  EXPECT_EQ(names.size(), kAllHookPoints.size());
  EXPECT_EQ(hook_point_from_name("BeforeCommit"), std::nullopt);
}

TEST(TurnStateTest, NamesRoundTrip) {
  for (const TurnState state : kAllTurnStates) {
    EXPECT_EQ(turn_state_from_name(name(state)), state);
  }
  EXPECT_EQ(turn_state_from_name("Pending"), std::nullopt);
  EXPECT_EQ(name(LeaseError::StaleToken), "stale_token");
}

TEST(ExceedsLimitsTest, NamesTheLimitAContentOrAnIdPasses) {
  EXPECT_EQ(exceeds_limits(request_of("1234"), 4, 5), std::nullopt);
  const auto content = exceeds_limits(request_of("12345"), 4, 5);
  ASSERT_TRUE(content.has_value());
  EXPECT_EQ(content->kind, QueueErrorKind::InvalidRequest);
  EXPECT_NE(content->message.find("limit of 4 bytes"), std::string::npos) << content->message;
  const auto id = exceeds_limits(request_of("1"), 4, 4);  // "alice" is 5 bytes
  ASSERT_TRUE(id.has_value());
  EXPECT_NE(id->message.find("an id is longer"), std::string::npos) << id->message;
}

TEST(TriggerMismatchTest, NamesTheFirstFieldThatDiffers) {
  const MentionTurnRequest request = request_of("hi @bob", 3);
  EXPECT_EQ(trigger_mismatch(request, "alice", "hi @bob", 2, "k"), std::nullopt);
  const auto message = [&](std::string_view author, std::string_view content, std::int64_t hop) {
    const auto error = trigger_mismatch(request, author, content, hop, "v1/3:eng/c/7");
    EXPECT_TRUE(error.has_value());
    EXPECT_EQ(error ? error->kind : QueueErrorKind::Internal, QueueErrorKind::TriggerMismatch);
    return error ? error->message : std::string();
  };
  EXPECT_EQ(message("carol", "other", 0),
            "the request's source differs from the committed reply under key v1/3:eng/c/7");
  EXPECT_NE(message("alice", "other", 2).find("content"), std::string::npos);
  EXPECT_NE(message("alice", "hi @bob", 1).find("child hop"), std::string::npos);
  EXPECT_NE(message("alice", "hi @bob", -1).find("child hop"), std::string::npos);
  EXPECT_NE(message("alice", "hi @bob", std::int64_t{1} << 40).find("child hop"),
            std::string::npos);
}

// Every store words a step its hook rolled back the same way: a safe retry, at that point.
TEST(StoreTest, AStepRolledBackAtAHookPointIsUnavailableAndSaysWhere) {
  for (const HookPoint point : kAllHookPoints) {
    const QueueError error = rolled_back_at(point);
    EXPECT_EQ(error.kind, QueueErrorKind::Unavailable);
    EXPECT_EQ(error.message, "the step was rolled back at " + std::string(name(point)));
  }
}

}  // namespace
}  // namespace thm
