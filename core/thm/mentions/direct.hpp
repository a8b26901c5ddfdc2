#pragma once
/// \file
/// `direct_responder` (SPEC §1.5 consumers) on any validated team, a `Team` or the
/// `detail::SnapshotTeam` of one call (internal): shared by `direct_responder` and the
/// explicit-mention rung of `responder_plan`.

#include <optional>
#include <span>
#include <string>
#include <variant>

#include "thm/mentions/types.hpp"

namespace thm::detail {

/// The first mention in offset order (ties: list order) that is not quiet, names an agent,
/// and that agent is active on `team`. A mention at or after the best offset so far cannot
/// replace it, so its activity is not looked up.
template <class Team>
[[nodiscard]] std::optional<std::string> first_direct_responder(std::span<const Mention> mentions,
                                                                const Team& team) {
  const Mention* first = nullptr;
  for (const Mention& mention : mentions) {
    if (first != nullptr && mention.offset >= first->offset) continue;
    const auto* agent = std::get_if<AgentTarget>(&mention.target);
    if (mention.quiet || agent == nullptr || !team.is_active(agent->id)) continue;
    first = &mention;
  }
  if (first == nullptr) return std::nullopt;
  return std::get<AgentTarget>(first->target).id;
}

}  // namespace thm::detail
