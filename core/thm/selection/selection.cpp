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

}  // namespace

std::optional<std::string> accept_selection(std::string_view output,
                                            std::span<const SelectorCandidate> candidates) {
  const std::string_view answer = normalize_selector_output(output);
  if (answer.empty()) return std::nullopt;
  const SelectorCandidate* match = nullptr;
  for (const SelectorCandidate& candidate : candidates) {
    if (!detail::equals_ignoring_ascii_case(answer, candidate.id)) continue;
    if (match != nullptr) return std::nullopt;
    match = &candidate;
  }
  if (match == nullptr) return std::nullopt;
  return match->id;
}

std::optional<std::string> accept_evaluation(const SelectionEvaluation& evaluation,
                                             std::span<const SelectorCandidate> candidates,
                                             Probability minimum_confidence) {
  if (!evaluation.confidence.valid() || !minimum_confidence.valid()) return std::nullopt;
  if (evaluation.confidence < minimum_confidence) return std::nullopt;
  if (evaluation.probabilities.size() != candidates.size()) return std::nullopt;

  const EntriesById entries(evaluation.probabilities);
  // Each entry is at most kProbabilityScale, so a 64-bit sum cannot overflow for any list
  // that fits in memory; SPEC §2.6's "running sum overflows" rejection is therefore covered
  // by the exact-sum check below.
  std::uint64_t sum = 0;
  const Probability* chosen = nullptr;
  for (const SelectorCandidate& candidate : candidates) {
    const CandidateProbability* entry = entries.only(candidate.id);
    if (entry == nullptr || !entry->probability.valid()) return std::nullopt;
    sum += entry->probability.parts_per_million;
    if (candidate.id == evaluation.choice) chosen = &entry->probability;
  }
  if (chosen == nullptr || sum != kProbabilityScale) return std::nullopt;
  for (const CandidateProbability& entry : evaluation.probabilities) {
    if (entry.probability > *chosen) return std::nullopt;
  }
  return evaluation.choice;
}

ResponderDecision settle_selection(const ResponderPlan& plan, const SelectorResult& selector) {
  const auto settle = [&selector](const Select& select) {
    const auto judged = [&select](const std::optional<std::string>& accepted) {
      if (!accepted.has_value()) return fallback(select, SelectionDisposition::InvalidOutput);
      return ResponderDecision{.responder_id = *accepted,
                               .rung = ResponderRung::AutoSelection,
                               .disposition = SelectionDisposition::Selected};
    };
    const auto& candidates = select.request.candidates;
    return std::visit(overloaded{
                          [&](const SelectorAbsent&) {
                            return fallback(select, SelectionDisposition::Unavailable);
                          },
                          [&](const SelectorFailed&) {
                            return fallback(select, SelectionDisposition::Unavailable);
                          },
                          [&](const SelectorText& text) {
                            return judged(accept_selection(text.output, candidates));
                          },
                          [&](const SelectorEvaluation& answer) {
                            return judged(accept_evaluation(answer.evaluation, candidates,
                                                            answer.minimum_confidence));
                          },
                      },
                      selector);
  };
  return std::visit(overloaded{[](const Decided& decided) { return decided.decision; }, settle},
                    plan);
}

}  // namespace thm
