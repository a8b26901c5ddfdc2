#include "thm/roster/roster.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "thm/detail/unicode.hpp"
#include "thm/overloaded.hpp"

namespace thm {
namespace {

bool contains(std::span<const std::string> ids, std::string_view id) noexcept {
  return std::ranges::find(ids, id) != ids.end();
}

}  // namespace

std::string_view name(const RosterError& error) noexcept {
  return std::visit(overloaded{
                        [](const EmptyRosterMemberId&) { return "EmptyRosterMemberId"; },
                        [](const DuplicateRosterMemberId&) { return "DuplicateRosterMemberId"; },
                        [](const EmptyPersonId&) { return "EmptyPersonId"; },
                        [](const DuplicatePersonId&) { return "DuplicatePersonId"; },
                    },
                    error);
}

std::string to_string(const RosterError& error) {
  return std::visit(
      overloaded{
          [](const EmptyRosterMemberId&) -> std::string { return "a roster member has a blank id"; },
          [](const DuplicateRosterMemberId& e) -> std::string {
            return "roster member id " + e.member_id + " appears more than once";
          },
          [](const EmptyPersonId&) -> std::string { return "a person has a blank id"; },
          [](const DuplicatePersonId& e) -> std::string {
            return "person id " + e.person_id + " appears more than once";
          },
      },
      error);
}

Roster::Roster(std::span<const RosterMember> members, std::span<const Person> people,
               std::span<const std::string> retired) noexcept
    : members_(members), people_(people), retired_(retired) {}

Roster::Roster(const RosterSnapshot& snapshot) noexcept
    : members_(snapshot.members),
      people_(snapshot.people),
      retired_(snapshot.retired),
      tombstoned_(snapshot.tombstoned) {}

Roster Roster::with_tombstoned(std::span<const std::string> tombstoned) const noexcept {
  Roster copy = *this;
  copy.tombstoned_ = tombstoned;
  return copy;
}

std::optional<RosterError> Roster::validate() const {
  std::unordered_set<std::string_view> seen;
  for (const RosterMember& member : members_) {
    if (detail::is_blank(member.id)) return EmptyRosterMemberId{};
    if (!seen.insert(member.id).second) return DuplicateRosterMemberId{.member_id = member.id};
  }
  seen.clear();
  for (const Person& someone : people_) {
    if (detail::is_blank(someone.id)) return EmptyPersonId{};
    if (!seen.insert(someone.id).second) return DuplicatePersonId{.person_id = someone.id};
  }
  return std::nullopt;
}

bool Roster::is_retired(std::string_view id) const noexcept {
  return contains(retired_, id) || contains(tombstoned_, id);
}

const RosterMember* Roster::registered_member(std::string_view id) const noexcept {
  const auto found = std::ranges::find(members_, id, &RosterMember::id);
  return found == members_.end() ? nullptr : &*found;
}

const RosterMember* Roster::active_member(std::string_view id) const noexcept {
  const RosterMember* member = registered_member(id);
  return member != nullptr && !is_retired(id) ? member : nullptr;
}

std::vector<const RosterMember*> Roster::active_members() const {
  std::vector<const RosterMember*> active;
  for (const RosterMember& member : members_) {
    if (!is_retired(member.id)) active.push_back(&member);
  }
  return active;
}

const Person* Roster::person(std::string_view id) const noexcept {
  const auto found = std::ranges::find(people_, id, &Person::id);
  return found == people_.end() ? nullptr : &*found;
}

}  // namespace thm
