#include "thm/selection/selection.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/detail/ascii.hpp"
#include "thm/detail/unicode.hpp"
#include "thm/overloaded.hpp"
#include "thm/trace/note.hpp"

namespace thm {
namespace {

bool is_wrapper(char c) noexcept { return c == '\'' || c == '"' || c == '`'; }

// SPEC §2.5 steps 1-3.
std::string_view normalize_selector_output(std::string_view output) noexcept {
  std::string_view text = detail::trim(output);
  if (text.ends_with('.')) text = detail::trim_end(text.substr(0, text.size() - 1));
  if (text.size() >= 2 && is_wrapper(text.front()) && text.back() == text.front()) {
    text = detail::trim(text.substr(1, text.size() - 2));
  }
  return text;
}

ResponderDecision fallback(const Select& plan, SelectionDisposition disposition) {
  return {.responder_id = plan.fallback.responder_id,
          .rung = ResponderRung::DeskDefault,
          .disposition = disposition};
}

// SPEC §2.6's "exactly one entry with exactly its id", asked once per candidate. A typed
// answer for a handful of candidates is scanned, which allocates nothing; a longer one is
// sorted by id once, so that each question is a binary search: O(n log n), one allocation.
class EntriesById {
 public:
  explicit EntriesById(std::span<const CandidateProbability> entries) : entries_(entries) {
    if (entries.size() <= kScanned) return;
    sorted_.reserve(entries.size());
    for (const CandidateProbability& entry : entries) sorted_.push_back(&entry);
    std::ranges::sort(sorted_, {}, id_of);
  }

  // The one entry with exactly this id, or null when there is none or more than one.
  [[nodiscard]] const CandidateProbability* only(std::string_view id) const {
    if (sorted_.empty()) {
      const CandidateProbability* found = nullptr;
      for (const CandidateProbability& entry : entries_) {
        if (entry.candidate_id != id) continue;
        if (found != nullptr) return nullptr;
        found = &entry;
      }
      return found;
    }
    const auto first = std::ranges::lower_bound(sorted_, id, {}, id_of);
    if (first == sorted_.end() || id_of(*first) != id) return nullptr;
    const auto second = std::next(first);
    if (second != sorted_.end() && id_of(*second) == id) return nullptr;  // listed twice
    return *first;
  }

 private:
  static constexpr std::size_t kScanned = 16;  // n^2 compares stay below a sort's cost
  static std::string_view id_of(const CandidateProbability* entry) noexcept {
    return entry->candidate_id;
  }
  std::span<const CandidateProbability> entries_;
  std::vector<const CandidateProbability*> sorted_;
};

// What a judge of a selector's answer found (SPEC §2.5, §2.6): the accepted id, or why not
// and about what (a candidate or entry id, or the normalized text).
struct Judgement {
  const std::string* accepted = nullptr;
  std::optional<TraceWhy> why{};
  std::string_view about{};
};

// SPEC §2.5 steps 4 and 5.
Judgement judge_selection(std::string_view output, std::span<const SelectorCandidate> candidates) {
  const std::string_view answer = normalize_selector_output(output);
  if (answer.empty()) return {.why = TraceWhy::Empty, .about = answer};
  const SelectorCandidate* match = nullptr;
  for (const SelectorCandidate& candidate : candidates) {
    if (!detail::equals_ignoring_ascii_case(answer, candidate.id)) continue;
    if (match != nullptr) return {.why = TraceWhy::SeveralCandidates, .about = answer};
    match = &candidate;
  }
  if (match == nullptr) return {.why = TraceWhy::NoCandidate, .about = answer};
  return {.accepted = &match->id};
}

// SPEC §2.6 [v3], the rejections in the order the spec lists them.
Judgement judge_evaluation(const SelectionEvaluation& evaluation,
                           std::span<const SelectorCandidate> candidates,
                           Probability minimum_confidence) {
  if (!evaluation.confidence.valid() || !minimum_confidence.valid()) {
    return {.why = TraceWhy::InvalidConfidence};
  }
  if (evaluation.confidence < minimum_confidence) return {.why = TraceWhy::BelowMinimumConfidence};
  if (evaluation.probabilities.size() != candidates.size()) return {.why = TraceWhy::EntryCount};

  const EntriesById entries(evaluation.probabilities);
  // Each entry is at most kProbabilityScale, so a 64-bit sum cannot overflow for any list
  // that fits in memory; SPEC §2.6's "running sum overflows" rejection is therefore covered
  // by the exact-sum check below.
  std::uint64_t sum = 0;
  const CandidateProbability* chosen = nullptr;
  for (const SelectorCandidate& candidate : candidates) {
    const CandidateProbability* entry = entries.only(candidate.id);
    if (entry == nullptr) return {.why = TraceWhy::NotOneEntry, .about = candidate.id};
    if (!entry->probability.valid())
      return {.why = TraceWhy::InvalidProbability, .about = candidate.id};
    sum += entry->probability.parts_per_million;
    if (candidate.id == evaluation.choice) chosen = entry;
  }
  if (chosen == nullptr) return {.why = TraceWhy::ChoiceNotCandidate, .about = evaluation.choice};
  if (sum != kProbabilityScale) return {.why = TraceWhy::SumNotScale};
  for (const CandidateProbability& entry : evaluation.probabilities) {
    if (entry.probability > chosen->probability) {
      return {.why = TraceWhy::MoreProbableEntry, .about = entry.candidate_id};
    }
  }
  return {.accepted = &chosen->candidate_id};
}

std::optional<std::string> accepted(const Judgement& judgement) {
  if (judgement.accepted == nullptr) return std::nullopt;
  return *judgement.accepted;
}

// SPEC §2.6, noting each step when `Note` traces.
template <class Note>
ResponderDecision settle(const ResponderPlan& plan, const SelectorResult& selector,
                         const Note& note) {
  const auto settle_select = [&](const Select& select) {
    const auto note_step = [&](TraceRule rule, TraceOutcome outcome, std::optional<TraceWhy> why,
                               std::string_view subject) {
      note([&] {
        return TraceStep{
            .rule = rule, .outcome = outcome, .why = why, .subject = std::string(subject)};
      });
    };
    const auto fall_back = [&](SelectionDisposition disposition) {
      note_step(TraceRule::Fallback, TraceOutcome::Applied,
                disposition == SelectionDisposition::Unavailable ? TraceWhy::Unavailable
                                                                 : TraceWhy::InvalidOutput,
                select.fallback.responder_id);
      return fallback(select, disposition);
    };
    const auto judged = [&](TraceRule rule, const Judgement& judgement) {
      if (judgement.accepted == nullptr) {
        note_step(rule, TraceOutcome::Skipped, judgement.why, judgement.about);
        return fall_back(SelectionDisposition::InvalidOutput);
      }
      note_step(rule, TraceOutcome::Applied, std::nullopt, *judgement.accepted);
      return ResponderDecision{.responder_id = *judgement.accepted,
                               .rung = ResponderRung::AutoSelection,
                               .disposition = SelectionDisposition::Selected};
    };
    const auto& candidates = select.request.candidates;
    return std::visit(
        overloaded{
            [&](const SelectorAbsent&) {
              note_step(TraceRule::Selector, TraceOutcome::Skipped, TraceWhy::Absent, {});
              return fall_back(SelectionDisposition::Unavailable);
            },
            [&](const SelectorFailed&) {
              note_step(TraceRule::Selector, TraceOutcome::Skipped, TraceWhy::Failed, {});
              return fall_back(SelectionDisposition::Unavailable);
            },
            [&](const SelectorText& text) {
              note_step(TraceRule::Selector, TraceOutcome::Passed, TraceWhy::Text, {});
              return judged(TraceRule::AcceptSelection, judge_selection(text.output, candidates));
            },
            [&](const SelectorEvaluation& answer) {
              note_step(TraceRule::Selector, TraceOutcome::Passed, TraceWhy::Evaluation, {});
              return judged(
                  TraceRule::AcceptEvaluation,
                  judge_evaluation(answer.evaluation, candidates, answer.minimum_confidence));
            },
        },
        selector);
  };
  const auto settle_decided = [&](const Decided& decided) {
    note([&] {
      return TraceStep{.rule = TraceRule::Plan,
                       .outcome = TraceOutcome::Applied,
                       .subject = decided.decision.responder_id};
    });
    return decided.decision;
  };
  return std::visit(overloaded{settle_decided, settle_select}, plan);
}

}  // namespace

std::optional<std::string> accept_selection(std::string_view output,
                                            std::span<const SelectorCandidate> candidates) {
  return accepted(judge_selection(output, candidates));
}

std::optional<std::string> accept_evaluation(const SelectionEvaluation& evaluation,
                                             std::span<const SelectorCandidate> candidates,
                                             Probability minimum_confidence) {
  return accepted(judge_evaluation(evaluation, candidates, minimum_confidence));
}

ResponderDecision settle_selection(const ResponderPlan& plan, const SelectorResult& selector) {
  return settle(plan, selector, detail::Untraced{});
}

ResponderDecision settle_selection(const ResponderPlan& plan, const SelectorResult& selector,
                                   DecisionTrace& trace) {
  return settle(plan, selector, detail::Traced{&trace});
}

}  // namespace thm
