// The typed GoogleTest suite instantiated the way a host would, for the in-memory queue;
// plus a guard that the typed suite lists every check the library implements, and how the
// typed suite reports a failure and enforces THM_CONFORMANCE_REQUIRE.
#include <gtest/gtest-spi.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "thm/conformance/gtest.hpp"
#include "thm/memory/harness.hpp"

namespace thm::conformance {
namespace {

INSTANTIATE_TYPED_TEST_SUITE_P(Memory, QueueConformance, ::testing::Types<memory::MemoryHarness>);

TEST(TypedSuiteTest, HasOneTestPerCheck) {
  const auto* suite = ::testing::UnitTest::GetInstance();
  std::size_t typed = 0;
  for (int i = 0; i < suite->total_test_suite_count(); ++i) {
    const auto* tests = suite->GetTestSuite(i);
    if (std::string_view(tests->name()).starts_with("Memory/QueueConformance"))
      typed += static_cast<std::size_t>(tests->total_test_count());
  }
  EXPECT_EQ(typed, checks().size());
}

// The environment knobs: bad values are named, not ignored.
TEST(TypedSuiteTest, EnvironmentKnobsAreReadStrictly) {
  setenv("THM_CONFORMANCE_SEED", "42", 1);
  setenv("THM_CONFORMANCE_REPEAT", "3", 1);
  setenv("THM_CONFORMANCE_SHORT", "1", 1);
  const auto good = options_from_environment();
  ASSERT_TRUE(good) << good.error();
  EXPECT_EQ(good->seed, 42U);
  EXPECT_EQ(good->repeat, 3);
  EXPECT_TRUE(good->short_mode);

  setenv("THM_CONFORMANCE_SHORT", "yes", 1);
  const auto bad_short = options_from_environment();
  ASSERT_FALSE(bad_short);
  EXPECT_NE(bad_short.error().find("THM_CONFORMANCE_SHORT"), std::string::npos);

  setenv("THM_CONFORMANCE_SHORT", "0", 1);
  setenv("THM_CONFORMANCE_REPEAT", "0", 1);
  const auto bad_repeat = options_from_environment();
  ASSERT_FALSE(bad_repeat);
  EXPECT_NE(bad_repeat.error().find("THM_CONFORMANCE_REPEAT"), std::string::npos);

  unsetenv("THM_CONFORMANCE_REPEAT");
  EXPECT_EQ(options_from_environment()->stall, std::chrono::minutes(2));
  setenv("THM_CONFORMANCE_STALL_SECONDS", "0", 1);
  EXPECT_EQ(options_from_environment()->stall, std::chrono::milliseconds(0));
  setenv("THM_CONFORMANCE_STALL_SECONDS", "-5", 1);
  const auto bad_stall = options_from_environment();
  ASSERT_FALSE(bad_stall);
  EXPECT_NE(bad_stall.error().find("THM_CONFORMANCE_STALL_SECONDS"), std::string::npos);

  unsetenv("THM_CONFORMANCE_SEED");
  unsetenv("THM_CONFORMANCE_SHORT");
  unsetenv("THM_CONFORMANCE_STALL_SECONDS");
}

// The typed fixture, with `check` callable from a test of this file.
template <class H>
struct Fixture : QueueConformance<H> {
  using QueueConformance<H>::check;
  void TestBody() override {}
};

// What the typed suite reported for one check of `H`, intercepted: its failures and skips.
template <class H>
std::vector<::testing::TestPartResult> run_typed(std::string_view id) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    Fixture<H> fixture;
    fixture.check(id);
  }
  std::vector<::testing::TestPartResult> parts;
  for (int i = 0; i < results.size(); ++i) parts.push_back(results.GetTestPartResult(i));
  return parts;
}

// A broken queue: the in-memory one, except that a replay answers Enqueued again.
class ReplaysAsEnqueued final : public Harness {
  class Replaying final : public Session {
   public:
    explicit Replaying(std::unique_ptr<Session> inner) : inner_(std::move(inner)) {}
    Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
      auto answer = inner_->enqueue_once(request);
      if (answer && std::holds_alternative<Already>(*answer)) return EnqueueOutcome{Enqueued{}};
      return answer;
    }

   private:
    std::unique_ptr<Session> inner_;
  };

 public:
  std::string queue_name() const override { return "replays-as-enqueued"; }
  Capabilities capabilities() const override { return {}; }
  void reset() override { inner_.reset(); }
  std::unique_ptr<Session> open_session() override {
    return std::make_unique<Replaying>(inner_.open_session());
  }
  void commit_reply(const CommittedReply& reply) override { inner_.commit_reply(reply); }
  void set_policy(MentionDispatchPolicy policy) override { inner_.set_policy(policy); }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    inner_.set_authorized(source_id, target_id, authorized);
  }
  void set_available(const std::string& agent_id, bool available) override {
    inner_.set_available(agent_id, available);
  }
  void settle(std::uint64_t child_id, Settlement how) override { inner_.settle(child_id, how); }
  void run_maintenance() override { inner_.run_maintenance(); }
  std::vector<IdempotencyRecord> records() override { return inner_.records(); }
  std::vector<ChildTurn> children() override { return inner_.children(); }

 private:
  memory::MemoryHarness inner_;
};

// A failure once printed `"pass" Which is: 0x…`: it must print the check's report.
TEST(TypedSuiteTest, FailedCheckPrintsItsReport) {
  const auto results = run_typed<ReplaysAsEnqueued>("EQ-05");
  ASSERT_EQ(results.size(), 1U);
  const ::testing::TestPartResult& failure = results[0];
  EXPECT_TRUE(failure.failed());
  const std::string message = failure.message();
  EXPECT_EQ(message.find("Which is"), std::string::npos) << message;
  EXPECT_EQ(message.find("0x"), std::string::npos) << message;
  for (const char* part : {"EQ-05", "a replay answers Already, also after the store reopens",
                           "replay 1 got Enqueued", "seed 1", "attempts ", "children "}) {
    EXPECT_NE(message.find(part), std::string::npos) << "no '" << part << "' in: " << message;
  }
}

// The same check on the reference queue passes: no failure, no skip.
TEST(TypedSuiteTest, PassingCheckReportsNothing) {
  EXPECT_EQ(run_typed<memory::MemoryHarness>("EQ-05").size(), 0U);
}

// A required capability the harness does not declare fails every test, naming it; one it
// declares lets the check run as usual.
TEST(TypedSuiteTest, RequiredCapabilityNotDeclaredFailsTheTest) {
  setenv("THM_CONFORMANCE_REQUIRE", "hooks,persistent", 1);
  const auto results = run_typed<memory::MemoryHarness>("EQ-09");
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].failed());
  const std::string message = results[0].message();
  EXPECT_NE(message.find("`persistent`"), std::string::npos) << message;
  EXPECT_EQ(message.find("`hooks`"), std::string::npos) << message;  // declared
  EXPECT_NE(message.find("THM_CONFORMANCE_REQUIRE"), std::string::npos) << message;

  setenv("THM_CONFORMANCE_REQUIRE", "hooks,leases", 1);
  EXPECT_EQ(run_typed<memory::MemoryHarness>("EQ-09").size(), 0U);
  unsetenv("THM_CONFORMANCE_REQUIRE");
}

// Without a requirement, a check that needs an undeclared capability is skipped, not failed.
TEST(TypedSuiteTest, UndeclaredCapabilityOnlySkipsWithoutARequirement) {
  unsetenv("THM_CONFORMANCE_REQUIRE");
  const auto results = run_typed<ReplaysAsEnqueued>("EQ-02");  // needs hooks
  ASSERT_EQ(results.size(), 1U);
  EXPECT_TRUE(results[0].skipped());
  EXPECT_NE(std::string(results[0].message()).find("`hooks`"), std::string::npos);
}

// THM_CONFORMANCE_REQUIRE names capabilities strictly: known names only, no empty ones.
TEST(TypedSuiteTest, RequiredCapabilitiesAreReadStrictly) {
  unsetenv("THM_CONFORMANCE_REQUIRE");
  const auto none = required_capabilities_from_environment();
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none->empty());

  setenv("THM_CONFORMANCE_REQUIRE", "hooks, leases,skewable_client_clock", 1);
  const auto some = required_capabilities_from_environment();
  ASSERT_TRUE(some) << some.error();
  EXPECT_EQ(*some, (std::vector<std::string>{"hooks", "leases", "skewable_client_clock"}));

  for (const char* bad : {"hooks,teleport", "hooks,,leases", "max_sessions", "Hooks"}) {
    setenv("THM_CONFORMANCE_REQUIRE", bad, 1);
    const auto refused = required_capabilities_from_environment();
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().find("THM_CONFORMANCE_REQUIRE"), std::string::npos);
    for (const std::string_view known : capability_names()) {
      EXPECT_NE(refused.error().find(known), std::string::npos)
          << bad << ": the error does not name " << known << ": " << refused.error();
    }
  }
  unsetenv("THM_CONFORMANCE_REQUIRE");
}

// Every known name is one field of Capabilities, and `declares` reads that field alone.
TEST(TypedSuiteTest, CapabilityNamesAreTheFlagsOfCapabilities) {
  const std::vector<std::string_view> expected = {"hooks",
                                                  "row_locking",
                                                  "persistent",
                                                  "sql_schema",
                                                  "leases",
                                                  "injected_store_clock",
                                                  "skewable_client_clock",
                                                  "hold_child",
                                                  "nodes"};
  EXPECT_EQ(std::vector<std::string_view>(capability_names().begin(), capability_names().end()),
            expected);
  const Capabilities nothing{};
  for (const std::string_view name : capability_names()) {
    EXPECT_FALSE(declares(nothing, name)) << name;
  }
  const Capabilities some{.row_locking = true, .leases = true};
  for (const std::string_view name : capability_names()) {
    EXPECT_EQ(declares(some, name), name == "row_locking" || name == "leases") << name;
  }
}

// The judgement on a report under requirements: a skip or a part-pass whose reason names a
// required capability is a failure; anything else stands.
TEST(TypedSuiteTest, SkipOrPartPassForARequiredCapabilityFails) {
  const std::vector<std::string> leases = {"leases"};
  const std::vector<std::string> skew = {"skewable_client_clock"};
  const CheckRun skipped{.id = "EQ-14",
                         .title = "lease expiry computed by the store",
                         .verdict = Verdict::Skip,
                         .reason = "needs capability `leases` (claim, renew)"};
  const auto failed = unmet_requirement(skipped, leases);
  ASSERT_TRUE(failed.has_value());
  EXPECT_NE(failed->find("EQ-14"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("skipped"), std::string::npos) << *failed;
  EXPECT_NE(failed->find("`leases`"), std::string::npos) << *failed;
  EXPECT_FALSE(unmet_requirement(skipped, skew).has_value());
  EXPECT_FALSE(unmet_requirement(skipped, {}).has_value());

  const CheckRun in_part{.id = "EQ-15",
                         .title = "no stolen leases and no starvation under skew",
                         .verdict = Verdict::Pass,
                         .reason =
                             "the host's clock could not be moved (capability "
                             "`skewable_client_clock` is not declared)"};
  const auto part = unmet_requirement(in_part, skew);
  ASSERT_TRUE(part.has_value());
  EXPECT_NE(part->find("EQ-15"), std::string::npos) << *part;
  EXPECT_NE(part->find("in part"), std::string::npos) << *part;
  EXPECT_NE(part->find("`skewable_client_clock`"), std::string::npos) << *part;
  EXPECT_FALSE(unmet_requirement(in_part, leases).has_value());

  const CheckRun whole{.id = "EQ-15", .verdict = Verdict::Pass};
  EXPECT_FALSE(unmet_requirement(whole, skew).has_value());
  // A part-pass for another reason (EQ-04 trusts the harness's own index report) stands.
  const CheckRun trusted{.id = "EQ-04",
                         .verdict = Verdict::Pass,
                         .reason = "the index is the one the harness reports"};
  EXPECT_FALSE(unmet_requirement(trusted, std::vector<std::string>{"sql_schema"}).has_value());
}

}  // namespace
}  // namespace thm::conformance
