#pragma once
/// \file
/// Decision traces (SPEC §8): the steps `responder_plan`, `settle_selection` and
/// `mention_dispatch` took, in order, when the caller asks for them. How they read, for an
/// operator and for an agent, is `thm/explain/explain.hpp`.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"

namespace thm {

/// The rule of the spec a step looked at (SPEC §8.2). Wire: the snake_case token.
enum class TraceRule : std::uint8_t {
  Validate,            ///< §2.2 step 0, §3.2 step 3: the snapshots are well formed
  Mention,             ///< one mention, in reading order (§2.2 step 1, §3.2 step 5)
  ExplicitMention,     ///< §2.2 step 1
  ThreadResponder,     ///< §2.2 step 2: the agent that last answered in the thread
  Chat,                ///< §2.2 step 2: the chat is a General spelling
  Desk,                ///< §2.2 step 2.1: the chat as a desk identity
  DeskPlan,            ///< §2.3: the desk's active effective members and its mode
  SelectorCandidates,  ///< §2.3: the candidates of a `Select`
  DirectAgent,         ///< §2.2 step 2.2
  Orchestrator,        ///< §2.2 step 3
  Plan,                ///< §2.6: a `Decided` plan is its own decision
  Selector,            ///< §2.6: what the host's selector produced
  AcceptSelection,     ///< §2.5
  AcceptEvaluation,    ///< §2.6 [v3]
  Fallback,            ///< §2.6: the desk default
  Enabled,             ///< §3.2 step 1
  HopBudget,           ///< §3.2 step 2
  Source,              ///< §3.2 step 4
  Target,              ///< §3.2 step 5
  SelfMention,         ///< §3.2 step 6
  NoReturn,            ///< §3.2 step 7: not straight back to the previous reply's author
  AgentTurns,          ///< §3.2 step 8: the target's turns in the chain under its budget
  Handoff,             ///< §3.2 step 9: the pair is an allowed hand-off
  TargetActive,        ///< §3.2 step 10
  HopOverflow,         ///< §3.2 step 11
  Dispatch,            ///< §3.2 step 12
};

/// What became of a rule (SPEC §8.2). Wire: the snake_case token.
enum class TraceOutcome : std::uint8_t {
  Applied,  ///< it decided (for a mention: this one was chosen)
  Passed,   ///< a guard held; the evaluation goes on
  Skipped,  ///< it did not apply; the evaluation goes on
  Stopped,  ///< the evaluation ends here: a refusal or an error
};

/// Why a step came out as it did, when its rule and outcome alone do not say (SPEC §8.2).
/// Wire: the snake_case token.
enum class TraceWhy : std::uint8_t {
  Quiet,                   ///< a quiet mention (a repeat, past the cap, or authored so)
  Person,                  ///< a mention of a person
  Desk,                    ///< a mention of a desk
  Everyone,                ///< `@everyone`, `@channel`, `@here`
  Inactive,                ///< an agent that is unknown, retired or tombstoned
  General,                 ///< the chat is General: no desk or direct agent is tried
  Unknown,                 ///< the chat is no desk's id or name
  Ambiguous,               ///< the chat is the name of several desks
  NoActiveMember,          ///< the desk has no active effective member
  Lead,                    ///< the desk is in `Lead` mode
  OneMember,               ///< the desk has exactly one active effective member
  SelectionDisabled,       ///< the host's selection policy is `Disabled`
  SelectorAsked,           ///< `Auto` mode with two or more members: a selector is asked
  DuplicateDetail,         ///< two selector details name one candidate
  Id,                      ///< the chat (less `dm:`) is an active member's id
  Name,                    ///< ... or the one active member's name
  NoMatch,                 ///< no active member by id, and not exactly one by name
  Absent,                  ///< the host has no selector
  Failed,                  ///< the host's selector failed or timed out
  Text,                    ///< the selector answered in text
  Evaluation,              ///< the selector answered with a typed evaluation
  Empty,                   ///< the text is empty once normalized
  NoCandidate,             ///< the text names no candidate
  SeveralCandidates,       ///< the text names several candidates (ASCII case folded)
  InvalidConfidence,       ///< a confidence over the scale
  BelowMinimumConfidence,  ///< confidence under the host's minimum
  EntryCount,              ///< not one probability entry per candidate
  NotOneEntry,             ///< a candidate has no entry, or several
  InvalidProbability,      ///< an entry over the scale
  ChoiceNotCandidate,      ///< `choice` is no candidate's id
  SumNotScale,             ///< the entries do not sum to exactly 1 000 000
  MoreProbableEntry,       ///< an entry is more probable than the choice
  Unavailable,             ///< fallback disposition: no selector answer
  InvalidOutput,           ///< fallback disposition: the answer was rejected
};

/// One step of a decision (SPEC §8.2). `why` is empty when the rule and outcome say it all
/// (wire: `null`). `subject` is what the step was about, by the rule:
/// a mention's text, a desk, agent or candidate id, a normalized selector answer, or a
/// validation error's name; empty when there is none. `offset` is a mention's byte offset;
/// `count` is the number the rule turned on: a desk plan's active members, a `Select`'s
/// candidates, the hop, a target's turns in the chain, or a dispatch's child hop.
struct TraceStep {
  TraceRule rule = TraceRule::Validate;
  TraceOutcome outcome = TraceOutcome::Passed;
  std::optional<TraceWhy> why{};
  std::string subject{};
  std::optional<std::uint64_t> offset{};
  std::optional<std::uint64_t> count{};
  friend bool operator==(const TraceStep&, const TraceStep&) = default;
};

/// The steps of one decision, in the order they were taken (SPEC §8). The decision
/// functions append to it, so one trace may hold a plan and then its settling.
using DecisionTrace = std::vector<TraceStep>;

/// Every `TraceRule`, in declaration order.
inline constexpr std::array kAllTraceRules{
    TraceRule::Validate,
    TraceRule::Mention,
    TraceRule::ExplicitMention,
    TraceRule::ThreadResponder,
    TraceRule::Chat,
    TraceRule::Desk,
    TraceRule::DeskPlan,
    TraceRule::SelectorCandidates,
    TraceRule::DirectAgent,
    TraceRule::Orchestrator,
    TraceRule::Plan,
    TraceRule::Selector,
    TraceRule::AcceptSelection,
    TraceRule::AcceptEvaluation,
    TraceRule::Fallback,
    TraceRule::Enabled,
    TraceRule::HopBudget,
    TraceRule::Source,
    TraceRule::Target,
    TraceRule::SelfMention,
    TraceRule::NoReturn,
    TraceRule::AgentTurns,
    TraceRule::Handoff,
    TraceRule::TargetActive,
    TraceRule::HopOverflow,
    TraceRule::Dispatch,
};
/// Every `TraceOutcome`, in declaration order.
inline constexpr std::array kAllTraceOutcomes{TraceOutcome::Applied, TraceOutcome::Passed,
                                              TraceOutcome::Skipped, TraceOutcome::Stopped};
/// Every `TraceWhy`, in declaration order.
inline constexpr std::array kAllTraceWhys{
    TraceWhy::Quiet,
    TraceWhy::Person,
    TraceWhy::Desk,
    TraceWhy::Everyone,
    TraceWhy::Inactive,
    TraceWhy::General,
    TraceWhy::Unknown,
    TraceWhy::Ambiguous,
    TraceWhy::NoActiveMember,
    TraceWhy::Lead,
    TraceWhy::OneMember,
    TraceWhy::SelectionDisabled,
    TraceWhy::SelectorAsked,
    TraceWhy::DuplicateDetail,
    TraceWhy::Id,
    TraceWhy::Name,
    TraceWhy::NoMatch,
    TraceWhy::Absent,
    TraceWhy::Failed,
    TraceWhy::Text,
    TraceWhy::Evaluation,
    TraceWhy::Empty,
    TraceWhy::NoCandidate,
    TraceWhy::SeveralCandidates,
    TraceWhy::InvalidConfidence,
    TraceWhy::BelowMinimumConfidence,
    TraceWhy::EntryCount,
    TraceWhy::NotOneEntry,
    TraceWhy::InvalidProbability,
    TraceWhy::ChoiceNotCandidate,
    TraceWhy::SumNotScale,
    TraceWhy::MoreProbableEntry,
    TraceWhy::Unavailable,
    TraceWhy::InvalidOutput,
};

/// The wire token of `rule`, e.g. `desk_plan`.
[[nodiscard]] std::string_view name(TraceRule rule) noexcept;
/// The wire token of `outcome`, e.g. `skipped`.
[[nodiscard]] std::string_view name(TraceOutcome outcome) noexcept;
/// The wire token of `why`, e.g. `no_active_member`.
[[nodiscard]] std::string_view name(TraceWhy why) noexcept;

/// The rule whose wire token is `token`, or nothing.
[[nodiscard]] inline std::optional<TraceRule> trace_rule_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllTraceRules);
}
/// The outcome whose wire token is `token`, or nothing.
[[nodiscard]] inline std::optional<TraceOutcome> trace_outcome_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllTraceOutcomes);
}
/// The why whose wire token is `token`, or nothing.
[[nodiscard]] inline std::optional<TraceWhy> trace_why_from_name(std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllTraceWhys);
}

}  // namespace thm
