#pragma once
/// \file
/// A prepared team (adr/0016): a chat's roster and desk snapshots validated once and
/// indexed, so that the decisions made on every message cost the same whatever the team's
/// size. Every decision that takes a `Roster` or a `DeskSet` has an overload on a `Team`
/// with the same answers.

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "thm/desks/desks.hpp"
#include "thm/mentions/types.hpp"
#include "thm/result.hpp"
#include "thm/roster/roster.hpp"

namespace thm {

class Team;
namespace detail {
class AliasTable;
/// The alias table a team holds (internal: the mention scan reads positions from it).
[[nodiscard]] const AliasTable& alias_table(const Team& team) noexcept;
}  // namespace detail

/// Why `Team::prepare` refused its snapshots: the roster's first error (SPEC §1.1), else the
/// desks' (SPEC §1.2), exactly as `Roster::validate` and `DeskSet::validate` report them.
using TeamError = std::variant<RosterError, DeskError>;

/// The inner error's variant name as the case files spell it, e.g. `"DuplicateDeskId"`.
[[nodiscard]] std::string_view name(const TeamError& error) noexcept;
/// The inner error's message (lower case, naming the offending id).
[[nodiscard]] std::string to_string(const TeamError& error);

/// The number of agents past which a roster read as snapshot views, on every call, costs far
/// more than a prepared team: each call validates the roster and builds its alias table
/// again, which at 1,000 agents is some 60 times the team's call and at 10,000 some 900 times
/// (bench/README.md). The language packages warn a host that passes a larger one (adr/0028).
inline constexpr std::size_t kLargeRosterOnViews = 1000;

/// A chat's roster and desks, validated and indexed once per change (adr/0016).
///
/// A host prepares a team when its roster or desks change and passes it to every decision
/// until the next change. It owns its snapshots (moved in, or copied when the host passes
/// lvalues) and never changes; copies share one index (copying is a reference count, and
/// a team may be read from any number of threads at once). The views and pointers it hands
/// out live as long as the team or any copy of it.
///
/// Preparing costs time and memory linear in the snapshots: the validation, the alias table
/// of SPEC §1.5 (ICU full lower-casing, as per call), the active members by id and by name,
/// the people and desks by id, and each desk's effective members. Every lookup below is
/// then one hash probe or a read of a prepared list.
class Team {
 public:
  /// Validates `roster`, then `desks` (the same first error as `Roster::validate` and
  /// `DeskSet::validate`) and builds the indexes. Never throws; an allocation failure
  /// terminates, as everywhere in core.
  [[nodiscard]] static Result<Team, TeamError> prepare(RosterSnapshot roster, DeskSnapshot desks);

  /// The snapshots it was prepared from, as given.
  [[nodiscard]] const RosterSnapshot& roster_snapshot() const noexcept;
  [[nodiscard]] const DeskSnapshot& desk_snapshot() const noexcept;
  /// Views over its own snapshots, for the calls that take views.
  [[nodiscard]] Roster roster() const noexcept;
  [[nodiscard]] DeskSet desks() const noexcept;

  /// The member with exactly this id if it is active (SPEC §1.1), else null.
  [[nodiscard]] const RosterMember* active_member(std::string_view agent_id) const noexcept;
  /// True when `active_member(agent_id)` finds a member.
  [[nodiscard]] bool is_active(std::string_view agent_id) const noexcept {
    return active_member(agent_id) != nullptr;
  }
  /// The active members in roster order (never null).
  [[nodiscard]] std::span<const RosterMember* const> active_members() const noexcept;
  /// The one active member whose name is exactly `name`; null when none or several are
  /// (SPEC §2.2 step 2b).
  [[nodiscard]] const RosterMember* only_active_member_named(std::string_view name) const noexcept;
  /// The person with exactly this id, or null.
  [[nodiscard]] const Person* person(std::string_view person_id) const noexcept;
  /// The desk with exactly this id, or null.
  [[nodiscard]] const Desk* desk(std::string_view desk_id) const noexcept;
  /// Where `identity` leads (SPEC §1.2 resolution): an exact desk id, else the one desk
  /// with exactly that name; `ambiguous` when several have it.
  [[nodiscard]] detail::DeskLookup find_desk(std::string_view identity) const noexcept;
  /// The effective members of `desk`, one of this team's own desks (as `desk` and
  /// `find_desk` answer them; SPEC §1.2), as views into its snapshots: what
  /// `DeskSet::members` gives, computed once. Empty for a desk that is not the team's.
  [[nodiscard]] std::span<const std::string_view> effective_members(
      const Desk& desk) const noexcept;
  /// The one target `alias` names in the alias table (SPEC §1.5 `extract_at`), or nothing
  /// when it names none or several; with `desk_only` (`@#alias`) desks alone count.
  [[nodiscard]] std::optional<MentionTarget> match_alias(std::string_view alias,
                                                         bool desk_only) const;

  /// The heap bytes of its indexes, beyond the snapshots it owns (bench/README.md).
  [[nodiscard]] std::size_t index_bytes() const noexcept;

 private:
  friend const detail::AliasTable& detail::alias_table(const Team& team) noexcept;
  struct Index;
  explicit Team(std::shared_ptr<const Index> index) noexcept : index_(std::move(index)) {}
  std::shared_ptr<const Index> index_;
};

}  // namespace thm
