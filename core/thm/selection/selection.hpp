#pragma once
/// \file
/// Accepting a selector's answer (SPEC §2.5, §2.6 [v3]) and settling a `Select` plan with
/// the pure fold `settle_selection` (SPEC §2.6). No waiting, no retries, no clocks: the host
/// runs its own selector at most once and hands the result here.

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "thm/responder/types.hpp"
#include "thm/trace/trace.hpp"

namespace thm {

/// Parts per million in a whole (SPEC §2.6 `PROBABILITY_SCALE`).
inline constexpr std::uint32_t kProbabilityScale = 1'000'000;

/// A probability in integer parts per million (SPEC §2.6 [v3]); valid iff
/// `parts_per_million <= kProbabilityScale`. No floating point is ever involved.
/// Wire: the bare integer; the decoder rejects values over the scale.
struct Probability {
  std::uint32_t parts_per_million = 0;
  [[nodiscard]] constexpr bool valid() const noexcept {
    return parts_per_million <= kProbabilityScale;
  }
  friend constexpr auto operator<=>(const Probability&, const Probability&) = default;
};

/// One entry of a selector's distribution: the probability it gives one candidate.
struct CandidateProbability {
  std::string candidate_id{};
  Probability probability{};
  friend bool operator==(const CandidateProbability&, const CandidateProbability&) = default;
};

/// A typed selector answer (SPEC §2.6 [v3]): its `choice`, a distribution over all
/// candidates, and its own `confidence`.
struct SelectionEvaluation {
  std::string choice{};
  std::vector<CandidateProbability> probabilities{};
  Probability confidence{};
  friend bool operator==(const SelectionEvaluation&, const SelectionEvaluation&) = default;
};

/// Accepts a selector's free-text answer (SPEC §2.5). Normalizes in this order: trim
/// Unicode whitespace; drop one trailing `.` and trim the end again; drop one matching pair
/// of `'`, `"` or backtick wrappers and trim again; then compare with every candidate id,
/// ASCII case-insensitively (other letters must match exactly). Returns the canonical id
/// of the one matching candidate; nothing when the text is empty or matches zero or
/// several candidates.
[[nodiscard]] std::optional<std::string> accept_selection(
    std::string_view output, std::span<const SelectorCandidate> candidates);

/// Accepts a typed selector answer (SPEC §2.6 [v3]) only if: both confidences are valid and
/// `confidence >= minimum_confidence`; there are as many entries as candidates, and for each
/// candidate (in order) exactly one entry with exactly its id, holding a valid probability;
/// those entries sum to exactly `kProbabilityScale`; `choice` is exactly a candidate id; and
/// no entry is more probable than the choice (ties allowed). Returns the chosen canonical
/// id, or nothing.
[[nodiscard]] std::optional<std::string> accept_evaluation(
    const SelectionEvaluation& evaluation, std::span<const SelectorCandidate> candidates,
    Probability minimum_confidence);

/// The host has no selector configured.
struct SelectorAbsent {
  friend bool operator==(const SelectorAbsent&, const SelectorAbsent&) = default;
};
/// The host's selector errored or timed out. Never an error of the library.
struct SelectorFailed {
  friend bool operator==(const SelectorFailed&, const SelectorFailed&) = default;
};
/// The selector answered in free text (judged by `accept_selection`).
struct SelectorText {
  std::string output{};
  friend bool operator==(const SelectorText&, const SelectorText&) = default;
};
/// The selector answered with a typed evaluation, judged by `accept_evaluation` against the
/// minimum confidence the host supplies beside it (SPEC §0.1).
struct SelectorEvaluation {
  SelectionEvaluation evaluation{};
  Probability minimum_confidence{};
  friend bool operator==(const SelectorEvaluation&, const SelectorEvaluation&) = default;
};
/// What the host's one selector call produced (SPEC §2.6). Wire (cases.md): tagged by
/// `kind`: `absent`, `failed`, `text` (`output`), `evaluation` (`evaluation`,
/// `minimum_confidence`).
using SelectorResult =
    std::variant<SelectorAbsent, SelectorFailed, SelectorText, SelectorEvaluation>;

/// Settles a plan with the selector's result (SPEC §2.6). A `Decided` plan returns its
/// decision unchanged. For `Select`: absent or failed → the fallback with `Unavailable`;
/// a rejected answer → the fallback with `InvalidOutput`; an accepted one →
/// `{id, AutoSelection, Selected}`. A fallback is always rebuilt from
/// `fallback.responder_id` with rung `DeskDefault`. Pure; a selector failure is never an
/// error.
[[nodiscard]] ResponderDecision settle_selection(const ResponderPlan& plan,
                                                 const SelectorResult& selector);

/// `settle_selection`, explained (SPEC §8): the same decision, and its steps appended to
/// `trace`: `plan` for a `Decided` plan; otherwise `selector`, then `accept_selection` or
/// `accept_evaluation` (applied, or skipped with the first rejection §2.5 or §2.6 lists),
/// then `fallback` when the answer was absent, failed or rejected.
[[nodiscard]] ResponderDecision settle_selection(const ResponderPlan& plan,
                                                 const SelectorResult& selector,
                                                 DecisionTrace& trace);

}  // namespace thm
