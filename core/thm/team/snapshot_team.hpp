#pragma once
/// \file
/// The lookups of a `Team` on the snapshot views of one call (internal, adr/0016): how the
/// decisions that take a `Roster` and a `DeskSet` run the same code as on a prepared team.

#include <optional>
#include <string_view>
#include <vector>

#include "thm/desks/desks.hpp"
#include "thm/detail/flat_index.hpp"
#include "thm/mentions/aliases.hpp"
#include "thm/roster/roster.hpp"

namespace thm::detail {

/// The views of one call, which the call has validated, answering as a `Team` would: each
/// lookup scans the snapshots (linear, as the views do), and the alias table is built the
/// first time a token needs it. It borrows the views, which must outlive it.
class SnapshotTeam {
 public:
  SnapshotTeam(const Roster& roster, const DeskSet& desks) noexcept
      : roster_(roster), desks_(desks) {}
  /// The views of a call that takes a roster alone: no desks.
  explicit SnapshotTeam(const Roster& roster) noexcept : roster_(roster), desks_(kNoDesks) {}

  [[nodiscard]] const RosterMember* active_member(std::string_view agent_id) const {
    // A scan of the roster answers the first few lookups (most calls make one or two);
    // past them, on a large roster, the active ids are indexed, so that a call looking up
    // many mentions stays linear.
    const auto members = roster_.members();
    if (members.size() <= kPairwiseRepeatLimit || scans_ < kScansBeforeIndex) {
      ++scans_;
      return roster_.active_member(agent_id);
    }
    if (!active_) {
      active_.emplace(members.size());
      for (std::size_t i = 0; i < members.size(); ++i) {
        if (!roster_.is_retired(members[i].id)) active_->try_emplace(members[i].id, &members[i]);
      }
    }
    const RosterMember* const* found = active_->find(agent_id);
    return found == nullptr ? nullptr : *found;
  }
  [[nodiscard]] bool is_active(std::string_view agent_id) const {
    return active_member(agent_id) != nullptr;
  }
  [[nodiscard]] std::vector<const RosterMember*> active_members() const {
    return roster_.active_members();
  }
  [[nodiscard]] const RosterMember* only_active_member_named(std::string_view name) const noexcept {
    const RosterMember* named = nullptr;
    for (const RosterMember& member : roster_.members()) {
      if (member.name != name || roster_.is_retired(member.id)) continue;
      if (named != nullptr) return nullptr;
      named = &member;
    }
    return named;
  }
  [[nodiscard]] const Person* person(std::string_view person_id) const noexcept {
    return roster_.person(person_id);
  }
  [[nodiscard]] const Desk* desk(std::string_view desk_id) const noexcept {
    return desks_.desk(desk_id);
  }
  [[nodiscard]] DeskLookup find_desk(std::string_view identity) const noexcept {
    return detail::find_desk(desks_, identity);
  }
  [[nodiscard]] std::vector<std::string_view> effective_members(const Desk& desk) const {
    return detail::effective_members(desks_, desk);
  }
  [[nodiscard]] std::optional<MentionTarget> match_alias(std::string_view alias,
                                                         bool desk_only) const {
    return aliases().match(alias, desk_only);
  }
  /// The alias table of these views, built on the first call.
  [[nodiscard]] const AliasTable& aliases() const {
    if (!aliases_) aliases_.emplace(roster_, roster_.active_members(), desks_);
    return *aliases_;
  }

 private:
  static inline const DeskSet kNoDesks{{}, {}, {}, {}, {}};

  const Roster& roster_;
  const DeskSet& desks_;
  static constexpr int kScansBeforeIndex = 4;
  mutable int scans_ = 0;
  mutable std::optional<FlatIndex<const RosterMember*>> active_;
  mutable std::optional<AliasTable> aliases_;
};

/// The alias table of a call's views (as `alias_table(const Team&)` for a team).
[[nodiscard]] inline const AliasTable& alias_table(const SnapshotTeam& team) {
  return team.aliases();
}

}  // namespace thm::detail
