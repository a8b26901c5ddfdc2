// The in-memory reference queue against the suite, through direct calls: every check passes
// or is skipped for a stated reason, and the counts show the checks did real work.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "thm/conformance/invocation.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"

namespace thm::conformance {
namespace {

class MemoryConformanceTest : public ::testing::TestWithParam<Check> {};

}  // namespace

// GoogleTest names a parameter by its id rather than its bytes.
void PrintTo(const Check& check, std::ostream* out) { *out << check.id; }

namespace {

TEST_P(MemoryConformanceTest, PassesOrSkipsWithAReason) {
  memory::MemoryHarness harness;
  const CheckRun report = run_check(GetParam().id, harness, Options{.seed = 11, .repeat = 10});
  EXPECT_EQ(report.id, GetParam().id);
  if (report.verdict == Verdict::Skip) {
    EXPECT_FALSE(report.reason.empty());
    // the only checks that cannot apply to a store without SQL or row locks, kept in memory
    // on one node
    EXPECT_TRUE(report.id == "EQ-04" || report.id == "EQ-17" || report.id == "EQ-23" ||
                report.id == "EQ-27" || report.id == "EQ-28" || report.id == "EQ-29" ||
                report.id == "EQ-30")
        << report.id;
    if (report.id >= "EQ-28") {
      EXPECT_NE(report.reason.find("`nodes`"), std::string::npos) << report.reason;
    }
    return;
  }
  EXPECT_EQ(name(report.verdict), "pass") << report.reason;
  EXPECT_GT(report.counts.attempts, 0U);
  EXPECT_EQ(report.counts.lost + report.counts.duplicated + report.counts.unexpected, 0U);
}

INSTANTIATE_TEST_SUITE_P(EveryCheck, MemoryConformanceTest,
                         ::testing::ValuesIn(checks().begin(), checks().end()),
                         [](const auto& param_info) {
                           std::string id(param_info.param.id);
                           std::erase(id, '-');
                           return id;
                         });

TEST(SuiteTest, ChecksAreInEqOrder) {
  std::vector<std::string> ids;
  for (const Check& check : checks()) ids.emplace_back(check.id);
  const std::vector<std::string> expected{
      "EQ-01", "EQ-02", "EQ-03", "EQ-04", "EQ-05", "EQ-06", "EQ-07", "EQ-08", "EQ-09",
      "EQ-10", "EQ-11", "EQ-12", "EQ-13", "EQ-14", "EQ-15", "EQ-16", "EQ-17", "EQ-18",
      "EQ-19", "EQ-20", "EQ-21", "EQ-22", "EQ-23", "EQ-24", "EQ-25", "EQ-26", "EQ-27",
      "EQ-28", "EQ-29", "EQ-30", "EQ-31", "EQ-32", "EQ-33", "EQ-34", "EQ-35"};
  EXPECT_EQ(ids, expected);
}

TEST(SuiteTest, AnUnknownIdIsAFailingReportNotACrash) {
  memory::MemoryHarness harness;
  const CheckRun report = run_check("EQ-99", harness, {});
  EXPECT_EQ(report.verdict, Verdict::Fail);
  EXPECT_NE(report.reason.find("no check"), std::string::npos);
}

TEST(SuiteTest, RaceCountsFollowTheRepeatCount) {
  memory::MemoryHarness harness;
  const CheckRun report =
      run_check("EQ-01", harness, Options{.seed = 3, .repeat = 4, .short_mode = true});
  ASSERT_EQ(report.verdict, Verdict::Pass) << report.reason;
  EXPECT_EQ(report.counts.attempts, 4U * (2 + 8));
  EXPECT_EQ(report.counts.enqueued, 4U * 2);
  EXPECT_EQ(report.counts.already, 4U * (1 + 7));
  EXPECT_EQ(report.counts.children, 4U * 2);
}

// A store that declares limits too large to send: EQ-21 tests at its caps and says so,
// rather than allocating a gigabyte.
TEST(SuiteTest, HugeDeclaredLimitsAreTestedAtTheCapWithANote) {
  memory::MemoryHarness harness(
      memory::Limits{.max_content_bytes = std::size_t{1} << 30, .max_id_bytes = 1 << 20});
  const CheckRun report = run_check("EQ-21", harness, Options{.seed = 2});
  EXPECT_EQ(name(report.verdict), "pass") << report.reason;
  EXPECT_NE(report.reason.find("16 MiB"), std::string::npos) << report.reason;
  EXPECT_NE(report.reason.find("64 KiB"), std::string::npos) << report.reason;
}

// A harness whose writes do nothing and whose store is always empty: the tests below give it
// the one behaviour they are about.
class StubHarness : public Harness {
 public:
  std::string queue_name() const override { return "stub"; }
  Capabilities capabilities() const override { return {}; }
  void reset() override {}
  void commit_reply(const CommittedReply&) override {}
  void set_policy(MentionDispatchPolicy) override {}
  void set_authorized(const std::string&, const std::string&, bool) override {}
  void set_available(const std::string&, bool) override {}
  void settle(std::uint64_t, Settlement) override {}
  void run_maintenance() override {}
  std::vector<IdempotencyRecord> records() override { return {}; }
  std::vector<ChildTurn> children() override { return {}; }
};

// A harness whose every call throws: each check fails (or skips) with the harness's message.
class ThrowingHarness final : public StubHarness {
 public:
  Capabilities capabilities() const override { return {.hooks = true}; }
  void reset() override { throw std::runtime_error("store is down"); }
  std::unique_ptr<Session> open_session() override { throw std::runtime_error("store is down"); }
  void set_hook(TransactionHook) override {}
};

TEST(SuiteTest, HarnessExceptionsBecomeFailingReports) {
  ThrowingHarness harness;
  Progress quiet;
  const auto result = run_invocation(harness, Invocation{.repeat = 1, .short_mode = true}, quiet);
  ASSERT_EQ(result.results.size(), checks().size());
  for (const CheckRun& report : result.totals()) {
    if (report.verdict == Verdict::Skip) continue;
    EXPECT_EQ(report.verdict, Verdict::Fail) << report.id;
    EXPECT_NE(report.reason.find("store is down"), std::string::npos)
        << report.id << ": " << report.reason;
  }
}

// A harness whose sessions never answer: a deadlocked store.
class StuckHarness final : public StubHarness {
 public:
  std::unique_ptr<Session> open_session() override {
    class Stuck final : public Session {
      Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest&) override {
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
      }
    };
    return std::make_unique<Stuck>();
  }
};

// Declarations that cannot be proven fail EQ-24 before it touches the store: a capability
// that qualifies leases without `leases`, and room for fewer than two sessions.
TEST(SuiteTest, CapabilitiesThatProveNothingFailEq24) {
  struct Declaring final : StubHarness {
    Capabilities declared;
    explicit Declaring(Capabilities c) : declared(c) {}
    Capabilities capabilities() const override { return declared; }
    void reset() override { throw std::runtime_error("the store was touched"); }
    std::unique_ptr<Session> open_session() override { throw std::runtime_error("touched"); }
  };
  for (const auto& [declared, expected] :
       {std::pair{Capabilities{.skewable_client_clock = true},
                  "`skewable_client_clock` is declared without `leases`"},
        std::pair{Capabilities{.hold_child = true}, "`hold_child` is declared without `leases`"},
        std::pair{Capabilities{.max_sessions = 1}, "`max_sessions` is 1"}}) {
    Declaring harness(declared);
    const CheckRun report = run_check("EQ-24", harness, Options{.repeat = 1});
    EXPECT_EQ(report.verdict, Verdict::Fail) << report.reason;
    EXPECT_NE(report.reason.find(expected), std::string::npos) << report.reason;
  }
  Declaring one_session(Capabilities{.max_sessions = 1});
  const CheckRun race = run_check("EQ-01", one_session, Options{.repeat = 1});
  EXPECT_EQ(race.verdict, Verdict::Fail) << "a race that cannot run must not read as a skip";
}

// A stuck store fails the check that met it, by id and step, instead of hanging the run.
TEST(WatchdogDeathTest, AStalledCheckEndsTheProcessSayingWhereItStood) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto stall = [] {
    StuckHarness harness;
    (void)run_check("EQ-05", harness, Options{.seed = 3, .stall = std::chrono::milliseconds(300)});
  };
  EXPECT_EXIT(stall(), ::testing::ExitedWithCode(1),
              "thm conformance: EQ-05 \\(a replay answers Already, also after the store reopens\\) "
              "made no progress for 300 ms "
              "while: waiting for enqueue_once to answer; the harness or its store is stuck "
              "\\(seed 3\\)");
}

TEST(WatchdogTest, ZeroTurnsItOffAndAFinishedCheckStopsIt) {
  memory::MemoryHarness harness;
  for (const auto stall : {std::chrono::milliseconds(0), std::chrono::milliseconds(300)}) {
    const CheckRun report = run_check("EQ-05", harness, Options{.stall = stall});
    EXPECT_EQ(report.verdict, Verdict::Pass) << report.reason;
  }
  // A watchdog that outlived its check would end this process meanwhile.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
}

}  // namespace
}  // namespace thm::conformance
