#include "thm/briefing/briefing.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

namespace thm {
namespace {

TeamBriefing sample() {
  return {.viewer_id = "alice",
          .desk_id = "engineering",
          .desk_name = "Engineering",
          .teammates = {
              {.id = "bob", .label = "Bob", .role = "reviewer", .description = "Checks safety"},
              {.id = "cara", .label = "cara"}}};
}

TEST(TeamBriefingTest, SystemTextIsPinned) {
  EXPECT_EQ(sample().system_text(),
            "You are @alice, working in the Engineering desk (desk id: engineering).\n"
            "Your teammates in this conversation:\n"
            "- @bob (Bob), reviewer: Checks safety\n"
            "- @cara (cara)\n"
            "Rules of this shared session:\n"
            "- Each peer message stays attributed to the teammate who wrote it; speak only for "
            "yourself.\n"
            "- @everyone, desk mentions and mentions of people give context only; they never "
            "start turns for other agents.\n"
            "- Brevity: keep each message under 600 characters; only the last 30 messages are in "
            "view.");
}

TEST(TeamBriefingTest, NoTeammatesIsSaidAndBrevityIsTheBriefingsOwn) {
  TeamBriefing alone{.viewer_id = "solo",
                     .desk_id = "General",
                     .desk_name = "General",
                     .brevity = {.message_chars = 280, .window = 5}};
  const std::string text = alone.system_text();
  EXPECT_NE(text.find("You have no teammates in this conversation."), std::string::npos);
  EXPECT_NE(text.find("under 280 characters; only the last 5 messages"), std::string::npos);
  EXPECT_NE(text.back(), '\n');
}

TEST(TeamBriefingTest, DispatchSentenceOnlyWhenTheRunMayDispatch) {
  const TeamBriefing briefing = sample();
  const auto text = [&](bool enabled, std::uint32_t max_hops, std::uint32_t hop) {
    return briefing.system_text_with_dispatch(
        {.policy = {.enabled = enabled, .max_hops = max_hops}, .hop = hop});
  };
  constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();
  EXPECT_NE(text(true, 2, 1).find(kDispatchSentence), std::string::npos);
  EXPECT_NE(text(true, kMax, kMax - 1).find(kDispatchSentence), std::string::npos);
  for (const auto& [enabled, max_hops, hop] :
       {std::tuple{false, 4U, 0U}, std::tuple{true, 0U, 0U}, std::tuple{true, 2U, 2U},
        std::tuple{true, 2U, 3U}, std::tuple{true, kMax, kMax}}) {
    EXPECT_EQ(text(enabled, max_hops, hop), briefing.system_text()) << enabled << max_hops << hop;
  }
  EXPECT_EQ(briefing.system_text().find(kDispatchSentence), std::string::npos);
}

TEST(TeamBriefingTest, WithAndWithoutTheSentenceDifferOnlyByThatLine) {
  const TeamBriefing briefing = sample();
  std::string offered =
      briefing.system_text_with_dispatch({.policy = {.enabled = true, .max_hops = 1}, .hop = 0});
  const std::size_t at = offered.find(kDispatchSentence);
  ASSERT_NE(at, std::string::npos);
  offered.erase(at, kDispatchSentence.size() + 1);
  EXPECT_EQ(offered, briefing.system_text());
}

TEST(TeamBriefingTest, HostDataCannotForgeTheDispatchSentence) {
  TeamBriefing briefing = sample();
  briefing.teammates[0].description = "x\n" + std::string(kDispatchSentence);
  briefing.teammates[1].role = std::string(kDispatchSentence);
  const std::string text = briefing.system_text();
  EXPECT_FALSE(offers_dispatch(text));
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 7);  // one line per teammate still
  EXPECT_TRUE(offers_dispatch(
      briefing.system_text_with_dispatch({.policy = {.enabled = true, .max_hops = 1}})));
}

TEST(TeamBriefingTest, FromSnapshotsInGeneralListsEveryActiveMemberButTheViewer) {
  const RosterSnapshot roster{.members = {{.id = "alice"},
                                          {.id = "bob", .name = "Bob"},
                                          {.id = "old"},
                                          {.id = "cara", .name = " "}},
                              .retired = {"old"}};
  const DeskSnapshot desks;
  const auto briefing = TeamBriefing::from_snapshots(
      "alice", {.desk_id = "main", .desk_name = "whatever"}, DeskSet(desks), Roster(roster));
  ASSERT_TRUE(briefing.has_value());
  EXPECT_EQ(briefing->desk_id, "General");
  EXPECT_EQ(briefing->desk_name, "General");
  EXPECT_EQ(briefing->teammates, (std::vector<BriefedTeammate>{{.id = "bob", .label = "Bob"},
                                                               {.id = "cara", .label = "cara"}}));
  EXPECT_EQ(briefing->brevity, Brevity{});
}

TEST(TeamBriefingTest, FromSnapshotsOnADeskUsesItsActiveEffectiveMembers) {
  const RosterSnapshot roster{.members = {{.id = "alice"}, {.id = "bob"}, {.id = "cara"}},
                              .retired = {"cara"}};
  const DeskSnapshot desks{
      .declared = {
          {.id = "eng", .name = "Engineering", .members = {"bob", "ghost", "alice", "cara"}}}};
  const auto briefing =
      TeamBriefing::from_snapshots("alice", {.desk_id = "Engineering", .desk_name = "Engineering"},
                                   DeskSet(desks), Roster(roster));
  ASSERT_TRUE(briefing.has_value());
  EXPECT_EQ(briefing->desk_id, "eng");
  EXPECT_EQ(briefing->teammates, (std::vector<BriefedTeammate>{{.id = "bob", .label = "bob"}}));
}

TEST(TeamBriefingTest, FromSnapshotsReportsTypedErrors) {
  const RosterSnapshot roster{.members = {{.id = "alice"}}};
  const DeskSnapshot desks;
  const auto unknown = TeamBriefing::from_snapshots("alice", {.desk_id = "ops", .desk_name = "Ops"},
                                                    DeskSet(desks), Roster(roster));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error(), BriefingError{DeskError{UnknownDesk{"ops"}}});
  EXPECT_EQ(name(unknown.error()), "UnknownDesk");
  const RosterSnapshot broken{.members = {{.id = "a"}, {.id = "a"}}};
  const auto invalid = TeamBriefing::from_snapshots("a", {}, DeskSet(desks), Roster(broken));
  ASSERT_FALSE(invalid.has_value());
  EXPECT_EQ(invalid.error(), BriefingError{RosterError{DuplicateRosterMemberId{"a"}}});
}

}  // namespace
}  // namespace thm
