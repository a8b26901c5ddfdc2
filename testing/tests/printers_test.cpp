// What a failed comparison of core values shows once `thm/testing/printers.hpp` is
// included: the SPEC §6 wire JSON, and for a std::variant GoogleTest's own wrapper around
// the alternative's wire JSON.

#include "thm/testing/printers.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

namespace thm {
namespace {

TEST(PrintersTest, MentionPrintsItsWireForm) {
  const Mention mention{.target = AgentTarget{"bob"}, .text = "@bob", .offset = 3, .quiet = true};
  EXPECT_EQ(::testing::PrintToString(mention),
            R"({"target":{"kind":"agent","id":"bob"},"text":"@bob","offset":3,"quiet":true})");
}

TEST(PrintersTest, TurnRequestPrintsItsWireForm) {
  const MentionTurnRequest request{.key = {.trigger_sequence = 17},
                                   .source_id = "alice",
                                   .target_id = "bob",
                                   .content = "@bob look",
                                   .conversation = {.desk_id = "eng", .thread_root = 42},
                                   .child_hop = 1};
  EXPECT_EQ(::testing::PrintToString(request),
            R"({"key":{"trigger_sequence":17},"source_id":"alice","target_id":"bob",)"
            R"("content":"@bob look","conversation":{"desk_id":"eng","thread_root":42},)"
            R"("child_hop":1})");
}

TEST(PrintersTest, TurnKeyPrintsItsFields) {
  const TurnKey key{.conversation = {.desk_id = "General", .thread_root = std::nullopt},
                    .trigger_sequence = 9};
  EXPECT_EQ(::testing::PrintToString(key),
            R"({"conversation":{"desk_id":"General","thread_root":null},"trigger_sequence":9})");
}

TEST(PrintersTest, ErrorPrintsItsCaseFileForm) {
  const IncompleteOrder error{.desk_id = "eng", .missing_agent_id = "carol"};
  EXPECT_EQ(::testing::PrintToString(error),
            R"({"variant":"IncompleteOrder","desk_id":"eng","missing_agent_id":"carol",)"
            R"("message":")" +
                to_string(DeskError{error}) + R"("})");
}

// GoogleTest prints a std::variant itself and never calls the variant's own PrintTo; the
// alternative's printer is what shows inside its wrapper.
TEST(PrintersTest, VariantShowsItsAlternativesWireForm) {
  const MentionDispatchOutcome outcome = Refused{EnqueueRefusal::Unauthorized};
  const std::string shown = ::testing::PrintToString(outcome);
  EXPECT_NE(shown.find(R"(with value {"status":"refused","reason":"unauthorized"})"),
            std::string::npos)
      << shown;
}

TEST(PrintersTest, VariantPrinterCalledDirectlyPrintsTheWireForm) {
  std::ostringstream os;
  PrintTo(MentionDispatchOutcome{NotDispatched{NoDispatchReason::HopLimitReached}}, &os);
  EXPECT_EQ(os.str(), R"({"status":"not_dispatched","reason":"hop_limit_reached"})");
  std::ostringstream plan;
  PrintTo(ResponderPlan{Decided{{.responder_id = "bob",
                                 .rung = ResponderRung::ExplicitMention,
                                 .disposition = SelectionDisposition::NotApplicable}}},
          &plan);
  EXPECT_EQ(plan.str(), R"({"kind":"decided","decision":{"responder_id":"bob",)"
                        R"("rung":"explicit_mention","disposition":"not_applicable"}})");
}

}  // namespace
}  // namespace thm
