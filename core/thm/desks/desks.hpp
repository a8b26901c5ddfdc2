#pragma once
/// \file
/// Desk rules (SPEC §1.2): validation, base and effective members, and resolving a desk
/// identity (an id, or a unique name) to its canonical id.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "thm/desks/types.hpp"
#include "thm/result.hpp"

namespace thm {

/// A desk with an empty id (exactly empty: desk ids are not trimmed).
struct EmptyDeskId {
  friend bool operator==(const EmptyDeskId&, const EmptyDeskId&) = default;
};
/// Desk `desk_id` has an empty name.
struct EmptyDeskName {
  std::string desk_id{};
  friend bool operator==(const EmptyDeskName&, const EmptyDeskName&) = default;
};
/// Two desks share the id `desk_id` (exact comparison).
struct DuplicateDeskId {
  std::string desk_id{};
  friend bool operator==(const DuplicateDeskId&, const DuplicateDeskId&) = default;
};
/// A desk other than the exact `General`/`General` desk uses a spelling of `general` or
/// `main` (ASCII case-insensitive) as its id or name; `identity` is the string as written.
struct ReservedDeskIdentity {
  std::string identity{};
  friend bool operator==(const ReservedDeskIdentity&, const ReservedDeskIdentity&) = default;
};
/// A membership row names `desk_id`, which is not a desk id (names are not accepted).
struct UnknownMemberDesk {
  std::string desk_id{};
  friend bool operator==(const UnknownMemberDesk&, const UnknownMemberDesk&) = default;
};
/// A stored order names `desk_id`, which is not a desk id.
struct UnknownOrderDesk {
  std::string desk_id{};
  friend bool operator==(const UnknownOrderDesk&, const UnknownOrderDesk&) = default;
};
/// Desk `desk_id` has more than one stored order.
struct DuplicateDeskOrder {
  std::string desk_id{};
  friend bool operator==(const DuplicateDeskOrder&, const DuplicateDeskOrder&) = default;
};
/// The order of `desk_id` lists `agent_id` twice.
struct DuplicateOrderMember {
  std::string desk_id{};
  std::string agent_id{};
  friend bool operator==(const DuplicateOrderMember&, const DuplicateOrderMember&) = default;
};
/// The order of `desk_id` lists `agent_id`, which is not a base member of the desk.
struct UnknownOrderMember {
  std::string desk_id{};
  std::string agent_id{};
  friend bool operator==(const UnknownOrderMember&, const UnknownOrderMember&) = default;
};
/// The order of `desk_id` leaves out base member `missing_agent_id` (the first one missing).
struct IncompleteOrder {
  std::string desk_id{};
  std::string missing_agent_id{};
  friend bool operator==(const IncompleteOrder&, const IncompleteOrder&) = default;
};
/// No desk has the id or the name `identity`.
struct UnknownDesk {
  std::string identity{};
  friend bool operator==(const UnknownDesk&, const UnknownDesk&) = default;
};
/// No desk has the id `identity`, and several desks have it as their name.
struct AmbiguousDesk {
  std::string identity{};
  friend bool operator==(const AmbiguousDesk&, const AmbiguousDesk&) = default;
};

/// A malformed desk snapshot, or an identity that names no single desk (SPEC §1.2).
using DeskError =
    std::variant<EmptyDeskId, EmptyDeskName, DuplicateDeskId, ReservedDeskIdentity,
                 UnknownMemberDesk, UnknownOrderDesk, DuplicateDeskOrder, DuplicateOrderMember,
                 UnknownOrderMember, IncompleteOrder, UnknownDesk, AmbiguousDesk>;

/// The error's variant name as the case files spell it, e.g. `"IncompleteOrder"`.
[[nodiscard]] std::string_view name(const DeskError& error) noexcept;
/// A lower-case message naming the offending desk or agent, without trailing punctuation.
[[nodiscard]] std::string to_string(const DeskError& error);

class DeskSet;

namespace detail {

/// Where a desk identity leads (SPEC §1.2 resolution): the desk, or none, and whether
/// several desks share it as their name.
struct DeskLookup {
  const Desk* desk = nullptr;
  bool ambiguous = false;
};

/// `DeskSet::resolve_id` on a set that validated, without validating again or allocating:
/// an exact id wins, else the one desk with exactly that name.
[[nodiscard]] DeskLookup find_desk(const DeskSet& desks, std::string_view identity) noexcept;

/// `DeskSet::members` of `desk` (one of the set's own) on a set that validated, as views
/// into the set's snapshots.
[[nodiscard]] std::vector<std::string_view> effective_members(const DeskSet& desks,
                                                              const Desk& desk);

}  // namespace detail

/// A read-only view over a host's desk snapshots (SPEC §1.2). It borrows its inputs: the
/// spans must outlive the view. It does not consult the roster: ids in desks need not be
/// on it, and consumers filter by the roster themselves. Desks iterate declared, then
/// added. Ids and names compare exactly (case-sensitive) everywhere except the reserved
/// General spellings.
class DeskSet {
 public:
  /// A view over desks, membership rows, orders and retired agent ids; no tombstoned ids.
  DeskSet(std::span<const Desk> declared, std::span<const Desk> added,
          std::span<const DeskMember> member_additions, std::span<const DeskOrder> orders,
          std::span<const std::string> retired) noexcept;
  /// A view over all six lists of `snapshot`, which must outlive the view.
  explicit DeskSet(const DeskSnapshot& snapshot) noexcept;
  /// A view of a temporary would dangle at once.
  explicit DeskSet(DeskSnapshot&&) = delete;

  /// This view with `tombstoned` as its tombstoned agent ids (SPEC §1.2, v2).
  [[nodiscard]] DeskSet with_tombstoned(std::span<const std::string> tombstoned) const noexcept;

  /// The first structural error in SPEC §1.2 order, or nothing: per desk (declared, then
  /// added) empty id, empty name, duplicate id, reserved spelling (id before name); then
  /// membership rows; then each order (unknown desk, second order, then its entries with
  /// retired and tombstoned ones skipped: duplicate, not a base member; then the first base
  /// member it leaves out).
  [[nodiscard]] std::optional<DeskError> validate() const;

  /// The canonical id of `identity` (SPEC §1.2): validates first; an exact id wins; else
  /// the one desk with exactly that name; none → `UnknownDesk`, several → `AmbiguousDesk`.
  [[nodiscard]] Result<std::string, DeskError> resolve_id(std::string_view identity) const;
  /// True when `resolve_id(identity)` succeeds.
  [[nodiscard]] bool contains(std::string_view identity) const;

  /// The effective members of the desk `identity` resolves to: its stored order with
  /// retired and tombstoned entries dropped, or, without an order, its base members
  /// (founding members, then membership rows, first appearance kept, retired and
  /// tombstoned skipped). Errors as `resolve_id`.
  [[nodiscard]] Result<std::vector<std::string>, DeskError> members(
      std::string_view identity) const;
  /// The first effective member, or nothing for a desk without members.
  [[nodiscard]] Result<std::optional<std::string>, DeskError> lead(std::string_view identity) const;

  /// The desk with exactly this id, or null (declared desks first).
  [[nodiscard]] const Desk* desk(std::string_view id) const noexcept;
  /// Every desk in iteration order: declared, then added (pointers into the borrowed lists).
  [[nodiscard]] std::vector<const Desk*> desks() const;
  /// True when `agent_id` is in the retired or the tombstoned list.
  [[nodiscard]] bool is_retired(std::string_view agent_id) const noexcept;

  /// The borrowed desk lists, in the order given.
  [[nodiscard]] std::span<const Desk> declared() const noexcept { return declared_; }
  [[nodiscard]] std::span<const Desk> added() const noexcept { return added_; }

 private:
  friend detail::DeskLookup detail::find_desk(const DeskSet&, std::string_view) noexcept;
  friend std::vector<std::string_view> detail::effective_members(const DeskSet&, const Desk&);

  [[nodiscard]] Result<const Desk*, DeskError> resolve(std::string_view identity) const;
  [[nodiscard]] std::vector<std::string_view> base_members(const Desk& desk) const;
  [[nodiscard]] const DeskOrder* order_of(std::string_view desk_id) const noexcept;

  std::span<const Desk> declared_;
  std::span<const Desk> added_;
  std::span<const DeskMember> member_additions_;
  std::span<const DeskOrder> orders_;
  std::span<const std::string> retired_;
  std::span<const std::string> tombstoned_;
};

}  // namespace thm
