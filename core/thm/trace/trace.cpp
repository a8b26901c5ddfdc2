#include "thm/trace/trace.hpp"

#include <string_view>

namespace thm {

std::string_view name(TraceRule rule) noexcept {
  switch (rule) {
    case TraceRule::Validate:
      return "validate";
    case TraceRule::Mention:
      return "mention";
    case TraceRule::ExplicitMention:
      return "explicit_mention";
    case TraceRule::ThreadResponder:
      return "thread_responder";
    case TraceRule::Chat:
      return "chat";
    case TraceRule::Desk:
      return "desk";
    case TraceRule::DeskPlan:
      return "desk_plan";
    case TraceRule::SelectorCandidates:
      return "selector_candidates";
    case TraceRule::DirectAgent:
      return "direct_agent";
    case TraceRule::Orchestrator:
      return "orchestrator";
    case TraceRule::Plan:
      return "plan";
    case TraceRule::Selector:
      return "selector";
    case TraceRule::AcceptSelection:
      return "accept_selection";
    case TraceRule::AcceptEvaluation:
      return "accept_evaluation";
    case TraceRule::Fallback:
      return "fallback";
    case TraceRule::Enabled:
      return "enabled";
    case TraceRule::HopBudget:
      return "hop_budget";
    case TraceRule::Source:
      return "source";
    case TraceRule::Target:
      return "target";
    case TraceRule::SelfMention:
      return "self_mention";
    case TraceRule::NoReturn:
      return "no_return";
    case TraceRule::AgentTurns:
      return "agent_turns";
    case TraceRule::Handoff:
      return "handoff";
    case TraceRule::TargetActive:
      return "target_active";
    case TraceRule::HopOverflow:
      return "hop_overflow";
    case TraceRule::Dispatch:
      return "dispatch";
  }
  detail::unreachable();
}

std::string_view name(TraceOutcome outcome) noexcept {
  switch (outcome) {
    case TraceOutcome::Applied:
      return "applied";
    case TraceOutcome::Passed:
      return "passed";
    case TraceOutcome::Skipped:
      return "skipped";
    case TraceOutcome::Stopped:
      return "stopped";
  }
  detail::unreachable();
}

std::string_view name(TraceWhy why) noexcept {
  switch (why) {
    case TraceWhy::Quiet:
      return "quiet";
    case TraceWhy::Person:
      return "person";
    case TraceWhy::Desk:
      return "desk";
    case TraceWhy::Everyone:
      return "everyone";
    case TraceWhy::Inactive:
      return "inactive";
    case TraceWhy::General:
      return "general";
    case TraceWhy::Unknown:
      return "unknown";
    case TraceWhy::Ambiguous:
      return "ambiguous";
    case TraceWhy::NoActiveMember:
      return "no_active_member";
    case TraceWhy::Lead:
      return "lead";
    case TraceWhy::OneMember:
      return "one_member";
    case TraceWhy::SelectionDisabled:
      return "selection_disabled";
    case TraceWhy::SelectorAsked:
      return "selector_asked";
    case TraceWhy::DuplicateDetail:
      return "duplicate_detail";
    case TraceWhy::Id:
      return "id";
    case TraceWhy::Name:
      return "name";
    case TraceWhy::NoMatch:
      return "no_match";
    case TraceWhy::Absent:
      return "absent";
    case TraceWhy::Failed:
      return "failed";
    case TraceWhy::Text:
      return "text";
    case TraceWhy::Evaluation:
      return "evaluation";
    case TraceWhy::Empty:
      return "empty";
    case TraceWhy::NoCandidate:
      return "no_candidate";
    case TraceWhy::SeveralCandidates:
      return "several_candidates";
    case TraceWhy::InvalidConfidence:
      return "invalid_confidence";
    case TraceWhy::BelowMinimumConfidence:
      return "below_minimum_confidence";
    case TraceWhy::EntryCount:
      return "entry_count";
    case TraceWhy::NotOneEntry:
      return "not_one_entry";
    case TraceWhy::InvalidProbability:
      return "invalid_probability";
    case TraceWhy::ChoiceNotCandidate:
      return "choice_not_candidate";
    case TraceWhy::SumNotScale:
      return "sum_not_scale";
    case TraceWhy::MoreProbableEntry:
      return "more_probable_entry";
    case TraceWhy::Unavailable:
      return "unavailable";
    case TraceWhy::InvalidOutput:
      return "invalid_output";
  }
  detail::unreachable();
}
}  // namespace thm
