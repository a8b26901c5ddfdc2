#include "thm/roster/roster.hpp"

#include <algorithm>
#include <string_view>

#include "thm/detail/repeats.hpp"
#include "thm/detail/unicode.hpp"
#include "thm/overloaded.hpp"

namespace thm {
namespace {

bool contains(std::span<const std::string> ids, std::string_view id) noexcept {
  return std::ranges::any_of(ids,
                             [id](std::string_view other) { return detail::same_id(other, id); });
}

// SPEC §1.1 "blank after Unicode trimming". Trimming stops at the first character that is
// not White_Space, and the only ASCII White_Space characters are U+0009..U+000D and U+0020;
// so an id whose first byte is any other ASCII byte is not blank, with no need to ask ICU.
// Every other id (empty, or starting with one of those or a non-ASCII byte) is decided by
// the full check.
bool is_blank_id(std::string_view id) noexcept {
  if (!id.empty()) {
    const auto first = static_cast<unsigned char>(id.front());
    const bool ascii_white = first == ' ' || (first >= 0x09 && first <= 0x0D);
    if (first < 0x80 && !ascii_white) return false;
  }
  return detail::is_blank(id);
}

// The first SPEC §1.1 error of one list (members or people), in list order: a blank id,
// or an id that appeared earlier in the list. `repeat` is where the first repeat is.
template <class Item, class Blank, class Duplicate>
std::optional<RosterError> first_error(std::span<const Item> items, std::string Item::*id,
                                       Blank blank, Duplicate duplicate) {
  const std::size_t repeat = detail::first_repeat(
      items.size(), [&](std::size_t i) -> std::string_view { return items[i].*id; });
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (is_blank_id(items[i].*id)) return blank();
    if (i == repeat) return duplicate(items[i].*id);
  }
  return std::nullopt;
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
          [](const EmptyRosterMemberId&) -> std::string {
            return "a roster member has a blank id";
          },
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
  // Members first, then people; within each list the first blank or repeated id. No
  // allocation for rosters of up to detail::kPairwiseRepeatLimit members and people.
  if (auto error = first_error(
          members_, &RosterMember::id, [] { return EmptyRosterMemberId{}; },
          [](const std::string& id) { return DuplicateRosterMemberId{.member_id = id}; })) {
    return error;
  }
  return first_error(
      people_, &Person::id, [] { return EmptyPersonId{}; },
      [](const std::string& id) { return DuplicatePersonId{.person_id = id}; });
}

bool Roster::is_retired(std::string_view id) const noexcept {
  return contains(retired_, id) || contains(tombstoned_, id);
}

const RosterMember* Roster::registered_member(std::string_view id) const noexcept {
  const auto found = std::ranges::find_if(
      members_, [id](const RosterMember& member) { return detail::same_id(member.id, id); });
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
