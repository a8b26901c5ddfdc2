#pragma once
/// \file
/// `mention_dispatch` (SPEC §3.2): may one committed agent reply start exactly one more
/// agent turn?

#include "thm/dispatch/types.hpp"
#include "thm/result.hpp"
#include "thm/roster/roster.hpp"
#include "thm/team/team.hpp"
#include "thm/trace/trace.hpp"

namespace thm {

/// Decides whether the committed reply `input` starts a child turn (SPEC §3.2); first
/// match wins:
///  1. `!policy.enabled` → `NoDispatch{Disabled}` (before the roster is validated);
///  2. `input.hop >= policy.max_hops` → `NoDispatch{HopLimitReached}` (also before
///     validation, so `max_hops == 0` always stops);
///  3. a malformed roster → the `RosterError` (an error, not a reason);
///  4. author not an active member → `SourceInactive`;
///  5. the non-quiet `Agent` mention with the smallest `offset` (ties: earliest in the
///     list) is the target; none → `NoDirectAgentMention` (person, desk, everyone and
///     quiet mentions never count; mentions are used as given);
///  6. target == author → `SelfMention`, failing closed: a later mention is never tried;
///  7.–9. the chain's shape, each rule only when the policy turns it on: the target is the
///     previous reply's author (`no_return`) → `ImmediateReturn`; it has taken
///     `max_turns_per_agent` turns of `input.chain` → `AgentTurnsSpent`; (author, target)
///     is not in `allowed_handoffs` → `HandoffNotAllowed`;
/// 10. target not active → `TargetInactive`, again failing closed;
/// 11. `hop + 1` overflows u32 → `HopOverflow` (unreachable after step 2);
/// 12. otherwise `DispatchOne` with key, content and conversation verbatim and
///     `child_hop = hop + 1`.
/// The policy, `hop` and `chain` are not authenticated (SPEC §3.5). Pure; never throws.
[[nodiscard]] Result<MentionDispatchDecision, RosterError> mention_dispatch(
    const MentionDispatchPolicy& policy, const MentionDispatchInput& input, const Roster& roster);

/// `mention_dispatch` on a prepared team (adr/0016): the same decision, with step 3 done
/// when the team was prepared, so it never returns an error. Allocates nothing but a
/// `DispatchOne`'s own request.
[[nodiscard]] Result<MentionDispatchDecision, RosterError> mention_dispatch(
    const MentionDispatchPolicy& policy, const MentionDispatchInput& input, const Team& team);

/// `mention_dispatch`, explained (SPEC §8): the same decision or error, and its steps
/// appended to `trace`, one per step of §3.2 reached (`enabled`, `hop_budget`, `validate`,
/// `source`, the mentions read, `target`, `self_mention`, the shape rules that are on
/// (`no_return`, `agent_turns`, `handoff`), `target_active`, `hop_overflow`, `dispatch`); the
/// refusal is the step that stopped.
[[nodiscard]] Result<MentionDispatchDecision, RosterError> mention_dispatch(
    const MentionDispatchPolicy& policy, const MentionDispatchInput& input, const Roster& roster,
    DecisionTrace& trace);

/// `mention_dispatch` on a prepared team, explained (SPEC §8); its `validate` step passes.
[[nodiscard]] Result<MentionDispatchDecision, RosterError> mention_dispatch(
    const MentionDispatchPolicy& policy, const MentionDispatchInput& input, const Team& team,
    DecisionTrace& trace);

}  // namespace thm
