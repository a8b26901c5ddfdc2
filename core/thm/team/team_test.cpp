#include "thm/team/team.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"

namespace thm {
namespace {

RosterSnapshot sample_roster() {
  return RosterSnapshot{
      .members = {{.id = "ada", .name = "Ada"},
                  {.id = "bob", .name = "Builder"},
                  {.id = "cy", .name = "Builder"},
                  {.id = "dee", .name = "Dee"},
                  {.id = "old", .name = "Old"}},
      .people = {{.id = "p1", .label = "Grace Hopper"}},
      .retired = {"dee"},
      .tombstoned = {"old"},
  };
}

DeskSnapshot sample_desks() {
  return DeskSnapshot{
      .declared = {{.id = "eng", .name = "Engineering", .members = {"ada", "bob", "dee"}},
                   {.id = "ops", .name = "Shared", .members = {"cy"}},
                   {.id = "web", .name = "Shared", .members = {"ada"}},
                   {.id = "Engineering", .name = "Other", .members = {"cy"}}},
      .member_additions = {{.desk_id = "ops", .agent_id = "ada"}},
      .retired = {"dee"},
  };
}

Team sample_team() {
  auto team = Team::prepare(sample_roster(), sample_desks());
  EXPECT_TRUE(team.has_value());
  return *std::move(team);
}

TEST(TeamTest, PrepareReportsTheRostersFirstErrorBeforeTheDesks) {
  RosterSnapshot roster{.members = {{.id = "a"}, {.id = "a"}}};
  DeskSnapshot desks{.declared = {{.id = "", .name = "x"}}};
  const auto team = Team::prepare(roster, desks);
  ASSERT_FALSE(team.has_value());
  EXPECT_EQ(team.error(), TeamError{*Roster(roster).validate()});
  EXPECT_EQ(name(team.error()), "DuplicateRosterMemberId");
}

TEST(TeamTest, PrepareReportsTheDesksErrorAsDeskSetValidateDoes) {
  DeskSnapshot desks{.declared = {{.id = "eng", .name = "Eng"}},
                     .orders = {{.desk_id = "nowhere", .ordered = {}}}};
  const auto team = Team::prepare(sample_roster(), desks);
  ASSERT_FALSE(team.has_value());
  EXPECT_EQ(team.error(), TeamError{DeskError{UnknownOrderDesk{.desk_id = "nowhere"}}});
  EXPECT_NE(to_string(team.error()).find("nowhere"), std::string::npos);
}

TEST(TeamTest, ActiveMembersLeaveOutRetiredAndTombstonedAndCompareExactly) {
  const Team team = sample_team();
  EXPECT_TRUE(team.is_active("ada"));
  EXPECT_FALSE(team.is_active("Ada"));
  EXPECT_FALSE(team.is_active("dee"));
  EXPECT_FALSE(team.is_active("old"));
  EXPECT_FALSE(team.is_active(""));
  std::vector<std::string> ids;
  for (const RosterMember* member : team.active_members()) ids.push_back(member->id);
  EXPECT_EQ(ids, (std::vector<std::string>{"ada", "bob", "cy"}));
  EXPECT_EQ(team.active_member("bob"), &team.roster_snapshot().members[1]);
}

TEST(TeamTest, ANameTwoActiveMembersShareNamesNoOne) {
  const Team team = sample_team();
  EXPECT_EQ(team.only_active_member_named("Builder"), nullptr);
  ASSERT_NE(team.only_active_member_named("Ada"), nullptr);
  EXPECT_EQ(team.only_active_member_named("Ada")->id, "ada");
  EXPECT_EQ(team.only_active_member_named("Dee"), nullptr);  // retired
  EXPECT_EQ(team.only_active_member_named("ada"), nullptr);  // names compare exactly
}

TEST(TeamTest, FindDeskPrefersAnExactIdThenAUniqueName) {
  const Team team = sample_team();
  EXPECT_EQ(team.find_desk("Engineering").desk->id, "Engineering");  // an id beats a name
  EXPECT_EQ(team.find_desk("Other").desk->id, "Engineering");
  EXPECT_TRUE(team.find_desk("Shared").ambiguous);
  EXPECT_EQ(team.find_desk("Shared").desk, nullptr);
  EXPECT_EQ(team.find_desk("nope").desk, nullptr);
  EXPECT_FALSE(team.find_desk("nope").ambiguous);
  EXPECT_EQ(team.desk("Other"), nullptr);
}

TEST(TeamTest, EffectiveMembersAreWhatTheDeskSetGives) {
  const Team team = sample_team();
  const DeskSnapshot desks = sample_desks();
  for (const Desk& desk : team.desk_snapshot().declared) {
    const auto prepared = team.effective_members(desk);
    const auto expected = DeskSet(desks).members(desk.id);
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(std::vector<std::string>(prepared.begin(), prepared.end()), *expected) << desk.id;
  }
}

TEST(TeamTest, ADeskOfAnotherSnapshotHasNoMembersHere) {
  const Team team = sample_team();
  const DeskSnapshot other = sample_desks();
  EXPECT_TRUE(team.effective_members(other.declared.front()).empty());
  EXPECT_FALSE(team.effective_members(*team.desk("eng")).empty());
}

TEST(TeamTest, AliasesMatchUnderFullLowerCasingAndAmbiguityNamesNone) {
  const Team team = sample_team();
  EXPECT_EQ(team.match_alias("ADA", false), MentionTarget{AgentTarget{"ada"}});
  EXPECT_EQ(team.match_alias("grace_hopper", false), MentionTarget{PersonTarget{"p1"}});
  EXPECT_EQ(team.match_alias("builder", false), std::nullopt);  // two agents
  EXPECT_EQ(team.match_alias("dee", false), std::nullopt);      // retired
  EXPECT_EQ(team.match_alias("eng", true), MentionTarget{DeskTarget{"eng"}});
  EXPECT_EQ(team.match_alias("ada", true), std::nullopt);  // @# is for desks only
  EXPECT_EQ(team.match_alias("Here", false), MentionTarget{EveryoneTarget{}});
}

TEST(TeamTest, ACopySharesTheIndexAndOutlivesTheOriginal) {
  std::optional<Team> original = sample_team();
  const Team copy = *original;
  const RosterMember* before = copy.active_member("ada");
  original.reset();
  EXPECT_EQ(copy.active_member("ada"), before);
  EXPECT_EQ(copy.roster().validate(), std::nullopt);
  EXPECT_GT(copy.index_bytes(), 0U);
}

// The overloads answer as the views do; the properties check this on generated teams.
TEST(TeamTest, DecisionsOnATeamAnswerAsOnTheViews) {
  const RosterSnapshot roster = sample_roster();
  const DeskSnapshot desks = sample_desks();
  const Team team = sample_team();
  const std::string body = "@ada and @#eng, @Builder, @grace_hopper and @everyone";
  const auto on_views =
      resolve_mentions(body, std::nullopt, OtherAuthor{}, Roster(roster), DeskSet(desks));
  EXPECT_EQ(resolve_mentions(body, std::nullopt, OtherAuthor{}, team), on_views);
  EXPECT_EQ(on_views.size(), 4U);
  EXPECT_EQ(direct_responder(on_views, team), direct_responder(on_views, Roster(roster)));
  EXPECT_EQ(mentioned_members(on_views, std::string_view("eng"), std::nullopt, team),
            mentioned_members(on_views, std::string_view("eng"), std::nullopt, Roster(roster),
                              DeskSet(desks)));

  for (const std::string chat : {"eng", "Other", "Shared", "dm:bob", "Ada", "Builder", "General"}) {
    const ResponderRequest request{.chat = chat, .orchestrator_id = "cy"};
    EXPECT_EQ(responder_plan(request, team, {}),
              responder_plan(request, Roster(roster), DeskSet(desks), {}))
        << chat;
  }
  const MentionDispatchInput input{.author_id = "bob", .mentions = on_views, .hop = 0};
  EXPECT_EQ(mention_dispatch({.enabled = true, .max_hops = 3}, input, team),
            mention_dispatch({.enabled = true, .max_hops = 3}, input, Roster(roster)));
  EXPECT_EQ(TeamBriefing::from_team("ada", Conversation{.desk_id = "eng"}, team),
            TeamBriefing::from_snapshots("ada", Conversation{.desk_id = "eng"}, DeskSet(desks),
                                         Roster(roster)));
  EXPECT_EQ(TeamBriefing::from_team("ada", Conversation{.desk_id = "Shared"}, team),
            TeamBriefing::from_snapshots("ada", Conversation{.desk_id = "Shared"}, DeskSet(desks),
                                         Roster(roster)));
}

}  // namespace
}  // namespace thm
