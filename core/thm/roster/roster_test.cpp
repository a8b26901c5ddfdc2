#include "thm/roster/roster.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

namespace thm {
namespace {

TEST(RosterTest, WellFormedRosterValidates) {
  const RosterSnapshot snapshot{.members = {{.id = "alice"}, {.id = "Alice"}},
                                .people = {{.id = "alice", .label = "Alice"}}};
  EXPECT_EQ(Roster(snapshot).validate(), std::nullopt);
}

TEST(RosterTest, BlankMemberIdAfterUnicodeTrimIsTheFirstError) {
  const RosterSnapshot snapshot{
      .members = {{.id = "alice"}, {.id = "\u00A0\u3000 "}, {.id = "alice"}}};
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{EmptyRosterMemberId{}});
}

TEST(RosterTest, DuplicateMemberIdIsExactAndNamesTheId) {
  const RosterSnapshot snapshot{.members = {{.id = "bob"}, {.id = "Bob"}, {.id = "bob"}}};
  const auto error = Roster(snapshot).validate();
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(*error, RosterError{DuplicateRosterMemberId{.member_id = "bob"}});
  EXPECT_EQ(name(*error), "DuplicateRosterMemberId");
  EXPECT_NE(to_string(*error).find("bob"), std::string::npos);
}

TEST(RosterTest, MembersAreCheckedBeforePeople) {
  const RosterSnapshot snapshot{.members = {{.id = "a"}, {.id = "a"}}, .people = {{.id = ""}}};
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{DuplicateRosterMemberId{.member_id = "a"}});
}

TEST(RosterTest, PeopleErrorsComeAfterMembers) {
  const RosterSnapshot blank{.people = {{.id = " "}}};
  EXPECT_EQ(Roster(blank).validate(), RosterError{EmptyPersonId{}});
  const RosterSnapshot twice{.people = {{.id = "p", .label = "x"}, {.id = "p", .label = "y"}}};
  EXPECT_EQ(Roster(twice).validate(), RosterError{DuplicatePersonId{.person_id = "p"}});
}

TEST(RosterTest, IdsThatDifferOnlyBeyondTheFirstByteAreDistinct) {
  const RosterSnapshot snapshot{
      .members = {{.id = "agent_1"}, {.id = "agent_2"}, {.id = "agent_10"}},
      .people = {{.id = "pa"}, {.id = "pb"}}};
  EXPECT_EQ(Roster(snapshot).validate(), std::nullopt);
}

TEST(RosterTest, NonAsciiBlankIdsAreBlank) {
  for (const char* blank : {"\u3000", "\u00A0", "\u0085", "\u2028 \t", "\n\u3000"}) {
    const RosterSnapshot members{.members = {{.id = "alice"}, {.id = blank}}};
    EXPECT_EQ(Roster(members).validate(), RosterError{EmptyRosterMemberId{}}) << blank;
    const RosterSnapshot people{.people = {{.id = "p"}, {.id = blank}}};
    EXPECT_EQ(Roster(people).validate(), RosterError{EmptyPersonId{}}) << blank;
  }
  // Not White_Space, so not blank: an information separator, a zero-width space, invalid UTF-8.
  for (const char* id : {"\x1F", "\u200B", "\xFF", "\u3000x\u3000", "\x7F"}) {
    const RosterSnapshot snapshot{.members = {{.id = id}}, .people = {{.id = id}}};
    EXPECT_EQ(Roster(snapshot).validate(), std::nullopt) << id;
  }
}

TEST(RosterTest, EveryAsciiWhitespaceStartsABlankCandidate) {
  // The fast path treats a first byte below 0x80 as deciding only when it is not one of
  // U+0009..U+000D, U+0020; pin that this is exactly ASCII's White_Space.
  for (int c = 0; c < 0x80; ++c) {
    const std::string id(1, static_cast<char>(c));
    const bool white = c == ' ' || (c >= 0x09 && c <= 0x0D);
    const RosterSnapshot snapshot{.members = {{.id = id}}};
    EXPECT_EQ(Roster(snapshot).validate().has_value(), white) << c;
    const RosterSnapshot padded{.members = {{.id = id + "x"}}};
    EXPECT_EQ(Roster(padded).validate(), std::nullopt) << c;
  }
}

// Rosters of 40 (past any small-roster path): the first error in roster order still wins.
std::vector<RosterMember> numbered_members(std::size_t count) {
  std::vector<RosterMember> members;
  for (std::size_t i = 0; i < count; ++i) members.push_back({.id = "agent_" + std::to_string(i)});
  return members;
}

TEST(RosterTest, DuplicatesAmongFortyMembersReportTheEarliestRepeat) {
  RosterSnapshot snapshot{.members = numbered_members(40)};
  EXPECT_EQ(Roster(snapshot).validate(), std::nullopt);
  snapshot.members[30].id = "agent_2";   // repeats at 30
  snapshot.members[25].id = "agent_39";  // repeats at 39, later: agent_2 wins
  EXPECT_EQ(Roster(snapshot).validate(),
            RosterError{DuplicateRosterMemberId{.member_id = "agent_2"}});
  snapshot.members[35].id = "agent_25";  // agent_25 is gone (now agent_39): no new repeat
  EXPECT_EQ(Roster(snapshot).validate(),
            RosterError{DuplicateRosterMemberId{.member_id = "agent_2"}});
  snapshot.members[28].id = "agent_0";  // repeats at 28, before 30
  EXPECT_EQ(Roster(snapshot).validate(),
            RosterError{DuplicateRosterMemberId{.member_id = "agent_0"}});
  snapshot.members[27].id = " ";  // a blank before the first repeat wins
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{EmptyRosterMemberId{}});
  snapshot.members[27].id = "agent_27";
  snapshot.members[29].id = "\u3000";  // a blank after the first repeat does not
  EXPECT_EQ(Roster(snapshot).validate(),
            RosterError{DuplicateRosterMemberId{.member_id = "agent_0"}});
}

TEST(RosterTest, ThriceRepeatedIdIsReportedAtItsSecondAppearance) {
  RosterSnapshot snapshot{.members = numbered_members(40)};
  snapshot.members[10].id = "x";
  snapshot.members[20].id = "y";
  snapshot.members[21].id = "y";
  snapshot.members[15].id = "x";
  snapshot.members[39].id = "x";
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{DuplicateRosterMemberId{.member_id = "x"}});
  snapshot.members[15].id = "agent_15";
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{DuplicateRosterMemberId{.member_id = "y"}});
}

TEST(RosterTest, DuplicatePeopleAmongFortyAreFound) {
  RosterSnapshot snapshot{.members = numbered_members(40)};
  for (std::size_t i = 0; i < 40; ++i) snapshot.people.push_back({.id = "p" + std::to_string(i)});
  EXPECT_EQ(Roster(snapshot).validate(), std::nullopt);
  snapshot.people[39].id = "p38";
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{DuplicatePersonId{.person_id = "p38"}});
  snapshot.people[0].id = "";
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{EmptyPersonId{}});
}

TEST(RosterTest, ValidatesATenThousandMemberRoster) {
  RosterSnapshot snapshot{.members = numbered_members(10'000)};
  EXPECT_EQ(Roster(snapshot).validate(), std::nullopt);
  snapshot.members[9'999].id = "agent_0";
  EXPECT_EQ(Roster(snapshot).validate(),
            RosterError{DuplicateRosterMemberId{.member_id = "agent_0"}});
}

TEST(RosterTest, AViewOfATemporaryDoesNotCompile) {
  static_assert(!std::is_constructible_v<Roster, RosterSnapshot&&>);
  static_assert(std::is_constructible_v<Roster, const RosterSnapshot&>);
}

TEST(RosterTest, ErrorMessagesAreLowerCaseWithoutTrailingPunctuation) {
  for (const RosterError& error :
       std::vector<RosterError>{EmptyRosterMemberId{}, DuplicateRosterMemberId{"x"},
                                EmptyPersonId{}, DuplicatePersonId{"y"}}) {
    const std::string message = to_string(error);
    ASSERT_FALSE(message.empty());
    for (const char c : message) EXPECT_FALSE(c >= 'A' && c <= 'Z') << message;
    EXPECT_NE(message.back(), '.');
  }
}

TEST(RosterTest, RetiredAndTombstonedMembersAreNotActive) {
  const RosterSnapshot snapshot{.members = {{.id = "alice"}, {.id = "bob"}, {.id = "carol"}},
                                .retired = {"bob"},
                                .tombstoned = {"carol"}};
  const Roster roster(snapshot);
  EXPECT_TRUE(roster.is_active("alice"));
  EXPECT_FALSE(roster.is_active("bob"));
  EXPECT_FALSE(roster.is_active("carol"));
  EXPECT_FALSE(roster.is_active("ghost"));
  EXPECT_TRUE(roster.is_retired("bob"));
  EXPECT_TRUE(roster.is_retired("carol"));
  EXPECT_FALSE(roster.is_retired("alice"));
  ASSERT_NE(roster.registered_member("carol"), nullptr);
  EXPECT_EQ(roster.registered_member("carol")->id, "carol");
  const auto active = roster.active_members();
  ASSERT_EQ(active.size(), 1U);
  EXPECT_EQ(active.front()->id, "alice");
}

TEST(RosterTest, RetirementComparesIdsExactly) {
  const RosterSnapshot snapshot{.members = {{.id = "alice"}, {.id = "Alice"}},
                                .retired = {"alice"}};
  const Roster roster(snapshot);
  EXPECT_FALSE(roster.is_active("alice"));
  EXPECT_TRUE(roster.is_active("Alice"));
}

TEST(RosterTest, WithTombstonedAddsTheFourthList) {
  const std::vector<RosterMember> members{{.id = "alice"}, {.id = "bob"}};
  const std::vector<Person> people;
  const std::vector<std::string> retired;
  const std::vector<std::string> tombstoned{"bob"};
  const Roster roster = Roster(members, people, retired).with_tombstoned(tombstoned);
  EXPECT_TRUE(roster.is_active("alice"));
  EXPECT_FALSE(roster.is_active("bob"));
  EXPECT_TRUE(Roster(members, people, retired).is_active("bob"));
}

TEST(RosterTest, PeopleAreFoundByExactIdAndNeverRetired) {
  const RosterSnapshot snapshot{.people = {{.id = "p1", .label = "Ada"}}, .retired = {"p1"}};
  const Roster roster(snapshot);
  ASSERT_NE(roster.person("p1"), nullptr);
  EXPECT_EQ(roster.person("p1")->label, "Ada");
  EXPECT_EQ(roster.person("P1"), nullptr);
  EXPECT_FALSE(roster.is_active("p1"));
}

}  // namespace
}  // namespace thm
