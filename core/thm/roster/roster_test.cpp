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
  const RosterSnapshot snapshot{.members = {{.id = "alice"}, {.id = "\u00A0\u3000 "}, {.id = "alice"}}};
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
  const RosterSnapshot snapshot{.members = {{.id = "a"}, {.id = "a"}},
                                .people = {{.id = ""}}};
  EXPECT_EQ(Roster(snapshot).validate(), RosterError{DuplicateRosterMemberId{.member_id = "a"}});
}

TEST(RosterTest, PeopleErrorsComeAfterMembers) {
  const RosterSnapshot blank{.people = {{.id = " "}}};
  EXPECT_EQ(Roster(blank).validate(), RosterError{EmptyPersonId{}});
  const RosterSnapshot twice{.people = {{.id = "p", .label = "x"}, {.id = "p", .label = "y"}}};
  EXPECT_EQ(Roster(twice).validate(), RosterError{DuplicatePersonId{.person_id = "p"}});
}

TEST(RosterTest, AViewOfATemporaryDoesNotCompile) {
  static_assert(!std::is_constructible_v<Roster, RosterSnapshot&&>);
  static_assert(std::is_constructible_v<Roster, const RosterSnapshot&>);
}

TEST(RosterTest, ErrorMessagesAreLowerCaseWithoutTrailingPunctuation) {
  for (const RosterError& error : std::vector<RosterError>{EmptyRosterMemberId{}, DuplicateRosterMemberId{"x"},
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
  const RosterSnapshot snapshot{.members = {{.id = "alice"}, {.id = "Alice"}}, .retired = {"alice"}};
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
