#include "thm/dispatch/dispatch.hpp"

#include <limits>

#include "thm/team/snapshot_team.hpp"

namespace thm {
namespace {

// SPEC §3.2 step 5: the first direct agent mention in reading order.
const AgentTarget* first_direct_agent_mention(const std::vector<Mention>& mentions) noexcept {
  const Mention* first = nullptr;
  for (const Mention& mention : mentions) {
    if (mention.quiet || !std::holds_alternative<AgentTarget>(mention.target)) continue;
    if (first == nullptr || mention.offset < first->offset) first = &mention;
  }
  return first == nullptr ? nullptr : std::get_if<AgentTarget>(&first->target);
}

// SPEC §3.2 steps 4 to 9, on a roster that validated.
template <class Team>
MentionDispatchDecision decide(const MentionDispatchInput& input, const Team& team) {
  if (!team.is_active(input.author_id)) return NoDispatch{NoDispatchReason::SourceInactive};
  const AgentTarget* target = first_direct_agent_mention(input.mentions);
  if (target == nullptr) return NoDispatch{NoDispatchReason::NoDirectAgentMention};
  if (target->id == input.author_id) return NoDispatch{NoDispatchReason::SelfMention};
  if (!team.is_active(target->id)) return NoDispatch{NoDispatchReason::TargetInactive};
  if (input.hop == std::numeric_limits<std::uint32_t>::max()) {
    return NoDispatch{NoDispatchReason::HopOverflow};
  }
  return DispatchOne{MentionTurnRequest{
      .key = input.key,
      .source_id = input.author_id,
      .target_id = target->id,
      .content = input.content,
      .conversation = input.conversation,
      .child_hop = input.hop + 1,
  }};
}

}  // namespace

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Roster& roster) {
  if (!policy.enabled) return NoDispatch{NoDispatchReason::Disabled};
  if (input.hop >= policy.max_hops) return NoDispatch{NoDispatchReason::HopLimitReached};
  if (auto error = roster.validate()) return unexpected{*std::move(error)};
  return decide(input, detail::SnapshotTeam(roster));
}

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Team& team) {
  if (!policy.enabled) return NoDispatch{NoDispatchReason::Disabled};
  if (input.hop >= policy.max_hops) return NoDispatch{NoDispatchReason::HopLimitReached};
  return decide(input, team);
}

}  // namespace thm
