#pragma once
/// \file
/// The roster (SPEC §1.1): the agents and people of a chat, and which agents are active.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace thm {

/// An agent on the roster (SPEC §1.1). `id` is the canonical, case-sensitive agent id;
/// `name` is an optional display name (wire: required key, nullable).
struct RosterMember {
  std::string id{};
  std::optional<std::string> name{};
  friend bool operator==(const RosterMember&, const RosterMember&) = default;
};

/// A human participant (SPEC §1.1). People are never retired; their ids live in a
/// namespace of their own, independent of agent ids.
struct Person {
  std::string id{};
  std::string label{};
  friend bool operator==(const Person&, const Person&) = default;
};

/// The four roster snapshots as owned lists, in the shape the case files and wire use
/// (`{"members", "people", "retired", "tombstoned"}`, cases.md). A `Roster` view is built
/// over one of these, or over a host's own storage.
struct RosterSnapshot {
  std::vector<RosterMember> members{};
  std::vector<Person> people{};
  /// Agent ids that are retired (reversible); compared exactly, case-sensitively.
  std::vector<std::string> retired{};
  /// Agent ids that are tombstoned (permanent); compared exactly, case-sensitively.
  std::vector<std::string> tombstoned{};
  friend bool operator==(const RosterSnapshot&, const RosterSnapshot&) = default;
};

/// SPEC §1.1 validation: a roster member id is blank after Unicode trimming.
struct EmptyRosterMemberId {
  friend bool operator==(const EmptyRosterMemberId&, const EmptyRosterMemberId&) = default;
};
/// SPEC §1.1 validation: `member_id` appears twice among the members (exact comparison).
struct DuplicateRosterMemberId {
  std::string member_id{};
  friend bool operator==(const DuplicateRosterMemberId&, const DuplicateRosterMemberId&) = default;
};
/// SPEC §1.1 validation: a person id is blank after Unicode trimming.
struct EmptyPersonId {
  friend bool operator==(const EmptyPersonId&, const EmptyPersonId&) = default;
};
/// SPEC §1.1 validation: `person_id` appears twice among the people (exact comparison).
struct DuplicatePersonId {
  std::string person_id{};
  friend bool operator==(const DuplicatePersonId&, const DuplicatePersonId&) = default;
};

/// A structurally malformed roster snapshot (SPEC §1.1). Returned as a value, never thrown.
using RosterError =
    std::variant<EmptyRosterMemberId, DuplicateRosterMemberId, EmptyPersonId, DuplicatePersonId>;

/// The error's variant name as the case files spell it, e.g. `"DuplicateRosterMemberId"`.
[[nodiscard]] std::string_view name(const RosterError& error) noexcept;
/// A lower-case message naming the offending id, without trailing punctuation (SPEC §5).
[[nodiscard]] std::string to_string(const RosterError& error);

/// A read-only view over a host's roster snapshots (SPEC §1.1). It borrows its inputs: the
/// spans must outlive the view. Ids compare exactly and case-sensitively everywhere
/// (retiring `alice` leaves `Alice` active). Routing never tells retired, tombstoned and
/// unknown apart: all three are simply "not active".
class Roster {
 public:
  /// A view over members, people and retired ids, with no tombstoned ids.
  Roster(std::span<const RosterMember> members, std::span<const Person> people,
         std::span<const std::string> retired) noexcept;
  /// A view over all four lists of `snapshot`, which must outlive the view.
  explicit Roster(const RosterSnapshot& snapshot) noexcept;
  /// A view of a temporary would dangle at once.
  explicit Roster(RosterSnapshot&&) = delete;

  /// This view with `tombstoned` as its tombstoned ids (SPEC §1.1, v2).
  [[nodiscard]] Roster with_tombstoned(std::span<const std::string> tombstoned) const noexcept;

  /// The first structural error in SPEC §1.1 order (members first, then people), or nothing
  /// when the roster is well formed.
  [[nodiscard]] std::optional<RosterError> validate() const;

  /// The member with exactly this id if it is active (present, neither retired nor
  /// tombstoned), else null.
  [[nodiscard]] const RosterMember* active_member(std::string_view id) const noexcept;
  /// True when `active_member(id)` finds a member.
  [[nodiscard]] bool is_active(std::string_view id) const noexcept {
    return active_member(id) != nullptr;
  }
  /// The active members in roster order (pointers into the borrowed members, never null).
  [[nodiscard]] std::vector<const RosterMember*> active_members() const;
  /// The member with exactly this id whatever its state, for attribution only; never use it
  /// for routing (SPEC §1.1, v2).
  [[nodiscard]] const RosterMember* registered_member(std::string_view id) const noexcept;
  /// The person with exactly this id, or null.
  [[nodiscard]] const Person* person(std::string_view id) const noexcept;
  /// True when `id` is in the retired list or in the tombstoned list.
  [[nodiscard]] bool is_retired(std::string_view id) const noexcept;

  /// The borrowed lists, in the order given.
  [[nodiscard]] std::span<const RosterMember> members() const noexcept { return members_; }
  [[nodiscard]] std::span<const Person> people() const noexcept { return people_; }
  [[nodiscard]] std::span<const std::string> retired() const noexcept { return retired_; }
  [[nodiscard]] std::span<const std::string> tombstoned() const noexcept { return tombstoned_; }

 private:
  std::span<const RosterMember> members_;
  std::span<const Person> people_;
  std::span<const std::string> retired_;
  std::span<const std::string> tombstoned_;
};

}  // namespace thm
