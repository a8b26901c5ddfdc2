#include "thm/team/team.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "thm/detail/flat_index.hpp"
#include "thm/mentions/aliases.hpp"

namespace thm {
namespace {

// A name two active members share: `only_active_member_named` finds none.
constexpr std::uint32_t kSeveral = 0xFFFF'FFFF;

std::uint32_t index_of(std::size_t i) noexcept { return static_cast<std::uint32_t>(i); }

template <class Items>
std::size_t heap_bytes(const std::vector<Items>& items) noexcept {
  return items.capacity() * sizeof(Items);
}

}  // namespace

std::string_view name(const TeamError& error) noexcept {
  return std::visit([](const auto& inner) { return name(inner); }, error);
}

std::string to_string(const TeamError& error) {
  return std::visit([](const auto& inner) { return to_string(inner); }, error);
}

// Everything a team holds, made once and then only read. It refers into its own snapshots,
// so it never moves: `prepare` makes it in place behind a shared pointer.
struct Team::Index {
  Index(RosterSnapshot roster, DeskSnapshot desks)
      : roster_snapshot(std::move(roster)),
        desk_snapshot(std::move(desks)),
        roster_view(roster_snapshot),
        desk_view(desk_snapshot),
        active(active_members_of(roster_view)),
        aliases(roster_view, active, desk_view) {
    const RosterMember* const first = roster_view.members().data();
    active_by_id = detail::FlatIndex<std::uint32_t>(active.size());
    for (const RosterMember* member : active) {
      const std::uint32_t i = index_of(static_cast<std::size_t>(member - first));
      active_by_id.try_emplace(member->id, i);
      if (!member->name) continue;
      auto [named, added] = active_by_name.try_emplace(*member->name, i);
      if (!added) named = kSeveral;
    }
    const auto people = roster_view.people();
    people_by_id = detail::FlatIndex<std::uint32_t>(people.size());
    for (std::size_t i = 0; i < people.size(); ++i)
      people_by_id.try_emplace(people[i].id, index_of(i));

    const std::size_t declared = desk_view.declared().size();
    const std::size_t desk_count = declared + desk_view.added().size();
    desks_by_id = detail::FlatIndex<std::uint32_t>(desk_count);
    member_ranges.reserve(desk_count);
    for (std::size_t i = 0; i < desk_count; ++i) {
      const Desk& d = desk_at(i);
      desks_by_id.try_emplace(d.id, index_of(i));
      auto [named, added] = desks_by_name.try_emplace(d.name, index_of(i));
      if (!added) named = kSeveral;
      const std::vector<std::string_view> effective = detail::effective_members(desk_view, d);
      member_ranges.emplace_back(index_of(desk_members.size()), index_of(effective.size()));
      desk_members.insert(desk_members.end(), effective.begin(), effective.end());
    }
    desk_members.shrink_to_fit();
  }

  // `Roster::active_members()` with the retired and tombstoned ids hashed once, so that a
  // roster with many of them is still prepared in linear time.
  static std::vector<const RosterMember*> active_members_of(const Roster& roster) {
    detail::FlatIndex<bool> inactive(roster.retired().size() + roster.tombstoned().size());
    for (const auto list : {roster.retired(), roster.tombstoned()}) {
      for (const std::string& id : list) inactive.try_emplace(id, true);
    }
    std::vector<const RosterMember*> active;
    for (const RosterMember& member : roster.members()) {
      if (inactive.find(member.id) == nullptr) active.push_back(&member);
    }
    active.shrink_to_fit();
    return active;
  }

  Index(const Index&) = delete;
  Index& operator=(const Index&) = delete;

  // Desks are numbered declared first, then added, as the desk set iterates them.
  [[nodiscard]] const Desk& desk_at(std::size_t i) const noexcept {
    const std::size_t declared = desk_view.declared().size();
    return i < declared ? desk_view.declared()[i] : desk_view.added()[i - declared];
  }
  // The position of `d` among the team's desks, or nothing when it is not one of them (a
  // desk of another snapshot, which must never become an index into these lists).
  [[nodiscard]] std::optional<std::size_t> position_of(const Desk& d) const noexcept {
    const std::less<const Desk*> before;  // a total order, also across unrelated arrays
    std::size_t offset = 0;
    for (const auto list : {desk_view.declared(), desk_view.added()}) {
      if (!list.empty() && !before(&d, list.data()) && before(&d, list.data() + list.size())) {
        return offset + static_cast<std::size_t>(&d - list.data());
      }
      offset += list.size();
    }
    return std::nullopt;
  }

  RosterSnapshot roster_snapshot;
  DeskSnapshot desk_snapshot;
  Roster roster_view;
  DeskSet desk_view;
  std::vector<const RosterMember*> active;  // before `aliases`, which is built from it
  detail::AliasTable aliases;
  detail::FlatIndex<std::uint32_t> active_by_id;    // member index
  detail::FlatIndex<std::uint32_t> active_by_name;  // member index, or kSeveral
  detail::FlatIndex<std::uint32_t> people_by_id;    // person index
  detail::FlatIndex<std::uint32_t> desks_by_id;     // desk position
  detail::FlatIndex<std::uint32_t> desks_by_name;   // desk position, or kSeveral
  std::vector<std::string_view> desk_members;       // every desk's effective members, in turn
  std::vector<std::pair<std::uint32_t, std::uint32_t>> member_ranges;  // per desk: first, count
};

Result<Team, TeamError> Team::prepare(RosterSnapshot roster, DeskSnapshot desks) {
  if (auto error = Roster(roster).validate()) return unexpected{TeamError{*std::move(error)}};
  if (auto error = DeskSet(desks).validate()) return unexpected{TeamError{*std::move(error)}};
  return Team(std::make_shared<const Index>(std::move(roster), std::move(desks)));
}

const RosterSnapshot& Team::roster_snapshot() const noexcept { return index_->roster_snapshot; }
const DeskSnapshot& Team::desk_snapshot() const noexcept { return index_->desk_snapshot; }
Roster Team::roster() const noexcept { return index_->roster_view; }
DeskSet Team::desks() const noexcept { return index_->desk_view; }

const RosterMember* Team::active_member(std::string_view agent_id) const noexcept {
  const std::uint32_t* found = index_->active_by_id.find(agent_id);
  return found == nullptr ? nullptr : &index_->roster_view.members()[*found];
}

std::span<const RosterMember* const> Team::active_members() const noexcept {
  return index_->active;
}

const RosterMember* Team::only_active_member_named(std::string_view name) const noexcept {
  const std::uint32_t* found = index_->active_by_name.find(name);
  if (found == nullptr || *found == kSeveral) return nullptr;
  return &index_->roster_view.members()[*found];
}

const Person* Team::person(std::string_view person_id) const noexcept {
  const std::uint32_t* found = index_->people_by_id.find(person_id);
  return found == nullptr ? nullptr : &index_->roster_view.people()[*found];
}

const Desk* Team::desk(std::string_view desk_id) const noexcept {
  const std::uint32_t* found = index_->desks_by_id.find(desk_id);
  return found == nullptr ? nullptr : &index_->desk_at(*found);
}

detail::DeskLookup Team::find_desk(std::string_view identity) const noexcept {
  if (const Desk* exact = desk(identity)) return {.desk = exact};
  const std::uint32_t* named = index_->desks_by_name.find(identity);
  if (named == nullptr) return {};
  if (*named == kSeveral) return {.ambiguous = true};
  return {.desk = &index_->desk_at(*named)};
}

std::span<const std::string_view> Team::effective_members(const Desk& desk) const noexcept {
  const auto position = index_->position_of(desk);
  if (!position) return {};
  const auto [first, count] = index_->member_ranges[*position];
  return std::span<const std::string_view>(index_->desk_members).subspan(first, count);
}

std::optional<MentionTarget> Team::match_alias(std::string_view alias, bool desk_only) const {
  return index_->aliases.match(alias, desk_only);
}

const detail::AliasTable& detail::alias_table(const Team& team) noexcept {
  return team.index_->aliases;
}

std::size_t Team::index_bytes() const noexcept {
  const Index& i = *index_;
  return sizeof(Index) + i.aliases.bytes() + heap_bytes(i.active) + i.active_by_id.bytes() +
         i.active_by_name.bytes() + i.people_by_id.bytes() + i.desks_by_id.bytes() +
         i.desks_by_name.bytes() + heap_bytes(i.desk_members) + heap_bytes(i.member_ranges);
}

}  // namespace thm
