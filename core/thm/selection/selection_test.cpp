#include "thm/selection/selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace thm {
namespace {

std::vector<SelectorCandidate> candidates(std::initializer_list<const char*> ids) {
  std::vector<SelectorCandidate> out;
  for (const char* id : ids) out.push_back({.id = id, .label = id, .role = "Teammate"});
  return out;
}

std::optional<std::string> accept(std::string_view output, std::initializer_list<const char*> ids) {
  return accept_selection(output, candidates(ids));
}

TEST(AcceptSelectionTest, ExactIdIsAccepted) {
  EXPECT_EQ(accept("alice", {"alice", "bob"}), "alice");
}

TEST(AcceptSelectionTest, ReturnsTheCanonicalIdNotTheOutputSpelling) {
  EXPECT_EQ(accept("CODER", {"Coder", "Writer"}), "Coder");
}

TEST(AcceptSelectionTest, UnicodeWhitespaceIsTrimmedAtBothEnds) {
  EXPECT_EQ(accept("\u00A0\t alice \u2028\n", {"alice"}), "alice");
}

TEST(AcceptSelectionTest, OneTrailingPeriodIsDroppedOutsideTheWrapper) {
  EXPECT_EQ(accept("alice.", {"alice"}), "alice");
  EXPECT_EQ(accept("alice . ", {"alice"}), "alice");
  EXPECT_EQ(accept("\"Coder\".", {"Coder"}), "Coder");
  EXPECT_EQ(accept("alice..", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("'Coder.'", {"Coder"}), std::nullopt);
}

TEST(AcceptSelectionTest, OneMatchingWrapperPairIsDropped) {
  EXPECT_EQ(accept("'agent_a'", {"Agent_A"}), "Agent_A");
  EXPECT_EQ(accept("\"agent_a\"", {"Agent_A"}), "Agent_A");
  EXPECT_EQ(accept("`agent_a`", {"Agent_A"}), "Agent_A");
  EXPECT_EQ(accept("' agent_a '", {"Agent_A"}), "Agent_A");
  EXPECT_EQ(accept("''agent_a''", {"Agent_A"}), std::nullopt);
  EXPECT_EQ(accept("'alice\"", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("\"pilot", {"pilot"}), std::nullopt);
  EXPECT_EQ(accept("**Coder**", {"Coder"}), std::nullopt);
}

TEST(AcceptSelectionTest, EmptyAfterNormalizationIsRejected) {
  EXPECT_EQ(accept("", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("   ", {"alice"}), std::nullopt);
  EXPECT_EQ(accept(".", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("\"\"", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("' '.", {"alice"}), std::nullopt);
}

TEST(AcceptSelectionTest, ProseAndExtraWordsAreRejected) {
  EXPECT_EQ(accept("alice because", {"alice", "bob"}), std::nullopt);
  EXPECT_EQ(accept("alice bob", {"alice", "bob"}), std::nullopt);
  EXPECT_EQ(accept("\"alice\" extra", {"alice"}), std::nullopt);
  EXPECT_EQ(accept("Coder!", {"Coder"}), std::nullopt);
}

TEST(AcceptSelectionTest, OutOfSetAndPrefixGuessesAreRejected) {
  EXPECT_EQ(accept("carol", {"alice", "bob"}), std::nullopt);
  EXPECT_EQ(accept("build", {"build-linux", "build-mac"}), std::nullopt);
  EXPECT_EQ(accept("Agent-1", {"Agent", "Agent-1"}), "Agent-1");
}

TEST(AcceptSelectionTest, CaseFoldingIsAsciiOnly) {
  EXPECT_EQ(accept("\u212Aai", {"Kai"}), std::nullopt);       // KELVIN SIGN is not K
  EXPECT_EQ(accept("\u0421oder", {"Coder"}), std::nullopt);   // Cyrillic ES
  EXPECT_EQ(accept("Co\u200Bder", {"Coder"}), std::nullopt);  // zero-width space stays
  EXPECT_EQ(accept("\u00C9lodie", {"\u00E9lodie"}), std::nullopt);
  EXPECT_EQ(accept("\u00E9LODIE", {"\u00E9lodie"}), "\u00E9lodie");
}

TEST(AcceptSelectionTest, CaseTwinCandidatesMakeEveryMatchAmbiguous) {
  EXPECT_EQ(accept("assistant", {"assistant", "Assistant"}), std::nullopt);
  EXPECT_EQ(accept("ASSISTANT", {"assistant", "Assistant"}), std::nullopt);
}

TEST(AcceptSelectionTest, InvalidUtf8NeverCrashesAndNeverMatchesByAccident) {
  EXPECT_EQ(accept("\xff\xfe", {"alice"}), std::nullopt);
  EXPECT_EQ(accept(" \xc3", {"\xc3"}), "\xc3");
}

SelectionEvaluation evaluation(std::string choice,
                               std::vector<std::pair<std::string, std::uint32_t>> entries,
                               std::uint32_t confidence = 900'000) {
  SelectionEvaluation e{.choice = std::move(choice), .confidence = {confidence}};
  for (auto& [id, ppm] : entries)
    e.probabilities.push_back({.candidate_id = id, .probability = {ppm}});
  return e;
}

std::optional<std::string> judge(const SelectionEvaluation& e, std::uint32_t minimum = 500'000) {
  return accept_evaluation(e, candidates({"alice", "bob"}), Probability{minimum});
}

TEST(AcceptEvaluationTest, WellFormedConfidentChoiceIsAccepted) {
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 200'000}, {"bob", 800'000}})), "bob");
  EXPECT_EQ(judge(evaluation("bob", {{"bob", 800'000}, {"alice", 200'000}})), "bob");
}

TEST(AcceptEvaluationTest, ConfidenceBelowTheMinimumIsRejected) {
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 200'000}, {"bob", 800'000}}, 499'999)),
            std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 200'000}, {"bob", 800'000}}, 500'000)), "bob");
}

TEST(AcceptEvaluationTest, InvalidProbabilitiesAreRejected) {
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 0}, {"bob", 1'000'000}}, 1'000'001)), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 0}, {"bob", 1'000'000}}), 1'000'001), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 0}, {"bob", 1'000'001}})), std::nullopt);
}

TEST(AcceptEvaluationTest, DistributionMustCoverEachCandidateExactlyOnce) {
  EXPECT_EQ(judge(evaluation("bob", {{"bob", 1'000'000}})), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"bob", 500'000}, {"bob", 500'000}})), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"Alice", 0}, {"bob", 1'000'000}})), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 0}, {"bob", 1'000'000}, {"carol", 0}})),
            std::nullopt);
}

TEST(AcceptEvaluationTest, SumMustBeExactlyTheScale) {
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 200'000}, {"bob", 799'999}})), std::nullopt);
  EXPECT_EQ(judge(evaluation("bob", {{"alice", 200'001}, {"bob", 800'000}})), std::nullopt);
}

TEST(AcceptEvaluationTest, ChoiceMustBeExactlyACandidate) {
  EXPECT_EQ(judge(evaluation("Bob", {{"alice", 200'000}, {"bob", 800'000}})), std::nullopt);
  EXPECT_EQ(judge(evaluation("carol", {{"alice", 200'000}, {"bob", 800'000}})), std::nullopt);
}

TEST(AcceptEvaluationTest, ChoiceMayTieButNeverTrailTheMostProbable) {
  EXPECT_EQ(judge(evaluation("alice", {{"alice", 500'000}, {"bob", 500'000}})), "alice");
  EXPECT_EQ(judge(evaluation("alice", {{"alice", 400'000}, {"bob", 600'000}})), std::nullopt);
}

// 64 candidates `a0` … `a63`, and a distribution choosing `a63` (every other 7'812 ppm).
std::vector<SelectorCandidate> many_candidates() {
  std::vector<SelectorCandidate> out;
  for (int i = 0; i < 64; ++i) {
    const std::string id = "a" + std::to_string(i);
    out.push_back({.id = id, .label = id, .role = "Teammate"});
  }
  return out;
}

SelectionEvaluation many_evaluation() {
  SelectionEvaluation e{.choice = "a63", .confidence = {900'000}};
  for (int i = 0; i < 64; ++i) {
    e.probabilities.push_back({.candidate_id = "a" + std::to_string(i),
                               .probability = {i == 63 ? 1'000'000U - 63U * 7'812U : 7'812U}});
  }
  return e;
}

TEST(AcceptEvaluationTest, SixtyFourCandidatesInAnyEntryOrderAreAccepted) {
  const auto all = many_candidates();
  SelectionEvaluation e = many_evaluation();
  EXPECT_EQ(accept_evaluation(e, all, Probability{500'000}), "a63");
  std::ranges::reverse(e.probabilities);
  EXPECT_EQ(accept_evaluation(e, all, Probability{500'000}), "a63");
  std::swap(e.probabilities[3], e.probabilities[40]);
  EXPECT_EQ(accept_evaluation(e, all, Probability{500'000}), "a63");
}

TEST(AcceptEvaluationTest, SixtyFourCandidatesWithARepeatedOrMissingEntryAreRejected) {
  const auto all = many_candidates();
  SelectionEvaluation twice = many_evaluation();
  twice.probabilities[40].candidate_id = "a17";  // a17 twice, a40 missing
  EXPECT_EQ(accept_evaluation(twice, all, Probability{500'000}), std::nullopt);
  SelectionEvaluation stranger = many_evaluation();
  stranger.probabilities[0].candidate_id = "a64";
  EXPECT_EQ(accept_evaluation(stranger, all, Probability{500'000}), std::nullopt);
  SelectionEvaluation trailing = many_evaluation();
  trailing.probabilities[5].probability = {7'812 + 300'000};  // the sum is kept
  trailing.probabilities[63].probability = {1'000'000 - 63 * 7'812 - 300'000};
  EXPECT_EQ(accept_evaluation(trailing, all, Probability{500'000}), std::nullopt);
  trailing.probabilities[5].probability = {1'000'000 - 63 * 7'812 - 300'000};  // swapped back
  trailing.probabilities[63].probability = {7'812 + 300'000};
  EXPECT_EQ(accept_evaluation(trailing, all, Probability{500'000}), "a63");
}

TEST(AcceptEvaluationTest, ARepeatedCandidateCountsItsOneEntryForEachAppearance) {
  // SPEC §2.6 checks each candidate in order for exactly one entry with its id: a candidate
  // listed twice is covered twice by the same entry, and the extra entry names no one.
  const auto twice = candidates({"alice", "alice"});
  const auto e = evaluation("alice", {{"alice", 500'000}, {"zed", 500'000}});
  EXPECT_EQ(accept_evaluation(e, twice, Probability{500'000}), "alice");
  const auto doubled = evaluation("alice", {{"alice", 250'000}, {"alice", 750'000}});
  EXPECT_EQ(accept_evaluation(doubled, twice, Probability{500'000}), std::nullopt);
  const auto trailing = evaluation("alice", {{"alice", 500'000}, {"zed", 500'001}});
  EXPECT_EQ(accept_evaluation(trailing, twice, Probability{500'000}), std::nullopt);
}

TEST(AcceptEvaluationTest, NoCandidatesAcceptNothing) {
  EXPECT_EQ(accept_evaluation(evaluation("", {}), {}, Probability{0}), std::nullopt);
}

Select desk_select() {
  return Select{.request = {.message = "Review this",
                            .desk_id = "eng",
                            .candidates = candidates({"alice", "bob"})},
                .fallback = {.responder_id = "alice",
                             .rung = ResponderRung::DeskDefault,
                             .disposition = SelectionDisposition::Unavailable}};
}

ResponderDecision desk_default(SelectionDisposition disposition) {
  return {.responder_id = "alice", .rung = ResponderRung::DeskDefault, .disposition = disposition};
}

TEST(SettleSelectionTest, DecidedPlanIsReturnedUnchanged) {
  const ResponderDecision decision{.responder_id = "bob",
                                   .rung = ResponderRung::ExplicitMention,
                                   .disposition = SelectionDisposition::NotApplicable};
  EXPECT_EQ(settle_selection(Decided{decision}, SelectorText{"alice"}), decision);
  EXPECT_EQ(settle_selection(Decided{decision}, SelectorFailed{}), decision);
}

TEST(SettleSelectionTest, AbsentOrFailedSelectorFallsBackAsUnavailable) {
  EXPECT_EQ(settle_selection(desk_select(), SelectorAbsent{}),
            desk_default(SelectionDisposition::Unavailable));
  EXPECT_EQ(settle_selection(desk_select(), SelectorFailed{}),
            desk_default(SelectionDisposition::Unavailable));
}

TEST(SettleSelectionTest, AcceptedTextIsAnAutoSelection) {
  EXPECT_EQ(settle_selection(desk_select(), SelectorText{"BOB."}),
            (ResponderDecision{.responder_id = "bob",
                               .rung = ResponderRung::AutoSelection,
                               .disposition = SelectionDisposition::Selected}));
}

TEST(SettleSelectionTest, RejectedTextFallsBackAsInvalidOutput) {
  EXPECT_EQ(settle_selection(desk_select(), SelectorText{"bob because reviewer"}),
            desk_default(SelectionDisposition::InvalidOutput));
}

TEST(SettleSelectionTest, EvaluationIsJudgedAgainstTheSuppliedMinimum) {
  const auto answer = evaluation("bob", {{"alice", 200'000}, {"bob", 800'000}}, 600'000);
  EXPECT_EQ(settle_selection(desk_select(), SelectorEvaluation{answer, {700'000}}),
            desk_default(SelectionDisposition::InvalidOutput));
  EXPECT_EQ(settle_selection(desk_select(), SelectorEvaluation{answer, {600'000}}).responder_id,
            "bob");
}

TEST(SettleSelectionTest, FallbackIsRebuiltWithTheDeskDefaultRung) {
  Select odd = desk_select();
  odd.fallback.rung = ResponderRung::Orchestrator;
  odd.fallback.disposition = SelectionDisposition::Selected;
  EXPECT_EQ(settle_selection(odd, SelectorAbsent{}),
            desk_default(SelectionDisposition::Unavailable));
}

}  // namespace
}  // namespace thm
