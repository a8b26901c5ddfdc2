#include "thm/explain/explain.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "thm/dispatch/types.hpp"
#include "thm/responder/types.hpp"

namespace thm {

namespace {

// A wire token as words: `no_active_member` → `no active member`.
std::string words(std::string_view token) {
  std::string out(token);
  for (char& c : out) {
    if (c == '_') c = ' ';
  }
  return out;
}

// A step's why as words, or "" when it has none.
std::string why_words(const TraceStep& step) {
  return step.why ? words(name(*step.why)) : std::string();
}

// Host text as one line a terminal shows as written (SPEC §8.3): a backslash, and every
// control character (C0, DEL) as a C escape (`\n`, `\t`, `\x1b`); with `quote`, `"` too.
// UTF-8 above ASCII is kept.
std::string printable(std::string_view text, bool quote = false) {
  constexpr std::string_view kHex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || (quote && c == '"')) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string quoted(std::string_view text) { return "\"" + printable(text, true) + "\""; }

// A `Mention` step's line: the mention, where it is, and whether it was chosen.
std::string mention_line(const TraceStep& step, const std::string& subject) {
  std::string line = "mention " + subject + " at byte " +
                     (step.offset ? std::to_string(*step.offset) : std::string("?"));
  return step.outcome == TraceOutcome::Applied ? line + ": chosen"
                                               : line + ": skipped, " + why_words(step);
}

// A `Desk` step's line: the desk the chat is, or why the chat is none.
std::string desk_line(const TraceStep& step, const std::string& subject) {
  if (step.outcome == TraceOutcome::Applied) return "desk: the chat is desk " + subject;
  if (step.why == TraceWhy::Ambiguous) {
    return "desk: " + quoted(step.subject) + " names several desks, so the orchestrator answers";
  }
  return "desk: " + quoted(step.subject) + " is no desk";
}

// A `DeskPlan` step's line: how many members the desk has, and who answers.
std::string desk_plan_line(const TraceStep& step, const std::string& subject,
                           const std::string& count) {
  const std::string members =
      "desk plan: " + count + " active effective member" + (step.count == 1 ? "" : "s");
  if (step.why == TraceWhy::NoActiveMember) return members + ", so the orchestrator answers";
  if (step.why == TraceWhy::SelectorAsked) {
    return members + ", auto mode: a selector is asked, " + subject + " if it cannot answer";
  }
  return members + ", " + why_words(step) + ": " + subject + " answers";
}

std::string operator_line(const TraceStep& step) {
  const std::string subject = printable(step.subject);
  const std::string count = step.count ? std::to_string(*step.count) : std::string("?");
  const bool applied = step.outcome == TraceOutcome::Applied;
  const bool passed = step.outcome == TraceOutcome::Passed;
  switch (step.rule) {
    case TraceRule::Validate:
      return passed ? "validate: the snapshots are well formed"
                    : "validate: the snapshots are malformed, " + subject;
    case TraceRule::Mention:
      return mention_line(step, subject);
    case TraceRule::ExplicitMention:
      return applied ? "explicit mention: " + subject + " answers"
                     : "explicit mention: no mention names an active agent";
    case TraceRule::Chat:
      return "chat " + (subject.empty() ? std::string("(none)") : quoted(step.subject)) +
             ": General, so no desk or direct agent is tried";
    case TraceRule::Desk:
      return desk_line(step, subject);
    case TraceRule::DeskPlan:
      return desk_plan_line(step, subject, count);
    case TraceRule::SelectorCandidates:
      return applied ? "selector candidates: " + count
                     : "selector candidates: two details name " + subject;
    case TraceRule::DirectAgent:
      if (!applied) return "direct agent: no active member is " + quoted(step.subject);
      return "direct agent: " + subject + " answers, by its " + why_words(step);
    case TraceRule::Orchestrator:
      return applied ? "orchestrator: " + subject + " answers"
                     : "orchestrator: " + subject + " is not an active member, so no one answers";
    case TraceRule::Plan:
      return "plan: decided without a selector, " + subject + " answers";
    case TraceRule::Selector:
      return "selector: " + why_words(step);
    case TraceRule::AcceptSelection:
      return applied
                 ? "accept selection: " + subject + " accepted"
                 : "accept selection: " + quoted(step.subject) + " rejected, " + why_words(step);
    case TraceRule::AcceptEvaluation:
      if (applied) return "accept evaluation: " + subject + " accepted";
      return "accept evaluation: rejected, " + why_words(step) +
             (subject.empty() ? std::string() : " (" + subject + ")");
    case TraceRule::Fallback:
      return "fallback: " + subject + " answers, " + why_words(step);
    case TraceRule::Enabled:
      return passed ? "enabled: dispatch is on" : "enabled: dispatch is off";
    case TraceRule::HopBudget:
      return passed ? "hop budget: hop " + count + " is under max_hops"
                    : "hop budget: hop " + count + " has reached max_hops";
    case TraceRule::Source:
      return passed ? "source: " + subject + " is active"
                    : "source: " + subject + " is not an active member";
    case TraceRule::Target:
      return applied ? "target: " + subject : "target: no direct agent mention";
    case TraceRule::SelfMention:
      return passed ? "self mention: the target is not the author"
                    : "self mention: the first direct agent mention is the author, so "
                      "dispatch fails closed";
    case TraceRule::TargetActive:
      return passed ? "target active: " + subject + " is active"
                    : "target active: " + subject +
                          " is not an active member, so dispatch fails closed";
    case TraceRule::HopOverflow:
      return passed ? "hop overflow: the child hop fits" : "hop overflow: hop + 1 overflows";
    case TraceRule::Dispatch:
      return "dispatch: one child turn for " + subject + " at hop " + count;
  }
  detail::unreachable();
}

// SPEC §8.4: the rules on what the caller already holds, rendered while nothing else has
// been looked at; and `Validate`, which says nothing of anyone, so it neither renders nor
// ends that prefix.
enum class Disclosure : std::uint8_t { Own, Neutral, Others };

Disclosure disclosure(TraceRule rule) noexcept {
  switch (rule) {
    case TraceRule::Enabled:
    case TraceRule::HopBudget:
    case TraceRule::Source:
      return Disclosure::Own;
    case TraceRule::Validate:
      return Disclosure::Neutral;
    case TraceRule::Mention:
    case TraceRule::ExplicitMention:
    case TraceRule::Chat:
    case TraceRule::Desk:
    case TraceRule::DeskPlan:
    case TraceRule::SelectorCandidates:
    case TraceRule::DirectAgent:
    case TraceRule::Orchestrator:
    case TraceRule::Plan:
    case TraceRule::Selector:
    case TraceRule::AcceptSelection:
    case TraceRule::AcceptEvaluation:
    case TraceRule::Fallback:
    case TraceRule::Target:
    case TraceRule::SelfMention:
    case TraceRule::TargetActive:
    case TraceRule::HopOverflow:
    case TraceRule::Dispatch:
      return Disclosure::Others;
  }
  detail::unreachable();
}

// The sentence of an own-class step that passed.
std::string_view passed_sentence(TraceRule rule) noexcept {
  if (rule == TraceRule::Enabled) {
    return "handing a turn to a teammate is switched on in this conversation";
  }
  if (rule == TraceRule::HopBudget) return "this chain of handoffs has hops left";
  return "you are an active member of this team";  // TraceRule::Source
}

// The refusal a stopped dispatch step is (SPEC §3.2: one step, one reason), or nothing for
// a rule that refuses nothing.
std::optional<NoDispatchReason> refusal(TraceRule rule) noexcept {
  static constexpr std::array<std::pair<TraceRule, NoDispatchReason>, 7> kRefusals{{
      {TraceRule::Enabled, NoDispatchReason::Disabled},
      {TraceRule::HopBudget, NoDispatchReason::HopLimitReached},
      {TraceRule::Source, NoDispatchReason::SourceInactive},
      {TraceRule::Target, NoDispatchReason::NoDirectAgentMention},
      {TraceRule::SelfMention, NoDispatchReason::SelfMention},
      {TraceRule::TargetActive, NoDispatchReason::TargetInactive},
      {TraceRule::HopOverflow, NoDispatchReason::HopOverflow},
  }};
  for (const auto& [refusing, reason] : kRefusals) {
    if (refusing == rule) return reason;
  }
  return std::nullopt;
}

// The sentences of the step that ended the trace: the refusal or the decision (SPEC §5).
// An error (a malformed snapshot, no active orchestrator, a duplicated detail) is the
// host's to handle and renders nothing.
void outcome_sentences(const TraceStep& last, std::vector<std::string_view>& out) {
  if (last.outcome == TraceOutcome::Stopped) {
    if (const auto reason = refusal(last.rule)) out.push_back(to_string(*reason));
    return;
  }
  if (last.outcome != TraceOutcome::Applied) return;
  const auto answer = [&out](ResponderRung rung, SelectionDisposition disposition) {
    out.push_back(to_string(rung));
    if (disposition != SelectionDisposition::NotApplicable) out.push_back(to_string(disposition));
  };
  switch (last.rule) {
    case TraceRule::ExplicitMention:
      return answer(ResponderRung::ExplicitMention, SelectionDisposition::NotApplicable);
    case TraceRule::DeskPlan:
      return answer(ResponderRung::DeskDefault, last.why == TraceWhy::SelectionDisabled
                                                    ? SelectionDisposition::Disabled
                                                    : SelectionDisposition::NotApplicable);
    case TraceRule::SelectorCandidates:
      out.push_back("the desk's selector is asked to pick who answers");
      return;
    case TraceRule::DirectAgent:
      return answer(ResponderRung::DirectAgent, SelectionDisposition::NotApplicable);
    case TraceRule::Orchestrator:
      return answer(ResponderRung::Orchestrator, SelectionDisposition::NotApplicable);
    case TraceRule::Plan:
      out.push_back("the answering agent was decided without a selector");
      return;
    case TraceRule::AcceptSelection:
    case TraceRule::AcceptEvaluation:
      return answer(ResponderRung::AutoSelection, SelectionDisposition::Selected);
    case TraceRule::Fallback:
      return answer(ResponderRung::DeskDefault, last.why == TraceWhy::InvalidOutput
                                                    ? SelectionDisposition::InvalidOutput
                                                    : SelectionDisposition::Unavailable);
    case TraceRule::Dispatch:
      out.push_back("this turn was handed to one teammate");
      return;
    case TraceRule::Validate:
    case TraceRule::Mention:
    case TraceRule::Chat:
    case TraceRule::Desk:
    case TraceRule::Selector:
    case TraceRule::Enabled:
    case TraceRule::HopBudget:
    case TraceRule::Source:
    case TraceRule::Target:
    case TraceRule::SelfMention:
    case TraceRule::TargetActive:
    case TraceRule::HopOverflow:
      return;  // no trace ends applied on these
  }
}

}  // namespace

std::string to_string(const TraceStep& step) { return operator_line(step); }

std::vector<std::string_view> agent_sentences(std::span<const TraceStep> trace) {
  std::vector<std::string_view> out;
  if (trace.empty()) return out;
  for (const TraceStep& step : trace.first(trace.size() - 1)) {
    const Disclosure kind = disclosure(step.rule);
    if (kind == Disclosure::Others) break;
    if (kind == Disclosure::Own) out.push_back(passed_sentence(step.rule));
  }
  outcome_sentences(trace.back(), out);
  return out;
}

}  // namespace thm
