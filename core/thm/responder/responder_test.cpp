#include "thm/responder/responder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace thm {
namespace {

struct Ladder {
  RosterSnapshot roster{
      .members = {{.id = "orch"}, {.id = "alice", .name = "Alice"}, {.id = "bob"}}};
  DeskSnapshot desks{};
  std::vector<SelectorCandidate> details{};
  ResponderRequest request{.message = "Please handle this", .orchestrator_id = "orch"};

  [[nodiscard]] Result<ResponderPlan, ResponderError> plan() const {
    return responder_plan(request, Roster(roster), DeskSet(desks), details);
  }
  [[nodiscard]] ResponderDecision decided() const {
    const auto result = plan();
    EXPECT_TRUE(result.has_value());
    if (!result.has_value() || !std::holds_alternative<Decided>(*result)) {
      ADD_FAILURE() << "expected a Decided plan";
      return {};
    }
    return std::get<Decided>(*result).decision;
  }
};

ResponderDecision decision(std::string id, ResponderRung rung,
                           SelectionDisposition disposition = SelectionDisposition::NotApplicable) {
  return {.responder_id = std::move(id), .rung = rung, .disposition = disposition};
}

Desk desk(std::string id, std::string name, std::vector<std::string> members,
          ResponderMode mode = ResponderMode::Lead) {
  return {.id = std::move(id),
          .name = std::move(name),
          .members = std::move(members),
          .responder_mode = mode};
}

TEST(ResponderPlanTest, ExplicitMentionWinsEvenOffDeskAndWithoutAnOrchestrator) {
  Ladder s;
  s.roster.retired = {"orch"};
  s.desks.declared = {desk("eng", "Engineering", {"bob"})};
  s.request.chat = "eng";
  s.request.mentions = {{.target = AgentTarget{"alice"}, .text = "@alice", .offset = 3}};
  EXPECT_EQ(s.decided(), decision("alice", ResponderRung::ExplicitMention));
}

TEST(ResponderPlanTest, InactiveQuietAndNonAgentMentionsNeverSelect) {
  Ladder s;
  s.roster.retired = {"alice"};
  s.request.mentions = {{.target = AgentTarget{"bob"}, .text = "@bob", .offset = 0, .quiet = true},
                        {.target = AgentTarget{"alice"}, .text = "@alice", .offset = 5},
                        {.target = PersonTarget{"p"}, .text = "@p", .offset = 12},
                        {.target = EveryoneTarget{}, .text = "@here", .offset = 15}};
  EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
}

TEST(ResponderPlanTest, GeneralSpellingsGoToTheOrchestrator) {
  for (const std::optional<std::string>& chat :
       {std::optional<std::string>{}, std::optional<std::string>{""},
        std::optional<std::string>{"main"}, std::optional<std::string>{"GENERAL"}}) {
    Ladder s;
    s.request.chat = chat;
    EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
  }
}

TEST(ResponderPlanTest, LeadDeskAnswersWithItsFirstActiveMember) {
  Ladder s;
  s.roster.retired = {"alice"};
  s.desks.declared = {desk("eng", "Engineering", {"alice", "bob"})};
  s.request.chat = "Engineering";
  EXPECT_EQ(s.decided(), decision("bob", ResponderRung::DeskDefault));
}

TEST(ResponderPlanTest, DeskMembersNotOnTheRosterAreSkipped) {
  Ladder s;
  s.desks.declared = {desk("eng", "Engineering", {"ghost", "bob"}, ResponderMode::Auto)};
  s.request.chat = "eng";
  EXPECT_EQ(s.decided(), decision("bob", ResponderRung::DeskDefault));
}

TEST(ResponderPlanTest, DeskWithoutActiveMembersFallsToTheOrchestrator) {
  Ladder s;
  s.desks.declared = {desk("eng", "Engineering", {"missing"}, ResponderMode::Auto)};
  s.request.chat = "eng";
  EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
}

TEST(ResponderPlanTest, DeskIdentityOutranksAnAgentCollision) {
  Ladder s;
  s.roster.members.push_back({.id = "eng"});
  s.desks.declared = {desk("eng", "Engineering", {"alice"})};
  s.request.chat = "eng";
  EXPECT_EQ(s.decided(), decision("alice", ResponderRung::DeskDefault));
}

TEST(ResponderPlanTest, AmbiguousDeskNameSkipsTheDirectAgentRung) {
  Ladder s;
  s.roster.members.push_back({.id = "Shared"});
  s.desks.declared = {desk("d1", "Shared", {"alice"}), desk("d2", "Shared", {"bob"})};
  s.request.chat = "Shared";
  EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
}

TEST(ResponderPlanTest, DirectAgentByIdWithOptionalDmPrefixThenByUniqueName) {
  Ladder s;
  for (const char* chat : {"alice", "dm:alice", "Alice", "dm:Alice"}) {
    s.request.chat = chat;
    EXPECT_EQ(s.decided(), decision("alice", ResponderRung::DirectAgent)) << chat;
  }
  for (const char* chat : {"ALICE", "DM:alice", "dm:dm:alice", " alice"}) {
    s.request.chat = chat;
    EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator)) << chat;
  }
}

TEST(ResponderPlanTest, DuplicateAgentNamesFallThrough) {
  Ladder s;
  s.roster.members.push_back({.id = "carol", .name = "Alice"});
  s.request.chat = "Alice";
  EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
}

TEST(ResponderPlanTest, RetiredDirectAgentFallsThrough) {
  Ladder s;
  s.roster.retired = {"alice"};
  s.request.chat = "alice";
  EXPECT_EQ(s.decided(), decision("orch", ResponderRung::Orchestrator));
}

TEST(ResponderPlanTest, OrchestratorMustBeActiveWhenReached) {
  for (const char* state : {"unknown", "retired", "tombstoned"}) {
    Ladder s;
    if (std::string(state) == "unknown") s.request.orchestrator_id = "nobody";
    if (std::string(state) == "retired") s.roster.retired = {"orch"};
    if (std::string(state) == "tombstoned") s.roster.tombstoned = {"orch"};
    const auto result = s.plan();
    ASSERT_FALSE(result.has_value()) << state;
    EXPECT_EQ(result.error(), ResponderError{NoActiveResponder{s.request.orchestrator_id}})
        << state;
    EXPECT_EQ(name(result.error()), "NoActiveResponder");
  }
}

TEST(ResponderPlanTest, AutoDeskAsksTheSelectorWithEnrichedCandidates) {
  Ladder s;
  s.desks.declared = {desk("eng", "Engineering", {"alice", "bob"}, ResponderMode::Auto)};
  s.details = {{.id = "bob", .label = "Bob", .role = "Reviewer", .description = "Checks changes"},
               {.id = "zed", .label = "Zed", .role = "x"},
               {.id = "zed", .label = "Zed", .role = "x"}};
  s.request.chat = "Engineering";
  const auto result = s.plan();
  ASSERT_TRUE(result.has_value());
  const Select expected{
      .request = {.message = "Please handle this",
                  .desk_id = "eng",
                  .candidates = {{.id = "alice", .label = "alice", .role = "Teammate"},
                                 s.details[0]}},
      .fallback = decision("alice", ResponderRung::DeskDefault, SelectionDisposition::Unavailable)};
  EXPECT_EQ(*result, ResponderPlan{expected});
}

TEST(ResponderPlanTest, DisabledSelectionIsDecidedBeforeDetailsAreRead) {
  Ladder s;
  s.desks.declared = {desk("eng", "Engineering", {"alice", "bob"}, ResponderMode::Auto)};
  s.details = {{.id = "alice"}, {.id = "alice"}};
  s.request.chat = "eng";
  s.request.selection_policy = SelectionPolicy::Disabled;
  EXPECT_EQ(s.decided(),
            decision("alice", ResponderRung::DeskDefault, SelectionDisposition::Disabled));
  s.request.selection_policy = SelectionPolicy::Allowed;
  ASSERT_FALSE(s.plan().has_value());
  EXPECT_EQ(s.plan().error(), ResponderError{DuplicateSelectorCandidate{"alice"}});
}

TEST(ResponderPlanTest, SnapshotErrorsComeFirstRosterBeforeDesks) {
  Ladder s;
  s.roster.members.push_back({.id = "bob"});
  s.desks.declared = {desk("", "x", {})};
  s.request.mentions = {{.target = AgentTarget{"alice"}, .text = "@alice", .offset = 0}};
  EXPECT_EQ(s.plan().error(), ResponderError{RosterError{DuplicateRosterMemberId{"bob"}}});
  s.roster.members.pop_back();
  EXPECT_EQ(s.plan().error(), ResponderError{DeskError{EmptyDeskId{}}});
  EXPECT_EQ(name(s.plan().error()), "EmptyDeskId");
}

}  // namespace
}  // namespace thm
