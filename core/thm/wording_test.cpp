// SPEC §5: the disclosure rule, checked over every refusal, rung and disposition.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"

namespace thm {
namespace {

struct Rendering {
  std::string label;  // e.g. "NoDispatchReason::target_inactive"
  std::string_view sentence;
};

std::vector<Rendering> refusals() {
  std::vector<Rendering> all;
  for (const auto reason : kAllNoDispatchReasons) {
    all.push_back({"NoDispatchReason::" + std::string(name(reason)), to_string(reason)});
  }
  for (const auto refusal : kAllEnqueueRefusals) {
    all.push_back({"EnqueueRefusal::" + std::string(name(refusal)), to_string(refusal)});
  }
  return all;
}

std::vector<Rendering> every_rendering() {
  std::vector<Rendering> all = refusals();
  for (const auto rung : kAllResponderRungs) {
    all.push_back({"ResponderRung::" + std::string(name(rung)), to_string(rung)});
  }
  for (const auto disposition : kAllSelectionDispositions) {
    all.push_back(
        {"SelectionDisposition::" + std::string(name(disposition)), to_string(disposition)});
  }
  return all;
}

TEST(WordingTest, EverySentenceIsLowerCaseUnpunctuatedAndNamesNobody) {
  for (const Rendering& rendering : every_rendering()) {
    SCOPED_TRACE(rendering.label);
    ASSERT_FALSE(rendering.sentence.empty());
    for (const char c : rendering.sentence) EXPECT_FALSE(c >= 'A' && c <= 'Z');
    EXPECT_EQ(rendering.sentence.find('@'), std::string_view::npos);
    const char last = rendering.sentence.back();
    EXPECT_TRUE(last != '.' && last != '!' && last != '?');
    EXPECT_NE(last, ' ');
  }
}

TEST(WordingTest, WithheldRefusalsShareOneSentenceByteForByte) {
  EXPECT_EQ(to_string(NoDispatchReason::NoDirectAgentMention), kNoAvailableTarget);
  EXPECT_EQ(to_string(NoDispatchReason::TargetInactive), kNoAvailableTarget);
  EXPECT_EQ(to_string(EnqueueRefusal::Unauthorized), kNoAvailableTarget);
  EXPECT_EQ(to_string(EnqueueRefusal::TargetUnavailable), kNoAvailableTarget);
  EXPECT_EQ(to_string(NoDispatchReason::HandoffNotAllowed), kNoAvailableTarget);
}

TEST(WordingTest, LateRefusalsReuseAnEarlierSentenceVerbatim) {
  EXPECT_EQ(to_string(NoDispatchReason::HopOverflow), to_string(NoDispatchReason::HopLimitReached));
  EXPECT_EQ(to_string(EnqueueRefusal::FeatureDisabled), to_string(NoDispatchReason::Disabled));
}

TEST(WordingTest, RefusalsWithTheirOwnSentenceArePairwiseDistinct) {
  // Disabled, HopLimitReached, SourceInactive, SelfMention, ImmediateReturn, AgentTurnsSpent
  // and the shared sentence: seven sentences in all, no two alike.
  const std::vector<std::string_view> own{to_string(NoDispatchReason::Disabled),
                                          to_string(NoDispatchReason::HopLimitReached),
                                          to_string(NoDispatchReason::SourceInactive),
                                          to_string(NoDispatchReason::SelfMention),
                                          to_string(NoDispatchReason::ImmediateReturn),
                                          to_string(NoDispatchReason::AgentTurnsSpent),
                                          kNoAvailableTarget};
  for (std::size_t i = 0; i < own.size(); ++i) {
    for (std::size_t j = i + 1; j < own.size(); ++j) EXPECT_NE(own[i], own[j]) << i << " " << j;
  }
  std::vector<std::string_view> distinct;
  for (const Rendering& rendering : refusals()) {
    if (std::find(distinct.begin(), distinct.end(), rendering.sentence) == distinct.end()) {
      distinct.push_back(rendering.sentence);
    }
  }
  EXPECT_EQ(distinct.size(), own.size());
}

TEST(WordingTest, RungsAndDispositionsArePairwiseDistinct) {
  for (const auto a : kAllResponderRungs) {
    for (const auto b : kAllResponderRungs) {
      if (a != b) {
        EXPECT_NE(to_string(a), to_string(b)) << name(a) << " " << name(b);
      }
    }
  }
  for (const auto a : kAllSelectionDispositions) {
    for (const auto b : kAllSelectionDispositions) {
      if (a != b) {
        EXPECT_NE(to_string(a), to_string(b)) << name(a) << " " << name(b);
      }
    }
  }
}

TEST(WordingTest, WireNamesAreSnakeCaseAndRoundTrip) {
  for (const auto rung : kAllResponderRungs) EXPECT_EQ(responder_rung_from_name(name(rung)), rung);
  for (const auto disposition : kAllSelectionDispositions) {
    EXPECT_EQ(selection_disposition_from_name(name(disposition)), disposition);
  }
  for (const auto policy : kAllSelectionPolicies) {
    EXPECT_EQ(selection_policy_from_name(name(policy)), policy);
  }
  for (const auto mode : kAllResponderModes) EXPECT_EQ(responder_mode_from_name(name(mode)), mode);
  for (const Rendering& rendering : every_rendering()) {
    const std::string token = rendering.label.substr(rendering.label.find("::") + 2);
    for (const char c : token) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << rendering.label;
  }
}

TEST(WordingTest, PinnedSentences) {
  // This project's own words, pinned so that a change of wording is deliberate.
  EXPECT_EQ(kNoAvailableTarget, "no teammate could be handed this turn from here");
  EXPECT_EQ(to_string(NoDispatchReason::Disabled),
            "handing a turn to a teammate is switched off in this conversation");
  EXPECT_EQ(to_string(NoDispatchReason::HopLimitReached),
            "this chain of handoffs has used up its hop budget");
  EXPECT_EQ(to_string(NoDispatchReason::SelfMention), "you cannot hand a turn to yourself");
}

}  // namespace
}  // namespace thm
