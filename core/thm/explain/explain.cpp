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

// The length of the well-formed UTF-8 sequence at the start of `text` (2 to 4), or 0.
std::size_t utf8_length(std::string_view text) noexcept {
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = at(0);
  const std::size_t length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (length == 0 || lead > 0xf4 || text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((at(i) & 0xc0) != 0x80) return 0;
  }
  if (length == 3 && lead == 0xe0 && at(1) < 0xa0) return 0;   // overlong
  if (length == 3 && lead == 0xed && at(1) >= 0xa0) return 0;  // a surrogate
  if (length == 4 && lead == 0xf0 && at(1) < 0x90) return 0;   // overlong
  if (length == 4 && lead == 0xf4 && at(1) >= 0x90) return 0;  // past U+10FFFF
  return length;
}

// The code point of a well-formed sequence of `length` bytes.
char32_t code_point(std::string_view sequence) noexcept {
  const auto lead = static_cast<unsigned char>(sequence[0]);
  char32_t value = lead & (sequence.size() == 2 ? 0x1fU : sequence.size() == 3 ? 0x0fU : 0x07U);
  for (const char c : sequence.substr(1))
    value = (value << 6) | (static_cast<unsigned char>(c) & 0x3fU);
  return value;
}

constexpr std::string_view kHex = "0123456789abcdef";

// One byte as `\xNN`.
std::string hex_escape(unsigned char byte) {
  return std::string{'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
}

// A control character or line separator as a C escape: `\n`, `\t`, `\r`, `\xNN` (C0, DEL),
// `\uNNNN` (C1, U+2028, U+2029); nothing for any other character.
std::optional<std::string> escape(char32_t c) {
  if (c == '\n') return "\\n";
  if (c == '\t') return "\\t";
  if (c == '\r') return "\\r";
  if (c < 0x20 || c == 0x7f) return hex_escape(static_cast<unsigned char>(c));
  if ((c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029) {
    return std::string{
        '\\',         'u', kHex[(c >> 12) & 0xf], kHex[(c >> 8) & 0xf], kHex[(c >> 4) & 0xf],
        kHex[c & 0xf]};
  }
  return std::nullopt;
}

// Host text as one line a terminal shows as written (SPEC §8.3): a backslash, every control
// character (C0, DEL, C1) and U+2028/U+2029 as a C escape, and a byte that is no UTF-8 as
// `\xNN`; with `quote`, `"` too. Every other character is kept.
std::string printable(std::string_view text, bool quote = false) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    std::size_t length = 1;
    if (byte < 0x80) {
      if (c == '\\' || (quote && c == '"')) out += '\\';
      out += escape(byte).value_or(std::string(1, c));
    } else if ((length = utf8_length(text.substr(i))) == 0) {
      out += hex_escape(byte);
      length = 1;
    } else {
      const std::string_view sequence = text.substr(i, length);
      out += escape(code_point(sequence)).value_or(std::string(sequence));
    }
    i += length;
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

// A step of a rule on the chain's shape (SPEC §3.2 steps 7 to 9).
std::string shape_line(const TraceStep& step, const std::string& subject,
                       const std::string& count) {
  const bool passed = step.outcome == TraceOutcome::Passed;
  if (step.rule == TraceRule::NoReturn) {
    return passed ? "no return: " + subject + " did not write the previous reply"
                  : "no return: " + subject +
                        " wrote the previous reply, so the turn may not go straight back";
  }
  if (step.rule == TraceRule::AgentTurns) {
    return "agent turns: " + subject + " has taken " + count + " turn" +
           (step.count == 1 ? "" : "s") + " of this chain" +
           (passed ? ", under max_turns_per_agent" : ", the most max_turns_per_agent allows");
  }
  return passed ? "handoff: a hand-off to " + subject + " is allowed"
                : "handoff: a hand-off to " + subject + " is not in allowed_handoffs";
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
    case TraceRule::ThreadResponder:
      return applied ? "thread responder: " + subject + " answered last in this thread and answers"
                     : "thread responder: " + subject + " is not an active member";
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
    case TraceRule::NoReturn:
    case TraceRule::AgentTurns:
    case TraceRule::Handoff:
      return shape_line(step, subject, count);
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
    case TraceRule::ThreadResponder:
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
    case TraceRule::NoReturn:
    case TraceRule::AgentTurns:
    case TraceRule::Handoff:
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
  static constexpr std::array<std::pair<TraceRule, NoDispatchReason>, 10> kRefusals{{
      {TraceRule::Enabled, NoDispatchReason::Disabled},
      {TraceRule::HopBudget, NoDispatchReason::HopLimitReached},
      {TraceRule::Source, NoDispatchReason::SourceInactive},
      {TraceRule::Target, NoDispatchReason::NoDirectAgentMention},
      {TraceRule::SelfMention, NoDispatchReason::SelfMention},
      {TraceRule::NoReturn, NoDispatchReason::ImmediateReturn},
      {TraceRule::AgentTurns, NoDispatchReason::AgentTurnsSpent},
      {TraceRule::Handoff, NoDispatchReason::HandoffNotAllowed},
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
    case TraceRule::ThreadResponder:
      return answer(ResponderRung::ThreadResponder, SelectionDisposition::NotApplicable);
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
    case TraceRule::NoReturn:
    case TraceRule::AgentTurns:
    case TraceRule::Handoff:
    case TraceRule::TargetActive:
    case TraceRule::HopOverflow:
      return;  // no trace ends applied on these
  }
}

}  // namespace

std::string to_string(const TraceStep& step) { return operator_line(step); }

namespace {

// Whether `step` is the last step a `responder_plan` can take, which its settling follows.
bool ends_a_plan(const TraceStep& step) noexcept {
  switch (step.rule) {
    case TraceRule::ExplicitMention:
    case TraceRule::ThreadResponder:
    case TraceRule::DeskPlan:
    case TraceRule::SelectorCandidates:
    case TraceRule::DirectAgent:
    case TraceRule::Orchestrator:
      return step.outcome != TraceOutcome::Skipped;
    default:
      return false;
  }
}

// Whether `step`, after `previous`, is the first step of another decision (SPEC §8.1): a
// dispatch starts at `enabled`; a plan at a `validate` no hop budget came before; a
// settling at `plan` or `selector`, unless it settles the plan just before it.
bool starts_a_decision(const TraceStep& previous, const TraceStep& step) noexcept {
  switch (step.rule) {
    case TraceRule::Enabled:
      return true;
    case TraceRule::Validate:
      return previous.rule != TraceRule::HopBudget;
    case TraceRule::Plan:
    case TraceRule::Selector:
      return !ends_a_plan(previous);
    default:
      return false;
  }
}

// The agent's form of one decision's steps (SPEC §8.4).
void decision_sentences(std::span<const TraceStep> trace, std::vector<std::string_view>& out) {
  for (const TraceStep& step : trace.first(trace.size() - 1)) {
    const Disclosure kind = disclosure(step.rule);
    if (kind == Disclosure::Others) break;
    if (kind == Disclosure::Own) out.push_back(passed_sentence(step.rule));
  }
  outcome_sentences(trace.back(), out);
}

}  // namespace

std::vector<std::string_view> agent_sentences(std::span<const TraceStep> trace) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  for (std::size_t i = 1; i <= trace.size(); ++i) {
    if (i == trace.size() || starts_a_decision(trace[i - 1], trace[i])) {
      decision_sentences(trace.subspan(begin, i - begin), out);
      begin = i;
    }
  }
  return out;
}

}  // namespace thm
