#include "thm/desks/desks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace thm {
namespace {

Desk desk(std::string id, std::string name, std::vector<std::string> members = {},
          ResponderMode mode = ResponderMode::Lead) {
  return {.id = std::move(id),
          .name = std::move(name),
          .members = std::move(members),
          .responder_mode = mode};
}

std::optional<DeskError> validate(const DeskSnapshot& snapshot) {
  return DeskSet(snapshot).validate();
}

TEST(DeskSetTest, WellFormedDesksValidate) {
  EXPECT_EQ(validate({.declared = {desk("General", "General"), desk("eng", "Engineering", {"a"})},
                      .added = {desk("ops", "Operations")},
                      .member_additions = {{.desk_id = "ops", .agent_id = "b"}},
                      .orders = {{.desk_id = "eng", .ordered = {"a"}}}}),
            std::nullopt);
}

TEST(DeskSetTest, EmptyIdAndNameAreExactlyEmpty) {
  EXPECT_EQ(validate({.declared = {desk("", "x")}}), DeskError{EmptyDeskId{}});
  EXPECT_EQ(validate({.declared = {desk("d", "")}}), DeskError{EmptyDeskName{"d"}});
  EXPECT_EQ(validate({.declared = {desk(" ", " ")}}), std::nullopt);  // desk ids are not trimmed
}

TEST(DeskSetTest, DuplicateIdsAcrossDeclaredAndAdded) {
  EXPECT_EQ(validate({.declared = {desk("d", "x")}, .added = {desk("d", "y")}}),
            DeskError{DuplicateDeskId{"d"}});
  EXPECT_EQ(validate({.declared = {desk("d", "x"), desk("D", "x")}}), std::nullopt);
}

TEST(DeskSetTest, ReservedSpellingsExceptTheExactGeneralDesk) {
  EXPECT_EQ(validate({.declared = {desk("general", "Elsewhere")}}),
            DeskError{ReservedDeskIdentity{"general"}});
  EXPECT_EQ(validate({.declared = {desk("elsewhere", "Main")}}),
            DeskError{ReservedDeskIdentity{"Main"}});
  EXPECT_EQ(validate({.declared = {desk("MAIN", "GENERAL")}}),
            DeskError{ReservedDeskIdentity{"MAIN"}});
  EXPECT_EQ(validate({.declared = {desk("General", "general")}}),
            DeskError{ReservedDeskIdentity{"General"}});
  EXPECT_EQ(validate({.declared = {desk("General", "General")}}), std::nullopt);
  EXPECT_EQ(validate({.declared = {desk("generals", "mainline")}}), std::nullopt);
}

TEST(DeskSetTest, MembershipRowsMustNameADeskId) {
  EXPECT_EQ(validate({.declared = {desk("eng", "Engineering")},
                      .member_additions = {{.desk_id = "Engineering", .agent_id = "a"}}}),
            DeskError{UnknownMemberDesk{"Engineering"}});
}

TEST(DeskSetTest, OrderErrorsInSpecOrder) {
  const Desk eng = desk("eng", "Engineering", {"a", "b"});
  EXPECT_EQ(validate({.declared = {eng}, .orders = {{.desk_id = "ops", .ordered = {}}}}),
            DeskError{UnknownOrderDesk{"ops"}});
  EXPECT_EQ(validate({.declared = {eng},
                      .orders = {{.desk_id = "eng", .ordered = {"a", "b"}},
                                 {.desk_id = "eng", .ordered = {"b", "a"}}}}),
            DeskError{DuplicateDeskOrder{"eng"}});
  EXPECT_EQ(validate({.declared = {eng}, .orders = {{.desk_id = "eng", .ordered = {"a", "a"}}}}),
            DeskError{(DuplicateOrderMember{.desk_id = "eng", .agent_id = "a"})});
  EXPECT_EQ(validate({.declared = {eng}, .orders = {{.desk_id = "eng", .ordered = {"a", "z"}}}}),
            DeskError{(UnknownOrderMember{.desk_id = "eng", .agent_id = "z"})});
  EXPECT_EQ(validate({.declared = {eng}, .orders = {{.desk_id = "eng", .ordered = {"b"}}}}),
            DeskError{(IncompleteOrder{.desk_id = "eng", .missing_agent_id = "a"})});
}

TEST(DeskSetTest, RetiredAndTombstonedOrderEntriesAreSkippedFirst) {
  const DeskSnapshot snapshot{
      .declared = {desk("eng", "Engineering", {"a", "b", "c"})},
      .orders = {{.desk_id = "eng", .ordered = {"c", "ghost", "b", "ghost", "a", "t"}}},
      .retired = {"a", "ghost"},
      .tombstoned = {"t"}};
  EXPECT_EQ(validate(snapshot), std::nullopt);
  EXPECT_EQ(*DeskSet(snapshot).members("eng"), (std::vector<std::string>{"c", "b"}));
}

TEST(DeskSetTest, BaseMembersMergeRowsKeepFirstAppearanceAndSkipRetired) {
  const DeskSnapshot snapshot{.declared = {desk("eng", "Engineering", {"alice", "bob", "alice"})},
                              .member_additions = {{.desk_id = "eng", .agent_id = "bob"},
                                                   {.desk_id = "eng", .agent_id = "cara"},
                                                   {.desk_id = "other", .agent_id = "x"}},
                              .retired = {"alice"}};
  const DeskSnapshot with_other{
      .declared = {desk("eng", "Engineering", {"alice", "bob", "alice"}), desk("other", "Other")},
      .member_additions = snapshot.member_additions,
      .retired = {"alice"}};
  const DeskSet desks(with_other);
  EXPECT_EQ(*desks.members("eng"), (std::vector<std::string>{"bob", "cara"}));
  EXPECT_EQ(*desks.lead("eng"), std::optional<std::string>("bob"));
  EXPECT_EQ(*desks.members("other"), (std::vector<std::string>{"x"}));
}

TEST(DeskSetTest, AStoredOrderIsTheEffectiveOrder) {
  const DeskSnapshot snapshot{.declared = {desk("engineering", "Engineering", {"alice", "bob"})},
                              .member_additions = {{.desk_id = "engineering", .agent_id = "bob"},
                                                   {.desk_id = "engineering", .agent_id = "cara"}},
                              .orders = {{.desk_id = "engineering", .ordered = {"cara", "bob"}}},
                              .retired = {"alice"}};
  EXPECT_EQ(*DeskSet(snapshot).members("Engineering"), (std::vector<std::string>{"cara", "bob"}));
  EXPECT_EQ(*DeskSet(snapshot).lead("engineering"), std::optional<std::string>("cara"));
}

TEST(DeskSetTest, ResolveIdPrefersExactIdThenUniqueExactName) {
  const DeskSnapshot snapshot{.declared = {desk("eng", "ops"), desk("ops", "Operations"),
                                           desk("s1", "Shared"), desk("s2", "Shared")}};
  const DeskSet desks(snapshot);
  EXPECT_EQ(*desks.resolve_id("ops"), "ops");
  EXPECT_EQ(*desks.resolve_id("Operations"), "ops");
  EXPECT_EQ(desks.resolve_id("operations").error(), DeskError{UnknownDesk{"operations"}});
  EXPECT_EQ(desks.resolve_id("Shared").error(), DeskError{AmbiguousDesk{"Shared"}});
  EXPECT_TRUE(desks.contains("eng"));
  EXPECT_FALSE(desks.contains("ENG"));
}

TEST(DeskSetTest, ResolutionValidatesFirst) {
  const DeskSnapshot snapshot{.declared = {desk("eng", "Engineering"), desk("eng", "Other")}};
  EXPECT_EQ(DeskSet(snapshot).resolve_id("eng").error(), DeskError{DuplicateDeskId{"eng"}});
  EXPECT_EQ(DeskSet(snapshot).members("eng").error(), DeskError{DuplicateDeskId{"eng"}});
}

TEST(DeskSetTest, DeskWithoutMembersHasNoLead) {
  const DeskSnapshot snapshot{.declared = {desk("eng", "Engineering", {"gone"})},
                              .retired = {"gone"}};
  EXPECT_EQ(*DeskSet(snapshot).lead("eng"), std::nullopt);
}

TEST(DeskSetTest, ErrorNamesAndMessages) {
  const DeskError error = IncompleteOrder{.desk_id = "eng", .missing_agent_id = "bob"};
  EXPECT_EQ(name(error), "IncompleteOrder");
  const std::string message = to_string(error);
  EXPECT_NE(message.find("eng"), std::string::npos);
  EXPECT_NE(message.find("bob"), std::string::npos);
  EXPECT_NE(message.back(), '.');
}

}  // namespace
}  // namespace thm
