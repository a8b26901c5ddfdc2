#include "thm/desks/desks.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "thm/chat/chat.hpp"
#include "thm/detail/repeats.hpp"
#include "thm/overloaded.hpp"

namespace thm {
namespace {

// SPEC §1.2: `general` or `main` in any ASCII case, i.e. a non-empty General spelling.
bool is_reserved(std::string_view identity) noexcept {
  return !identity.empty() && is_general_chat(identity);
}

bool in_list(std::span<const std::string> ids, std::string_view id) noexcept {
  return std::ranges::find(ids, id) != ids.end();
}

}  // namespace

std::string_view name(const DeskError& error) noexcept {
  return std::visit(overloaded{
                        [](const EmptyDeskId&) { return "EmptyDeskId"; },
                        [](const EmptyDeskName&) { return "EmptyDeskName"; },
                        [](const DuplicateDeskId&) { return "DuplicateDeskId"; },
                        [](const ReservedDeskIdentity&) { return "ReservedDeskIdentity"; },
                        [](const UnknownMemberDesk&) { return "UnknownMemberDesk"; },
                        [](const UnknownOrderDesk&) { return "UnknownOrderDesk"; },
                        [](const DuplicateDeskOrder&) { return "DuplicateDeskOrder"; },
                        [](const DuplicateOrderMember&) { return "DuplicateOrderMember"; },
                        [](const UnknownOrderMember&) { return "UnknownOrderMember"; },
                        [](const IncompleteOrder&) { return "IncompleteOrder"; },
                        [](const UnknownDesk&) { return "UnknownDesk"; },
                        [](const AmbiguousDesk&) { return "AmbiguousDesk"; },
                    },
                    error);
}

std::string to_string(const DeskError& error) {
  using std::string;
  return std::visit(
      overloaded{
          [](const EmptyDeskId&) -> string { return "a desk has an empty id"; },
          [](const EmptyDeskName& e) -> string {
            return "desk " + e.desk_id + " has an empty name";
          },
          [](const DuplicateDeskId& e) -> string {
            return "desk id " + e.desk_id + " appears more than once";
          },
          [](const ReservedDeskIdentity& e) -> string {
            return "desk identity " + e.identity + " is reserved for the general desk";
          },
          [](const UnknownMemberDesk& e) -> string {
            return "a membership row names desk " + e.desk_id + ", which does not exist";
          },
          [](const UnknownOrderDesk& e) -> string {
            return "a member order names desk " + e.desk_id + ", which does not exist";
          },
          [](const DuplicateDeskOrder& e) -> string {
            return "desk " + e.desk_id + " has more than one member order";
          },
          [](const DuplicateOrderMember& e) -> string {
            return "the member order of desk " + e.desk_id + " lists " + e.agent_id + " twice";
          },
          [](const UnknownOrderMember& e) -> string {
            return "the member order of desk " + e.desk_id + " lists " + e.agent_id +
                   ", who is not a member";
          },
          [](const IncompleteOrder& e) -> string {
            return "the member order of desk " + e.desk_id + " leaves out " + e.missing_agent_id;
          },
          [](const UnknownDesk& e) -> string { return "no desk is called " + e.identity; },
          [](const AmbiguousDesk& e) -> string {
            return "more than one desk is called " + e.identity;
          },
      },
      error);
}

DeskSet::DeskSet(std::span<const Desk> declared, std::span<const Desk> added,
                 std::span<const DeskMember> member_additions, std::span<const DeskOrder> orders,
                 std::span<const std::string> retired) noexcept
    : declared_(declared),
      added_(added),
      member_additions_(member_additions),
      orders_(orders),
      retired_(retired) {}

DeskSet::DeskSet(const DeskSnapshot& snapshot) noexcept
    : declared_(snapshot.declared),
      added_(snapshot.added),
      member_additions_(snapshot.member_additions),
      orders_(snapshot.orders),
      retired_(snapshot.retired),
      tombstoned_(snapshot.tombstoned) {}

DeskSet DeskSet::with_tombstoned(std::span<const std::string> tombstoned) const noexcept {
  DeskSet copy = *this;
  copy.tombstoned_ = tombstoned;
  return copy;
}

bool DeskSet::is_retired(std::string_view agent_id) const noexcept {
  return in_list(retired_, agent_id) || in_list(tombstoned_, agent_id);
}

std::vector<const Desk*> DeskSet::desks() const {
  std::vector<const Desk*> all;
  all.reserve(declared_.size() + added_.size());
  for (const Desk& d : declared_) all.push_back(&d);
  for (const Desk& d : added_) all.push_back(&d);
  return all;
}

const Desk* DeskSet::desk(std::string_view id) const noexcept {
  for (const auto list : {declared_, added_}) {
    const auto found = std::ranges::find(list, id, &Desk::id);
    if (found != list.end()) return &*found;
  }
  return nullptr;
}

const DeskOrder* DeskSet::order_of(std::string_view desk_id) const noexcept {
  const auto found = std::ranges::find(orders_, desk_id, &DeskOrder::desk_id);
  return found == orders_.end() ? nullptr : &*found;
}

std::vector<std::string_view> DeskSet::base_members(const Desk& d) const {
  std::vector<std::string_view> base;
  // First appearance kept. While few are kept, look back through `base` (no allocation);
  // past detail::kPairwiseRepeatLimit switch to a set of the kept ids, to stay linear.
  std::unordered_set<std::string_view> seen;
  const auto is_new = [&](std::string_view agent_id) {
    if (seen.empty() && base.size() < detail::kPairwiseRepeatLimit) {
      return std::ranges::find(base, agent_id) == base.end();
    }
    if (seen.empty()) seen.insert(base.begin(), base.end());
    return seen.insert(agent_id).second;
  };
  const auto consider = [&](std::string_view agent_id) {
    if (is_retired(agent_id) || !is_new(agent_id)) return;
    base.push_back(agent_id);
  };
  for (const std::string& agent_id : d.members) consider(agent_id);
  for (const DeskMember& row : member_additions_) {
    if (row.desk_id == d.id) consider(row.agent_id);
  }
  return base;
}

std::optional<DeskError> DeskSet::validate() const {
  // Declared desks, then added ones, indexed together without building a list.
  const std::size_t desk_count = declared_.size() + added_.size();
  const auto desk_at = [this](std::size_t i) -> const Desk& {
    return i < declared_.size() ? declared_[i] : added_[i - declared_.size()];
  };
  // The first desk whose id an earlier desk has: the DuplicateDeskId, in its turn below.
  const std::size_t repeat = detail::first_repeat(
      desk_count, [&](std::size_t i) -> std::string_view { return desk_at(i).id; });
  for (std::size_t i = 0; i < desk_count; ++i) {
    const Desk* d = &desk_at(i);
    if (d->id.empty()) return EmptyDeskId{};
    if (d->name.empty()) return EmptyDeskName{.desk_id = d->id};
    if (i == repeat) return DuplicateDeskId{.desk_id = d->id};
    const bool general_desk = d->id == kGeneralDesk && d->name == kGeneralDesk;
    if (!general_desk && is_reserved(d->id)) return ReservedDeskIdentity{.identity = d->id};
    if (!general_desk && is_reserved(d->name)) return ReservedDeskIdentity{.identity = d->name};
  }
  // Nothing refers to a desk: no need to index them (the common case allocates nothing).
  if (member_additions_.empty() && orders_.empty()) return std::nullopt;
  std::unordered_map<std::string_view, const Desk*> by_id;  // the ids are distinct by now
  for (std::size_t i = 0; i < desk_count; ++i) by_id.emplace(desk_at(i).id, &desk_at(i));
  for (const DeskMember& row : member_additions_) {
    if (!by_id.contains(row.desk_id)) return UnknownMemberDesk{.desk_id = row.desk_id};
  }
  std::unordered_set<std::string_view> ordered_desks;
  for (const DeskOrder& order : orders_) {
    const auto found = by_id.find(order.desk_id);
    if (found == by_id.end()) return UnknownOrderDesk{.desk_id = order.desk_id};
    const Desk* d = found->second;
    if (!ordered_desks.insert(order.desk_id).second) {
      return DuplicateDeskOrder{.desk_id = order.desk_id};
    }
    const std::vector<std::string_view> base = base_members(*d);
    const std::unordered_set<std::string_view> members(base.begin(), base.end());
    std::unordered_set<std::string_view> covered;
    for (const std::string& agent_id : order.ordered) {
      if (is_retired(agent_id)) continue;  // [v2]: stale entries are skipped, never errors
      if (!covered.insert(agent_id).second) {
        return DuplicateOrderMember{.desk_id = order.desk_id, .agent_id = agent_id};
      }
      if (!members.contains(agent_id)) {
        return UnknownOrderMember{.desk_id = order.desk_id, .agent_id = agent_id};
      }
    }
    for (const std::string_view agent_id : base) {
      if (!covered.contains(agent_id)) {
        return IncompleteOrder{.desk_id = order.desk_id, .missing_agent_id = std::string(agent_id)};
      }
    }
  }
  return std::nullopt;
}

namespace detail {

DeskLookup find_desk(const DeskSet& desks, std::string_view identity) noexcept {
  if (const Desk* exact = desks.desk(identity)) return {.desk = exact};
  DeskLookup named;
  for (const auto list : {desks.declared_, desks.added_}) {
    for (const Desk& d : list) {
      if (d.name != identity) continue;
      if (named.desk != nullptr) return {.ambiguous = true};
      named.desk = &d;
    }
  }
  return named;
}

std::vector<std::string_view> effective_members(const DeskSet& desks, const Desk& desk) {
  if (const DeskOrder* order = desks.order_of(desk.id)) {
    std::vector<std::string_view> ordered;
    for (const std::string& agent_id : order->ordered) {
      if (!desks.is_retired(agent_id)) ordered.push_back(agent_id);
    }
    return ordered;
  }
  return desks.base_members(desk);
}

}  // namespace detail

Result<const Desk*, DeskError> DeskSet::resolve(std::string_view identity) const {
  if (auto error = validate()) return unexpected{*std::move(error)};
  const detail::DeskLookup found = detail::find_desk(*this, identity);
  if (found.ambiguous) {
    return unexpected{DeskError{AmbiguousDesk{.identity = std::string(identity)}}};
  }
  if (found.desk == nullptr) {
    return unexpected{DeskError{UnknownDesk{.identity = std::string(identity)}}};
  }
  return found.desk;
}

Result<std::string, DeskError> DeskSet::resolve_id(std::string_view identity) const {
  auto found = resolve(identity);
  if (!found.has_value()) return unexpected{std::move(found).error()};
  return (*found)->id;
}

bool DeskSet::contains(std::string_view identity) const { return resolve(identity).has_value(); }

Result<std::vector<std::string>, DeskError> DeskSet::members(std::string_view identity) const {
  auto found = resolve(identity);
  if (!found.has_value()) return unexpected{std::move(found).error()};
  const std::vector<std::string_view> members = detail::effective_members(*this, **found);
  return std::vector<std::string>(members.begin(), members.end());
}

Result<std::optional<std::string>, DeskError> DeskSet::lead(std::string_view identity) const {
  auto all = members(identity);
  if (!all.has_value()) return unexpected{std::move(all).error()};
  if (all->empty()) return std::optional<std::string>{};
  return std::optional<std::string>{std::move(all->front())};
}

}  // namespace thm
