#include "thm/dispatch/dispatch.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "thm/dispatch/shape.hpp"
#include "thm/team/snapshot_team.hpp"
#include "thm/trace/note.hpp"

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

// Notes one guard of SPEC §3.2: passed when it `held`, else stopped, `why` it stopped when the
// rule alone does not say.
template <class Note>
void note_guard(const Note& note, TraceRule rule, bool held,
                std::optional<TraceWhy> why = std::nullopt, std::string_view subject = {},
                std::optional<std::uint64_t> count = std::nullopt) {
  note([&] {
    return TraceStep{.rule = rule,
                     .outcome = held ? TraceOutcome::Passed : TraceOutcome::Stopped,
                     .why = held ? std::nullopt : why,
                     .subject = std::string(subject),
                     .count = count};
  });
}

// SPEC §3.2 steps 4 to 12, on a roster that validated.
template <class Team, class Note>
MentionDispatchDecision decide(const MentionDispatchPolicy& policy,
                               const MentionDispatchInput& input, const Team& team,
                               const Note& note) {
  const bool source_active = team.is_active(input.author_id);
  note_guard(note, TraceRule::Source, source_active, TraceWhy::Inactive, input.author_id);
  if (!source_active) return NoDispatch{NoDispatchReason::SourceInactive};
  const AgentTarget* target = first_direct_agent_mention(input.mentions);
  if constexpr (Note::kOn) detail::note_mentions(input.mentions, note, detail::mention_shape);
  note([&] {
    return TraceStep{.rule = TraceRule::Target,
                     .outcome = target != nullptr ? TraceOutcome::Applied : TraceOutcome::Stopped,
                     .subject = target != nullptr ? target->id : std::string()};
  });
  if (target == nullptr) return NoDispatch{NoDispatchReason::NoDirectAgentMention};
  note_guard(note, TraceRule::SelfMention, target->id != input.author_id);
  if (target->id == input.author_id) return NoDispatch{NoDispatchReason::SelfMention};
  if (policy.shapes_chains()) [[unlikely]] {  // off by default: one test of three fields
    if (const auto refusal =
            detail::shape_refusal(policy, input.chain, input.author_id, target->id, note)) {
      return NoDispatch{*refusal};
    }
  }
  const bool target_active = team.is_active(target->id);
  note_guard(note, TraceRule::TargetActive, target_active, TraceWhy::Inactive, target->id);
  if (!target_active) return NoDispatch{NoDispatchReason::TargetInactive};
  const bool fits = input.hop != std::numeric_limits<std::uint32_t>::max();
  note_guard(note, TraceRule::HopOverflow, fits);
  if (!fits) return NoDispatch{NoDispatchReason::HopOverflow};
  note([&] {
    return TraceStep{.rule = TraceRule::Dispatch,
                     .outcome = TraceOutcome::Applied,
                     .subject = target->id,
                     .count = std::uint64_t{input.hop} + 1};
  });
  return DispatchOne{MentionTurnRequest{
      .key = input.key,
      .source_id = input.author_id,
      .target_id = target->id,
      .content = input.content,
      .conversation = input.conversation,
      .child_hop = input.hop + 1,
  }};
}

// SPEC §3.2 steps 1 and 2, before the roster is read; then `rest()`, steps 3 to 12.
template <class Note, class Rest>
Result<MentionDispatchDecision, RosterError> after_policy(const MentionDispatchPolicy& policy,
                                                          const MentionDispatchInput& input,
                                                          const Note& note, const Rest& rest) {
  note_guard(note, TraceRule::Enabled, policy.enabled);
  if (!policy.enabled) return NoDispatch{NoDispatchReason::Disabled};
  note_guard(note, TraceRule::HopBudget, input.hop < policy.max_hops, std::nullopt, {}, input.hop);
  if (input.hop >= policy.max_hops) return NoDispatch{NoDispatchReason::HopLimitReached};
  return rest();
}

// SPEC §3.2 in order, on views of a roster that validates at step 3.
template <class Note>
Result<MentionDispatchDecision, RosterError> on_roster(const MentionDispatchPolicy& policy,
                                                       const MentionDispatchInput& input,
                                                       const Roster& roster, const Note& note) {
  return after_policy(policy, input, note, [&]() -> Result<MentionDispatchDecision, RosterError> {
    auto error = roster.validate();
    note([&] {
      return TraceStep{.rule = TraceRule::Validate,
                       .outcome = error ? TraceOutcome::Stopped : TraceOutcome::Passed,
                       .subject = error ? std::string(name(*error)) : std::string()};
    });
    if (error) return unexpected{*std::move(error)};
    return decide(policy, input, detail::SnapshotTeam(roster), note);
  });
}

// SPEC §3.2 in order, on a prepared team (step 3 was done when it was prepared).
template <class Note>
Result<MentionDispatchDecision, RosterError> on_team(const MentionDispatchPolicy& policy,
                                                     const MentionDispatchInput& input,
                                                     const Team& team, const Note& note) {
  return after_policy(policy, input, note, [&]() -> Result<MentionDispatchDecision, RosterError> {
    note([] { return TraceStep{.rule = TraceRule::Validate, .outcome = TraceOutcome::Passed}; });
    return decide(policy, input, team, note);
  });
}

}  // namespace

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Roster& roster) {
  return on_roster(policy, input, roster, detail::Untraced{});
}

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Team& team) {
  return on_team(policy, input, team, detail::Untraced{});
}

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Roster& roster,
                                                              DecisionTrace& trace) {
  return on_roster(policy, input, roster, detail::Traced{&trace});
}

Result<MentionDispatchDecision, RosterError> mention_dispatch(const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Team& team,
                                                              DecisionTrace& trace) {
  return on_team(policy, input, team, detail::Traced{&trace});
}

}  // namespace thm
