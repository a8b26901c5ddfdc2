#include "thm/dispatch/dispatch.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace thm {
namespace {

constexpr std::uint32_t kU32Max = std::numeric_limits<std::uint32_t>::max();

Mention agent_mention(std::string id, std::size_t offset, bool quiet = false) {
  return {.target = AgentTarget{id}, .text = "@" + id, .offset = offset, .quiet = quiet};
}

// A roster of alice, bob and carol, with any of them retired or tombstoned on request.
struct Team {
  std::vector<RosterMember> members{{.id = "alice"}, {.id = "bob"}, {.id = "carol"}};
  std::vector<Person> people{{.id = "p1", .label = "Pat"}};
  std::vector<std::string> retired{};
  std::vector<std::string> tombstoned{};
  [[nodiscard]] Roster roster() const {
    return Roster(members, people, retired).with_tombstoned(tombstoned);
  }
};

MentionDispatchInput reply_from(std::string author, std::vector<Mention> mentions,
                                std::uint32_t hop = 0) {
  return {.key = {.trigger_sequence = 41},
          .conversation = {.desk_id = "eng", .thread_root = 7},
          .author_id = std::move(author),
          .content = "handoff",
          .mentions = std::move(mentions),
          .hop = hop};
}

constexpr MentionDispatchPolicy enabled(std::uint32_t max_hops) {
  return {.enabled = true, .max_hops = max_hops};
}

MentionDispatchDecision decide(const MentionDispatchPolicy& policy,
                               const MentionDispatchInput& input, const Team& team = Team{}) {
  auto result = mention_dispatch(policy, input, team.roster());
  EXPECT_TRUE(result.has_value());
  return result.has_value() ? *result : MentionDispatchDecision{};
}

MentionDispatchDecision none(NoDispatchReason reason) { return NoDispatch{reason}; }

TEST(MentionDispatchTest, DisabledPolicyNeverDispatches) {
  EXPECT_EQ(
      decide({.enabled = false, .max_hops = 5}, reply_from("alice", {agent_mention("bob", 0)})),
      none(NoDispatchReason::Disabled));
}

TEST(MentionDispatchTest, DisabledPrecedesRosterValidation) {
  Team broken;
  broken.members.push_back({.id = "alice"});
  EXPECT_EQ(decide({.enabled = false, .max_hops = 2}, reply_from("alice", {}), broken),
            none(NoDispatchReason::Disabled));
}

TEST(MentionDispatchTest, ZeroHopBudgetAlwaysStops) {
  EXPECT_EQ(decide(enabled(0), reply_from("alice", {agent_mention("bob", 0)})),
            none(NoDispatchReason::HopLimitReached));
}

TEST(MentionDispatchTest, HopBudgetPrecedesRosterValidation) {
  Team broken;
  broken.members.push_back({.id = " "});
  EXPECT_EQ(decide(enabled(0), reply_from("alice", {}), broken),
            none(NoDispatchReason::HopLimitReached));
}

TEST(MentionDispatchTest, HopBudgetIsTestedBeforeAnyMentionIsRead) {
  EXPECT_EQ(decide(enabled(2), reply_from("ghost", {}, 2)),
            none(NoDispatchReason::HopLimitReached));
}

TEST(MentionDispatchTest, MalformedRosterIsAnErrorNotAReason) {
  Team broken;
  broken.members.push_back({.id = "bob"});
  auto result =
      mention_dispatch(enabled(2), reply_from("alice", {agent_mention("bob", 0)}), broken.roster());
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error(), RosterError{DuplicateRosterMemberId{.member_id = "bob"}});
}

struct HopCase {
  std::uint32_t max_hops;
  std::uint32_t hop;
  std::optional<std::uint32_t> child_hop;  // nothing: HopLimitReached
};

class MentionDispatchHopTest : public testing::TestWithParam<HopCase> {};

TEST_P(MentionDispatchHopTest, AdmitsExactlyBelowTheLimitWithChildHopPlusOne) {
  const HopCase hop_case = GetParam();
  const auto decision = decide(enabled(hop_case.max_hops),
                               reply_from("alice", {agent_mention("bob", 0)}, hop_case.hop));
  if (!hop_case.child_hop.has_value()) {
    EXPECT_EQ(decision, none(NoDispatchReason::HopLimitReached));
    return;
  }
  const auto* one = std::get_if<DispatchOne>(&decision);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->request.child_hop, *hop_case.child_hop);
}

INSTANTIATE_TEST_SUITE_P(
    PinnedLimits, MentionDispatchHopTest,
    testing::Values(HopCase{0, 0, std::nullopt}, HopCase{1, 0, 1}, HopCase{1, 1, std::nullopt},
                    HopCase{2, 0, 1}, HopCase{2, 1, 2}, HopCase{2, 2, std::nullopt},
                    HopCase{2, 3, std::nullopt}, HopCase{1'000'000, 999'999, 1'000'000},
                    HopCase{1'000'000, 1'000'000, std::nullopt},
                    HopCase{kU32Max, kU32Max - 1, kU32Max}, HopCase{kU32Max, kU32Max, std::nullopt},
                    HopCase{kU32Max, 0, 1}));

TEST(MentionDispatchTest, AdmittedRequestCarriesTheReplyVerbatim) {
  const MentionDispatchInput input = reply_from("alice", {agent_mention("bob", 3)}, 1);
  const MentionTurnRequest expected{
      .key = input.key,
      .source_id = "alice",
      .target_id = "bob",
      .content = input.content,
      .conversation = input.conversation,
      .child_hop = 2,
  };
  EXPECT_EQ(decide(enabled(3), input), MentionDispatchDecision{DispatchOne{expected}});
}

TEST(MentionDispatchTest, InactiveSourceIsRefusedWhateverItMentions) {
  Team team;
  team.retired = {"alice"};
  EXPECT_EQ(decide(enabled(2), reply_from("alice", {agent_mention("bob", 0)}), team),
            none(NoDispatchReason::SourceInactive));
  EXPECT_EQ(decide(enabled(2), reply_from("ghost", {agent_mention("bob", 0)})),
            none(NoDispatchReason::SourceInactive));
}

TEST(MentionDispatchTest, TombstonedSourceIsSourceInactive) {
  Team team;
  team.tombstoned = {"alice"};
  EXPECT_EQ(decide(enabled(2), reply_from("alice", {agent_mention("bob", 0)}), team),
            none(NoDispatchReason::SourceInactive));
}

TEST(MentionDispatchTest, NoMentionsMeansNoDirectAgentMention) {
  EXPECT_EQ(decide(enabled(2), reply_from("alice", {})),
            none(NoDispatchReason::NoDirectAgentMention));
}

TEST(MentionDispatchTest, PersonDeskAndEveryoneMentionsNeverDispatch) {
  const std::vector<Mention> broadcast{
      {.target = PersonTarget{"p1"}, .text = "@Pat", .offset = 0},
      {.target = DeskTarget{"eng"}, .text = "@#eng", .offset = 5},
      {.target = EveryoneTarget{}, .text = "@everyone", .offset = 11},
  };
  EXPECT_EQ(decide(enabled(2), reply_from("alice", broadcast)),
            none(NoDispatchReason::NoDirectAgentMention));
}

TEST(MentionDispatchTest, QuietAgentMentionsAreIgnored) {
  EXPECT_EQ(decide(enabled(2), reply_from("alice", {agent_mention("bob", 0, /*quiet=*/true)})),
            none(NoDispatchReason::NoDirectAgentMention));
  const auto decision = decide(
      enabled(2), reply_from("alice", {agent_mention("bob", 0, true), agent_mention("carol", 9)}));
  ASSERT_TRUE(std::holds_alternative<DispatchOne>(decision));
  EXPECT_EQ(std::get<DispatchOne>(decision).request.target_id, "carol");
}

TEST(MentionDispatchTest, ReadingOrderIsByOffsetNotListOrder) {
  const auto decision = decide(
      enabled(2), reply_from("alice", {agent_mention("carol", 20), agent_mention("bob", 4)}));
  ASSERT_TRUE(std::holds_alternative<DispatchOne>(decision));
  EXPECT_EQ(std::get<DispatchOne>(decision).request.target_id, "bob");
}

TEST(MentionDispatchTest, EqualOffsetsTakeTheFirstInListOrder) {
  const auto decision =
      decide(enabled(2), reply_from("alice", {agent_mention("carol", 4), agent_mention("bob", 4)}));
  ASSERT_TRUE(std::holds_alternative<DispatchOne>(decision));
  EXPECT_EQ(std::get<DispatchOne>(decision).request.target_id, "carol");
}

TEST(MentionDispatchTest, SelfFirstMentionFailsClosed) {
  EXPECT_EQ(
      decide(enabled(3), reply_from("alice", {agent_mention("alice", 0), agent_mention("bob", 8)})),
      none(NoDispatchReason::SelfMention));
}

TEST(MentionDispatchTest, SelfMentionComparesIdsExactly) {
  Team team;
  team.members.push_back({.id = "Alice"});
  const auto decision = decide(enabled(2), reply_from("alice", {agent_mention("Alice", 0)}), team);
  ASSERT_TRUE(std::holds_alternative<DispatchOne>(decision));
}

TEST(MentionDispatchTest, RetiredFirstTargetFailsClosed) {
  Team team;
  team.retired = {"bob"};
  EXPECT_EQ(decide(enabled(3),
                   reply_from("alice", {agent_mention("bob", 0), agent_mention("carol", 5)}), team),
            none(NoDispatchReason::TargetInactive));
}

TEST(MentionDispatchTest, TombstonedAndUnknownTargetsFailClosed) {
  Team team;
  team.tombstoned = {"bob"};
  EXPECT_EQ(decide(enabled(3),
                   reply_from("alice", {agent_mention("bob", 0), agent_mention("carol", 5)}), team),
            none(NoDispatchReason::TargetInactive));
  EXPECT_EQ(decide(enabled(3),
                   reply_from("alice", {agent_mention("ghost", 0), agent_mention("carol", 7)})),
            none(NoDispatchReason::TargetInactive));
}

TEST(MentionDispatchTest, RetiringComparesIdsExactly) {
  Team team;
  team.retired = {"Bob"};
  EXPECT_TRUE(std::holds_alternative<DispatchOne>(
      decide(enabled(2), reply_from("alice", {agent_mention("bob", 0)}), team)));
}

TEST(MentionDispatchTest, AtMostOneChildTurnEvenWithManyMentions) {
  std::vector<Mention> many;
  for (std::size_t i = 0; i < 60; ++i)
    many.push_back(agent_mention(i % 2 == 0 ? "bob" : "carol", i * 6));
  const auto decision = decide(enabled(2), reply_from("alice", many));
  ASSERT_TRUE(std::holds_alternative<DispatchOne>(decision));
  EXPECT_EQ(std::get<DispatchOne>(decision).request.target_id, "bob");
}

TEST(MentionDispatchContextTest, MayDispatchIsExactlyTheTwoGuards) {
  EXPECT_TRUE((MentionDispatchContext{.policy = enabled(2), .hop = 1}.may_dispatch()));
  EXPECT_FALSE((MentionDispatchContext{.policy = enabled(2), .hop = 2}.may_dispatch()));
  EXPECT_FALSE((MentionDispatchContext{.policy = enabled(0), .hop = 0}.may_dispatch()));
  EXPECT_FALSE((MentionDispatchContext{.policy = {.enabled = false, .max_hops = 4}, .hop = 0}
                    .may_dispatch()));
  EXPECT_FALSE((MentionDispatchContext{.policy = enabled(kU32Max), .hop = kU32Max}.may_dispatch()));
  EXPECT_TRUE(
      (MentionDispatchContext{.policy = enabled(kU32Max), .hop = kU32Max - 1}.may_dispatch()));
}

TEST(MentionDispatchContextTest, MayDispatchAgreesWithMentionDispatchGuards) {
  for (const bool on : {false, true}) {
    for (std::uint32_t max_hops = 0; max_hops < 4; ++max_hops) {
      for (std::uint32_t hop = 0; hop < 5; ++hop) {
        const MentionDispatchPolicy policy{.enabled = on, .max_hops = max_hops};
        const auto decision = decide(policy, reply_from("alice", {agent_mention("bob", 0)}, hop));
        EXPECT_EQ((MentionDispatchContext{.policy = policy, .hop = hop}.may_dispatch()),
                  std::holds_alternative<DispatchOne>(decision));
      }
    }
  }
}

TEST(NoDispatchReasonTest, NamesRoundTrip) {
  for (const NoDispatchReason reason : kAllNoDispatchReasons) {
    EXPECT_EQ(no_dispatch_reason_from_name(name(reason)), reason);
  }
  EXPECT_EQ(no_dispatch_reason_from_name("Disabled"), std::nullopt);
  EXPECT_EQ(no_dispatch_reason_from_name(""), std::nullopt);
}

}  // namespace
}  // namespace thm
