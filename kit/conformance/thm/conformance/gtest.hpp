#pragma once
/// \file
/// The conformance suite as a GoogleTest typed test suite, one test per EQ check. A host
/// instantiates it for its harness type in one file:
///
///     #include "thm/conformance/gtest.hpp"
///     namespace thm::conformance {  // the macro needs the suite's own namespace
///     INSTANTIATE_TYPED_TEST_SUITE_P(MyQueue, QueueConformance, ::testing::Types<MyHarness>);
///     }
///
/// `MyHarness` derives from `thm::conformance::Harness` and is default-constructible; each
/// test builds a fresh one. A skipped check is reported with GTEST_SKIP and its reason (ctest
/// lists it as "Skipped" when the tests come from `gtest_discover_tests`); a failed one with
/// its id, title, reason, seed and counts. Knobs come from the environment:
/// `THM_CONFORMANCE_SEED` (default 1), `THM_CONFORMANCE_REPEAT` (default 25) and
/// `THM_CONFORMANCE_SHORT=1`, and `THM_CONFORMANCE_STALL_SECONDS` (default 120; 0 turns the
/// watchdog off: `Options::stall`). Link `thm::conformance` and GoogleTest.
///
/// Each test runs its check as `thm conformance --check` would (`run_invocation`), and the
/// reports `thm conformance` writes can be asked for here too, written when the test program
/// ends: `THM_CONFORMANCE_REPORT=PATH` (JSON), `THM_CONFORMANCE_JUNIT=PATH` and
/// `THM_CONFORMANCE_HTML=PATH` (`report.hpp`). A program that tests several harness types
/// writes one report of each kind per type, `PATH` with `.<queue name>` before its extension.
///
/// `THM_CONFORMANCE_REQUIRE=hooks,leases` (a comma-separated list of `capability_names()`:
/// the flags of `Capabilities`, not its `max_*` limits) makes skips that matter fail:
/// - every test fails, naming the capability and without running its check, when the
///   harness's `capabilities()` does not declare one of the list (exact);
/// - a check that is skipped, or passes only in part (`left_unproven`), with a reason that
///   names a required capability as `` `name` `` fails (a reason that does not name one, like
///   EQ-17's "not implemented yet" or EQ-04's trust in the harness's index report, stands).
/// An unknown or empty name fails every test with a message listing the known names.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <concepts>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/invocation.hpp"
#include "thm/conformance/report.hpp"
#include "thm/conformance/requirements.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance {

/// The suite's options read from the environment (see the file comment), or a message
/// naming the variable that does not hold a whole number in range.
inline Result<Options, std::string> options_from_environment() {
  Options options;
  // The variable's value; `least - 1` when it is not a whole number in [least, most].
  const auto number = [](const char* variable, long long least,
                         long long most) -> std::optional<long long> {
    const char* text = std::getenv(variable);
    if (text == nullptr) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < least || value > most)
      return least - 1;
    return value;
  };
  if (const auto seed = number("THM_CONFORMANCE_SEED", 0, std::numeric_limits<long long>::max())) {
    if (*seed < 0)
      return unexpected{std::string("THM_CONFORMANCE_SEED must be a whole number >= 0")};
    options.seed = static_cast<std::uint64_t>(*seed);
  }
  if (const auto stall = number("THM_CONFORMANCE_STALL_SECONDS", 0, 86'400)) {
    if (*stall < 0) {
      return unexpected{
          std::string("THM_CONFORMANCE_STALL_SECONDS must be a whole number from 0 to 86400")};
    }
    options.stall = std::chrono::seconds(*stall);
  }
  if (const auto repeat = number("THM_CONFORMANCE_REPEAT", 1, 1'000'000)) {
    if (*repeat < 1)
      return unexpected{
          std::string("THM_CONFORMANCE_REPEAT must be a whole number from 1 to 1000000")};
    options.repeat = static_cast<int>(*repeat);
  }
  if (const char* quick = std::getenv("THM_CONFORMANCE_SHORT")) {
    const std::string_view value(quick);
    if (value != "0" && value != "1" && !value.empty()) {
      return unexpected{std::string("THM_CONFORMANCE_SHORT must be 1 (short) or 0 (full)")};
    }
    options.short_mode = value == "1";
  }
  return options;
}

/// The capabilities `THM_CONFORMANCE_REQUIRE` names (`parse_requirements`), or a message
/// naming an unknown or empty name and listing the known; none when it is unset or empty.
inline Result<std::vector<std::string>, std::string> required_capabilities_from_environment() {
  const char* text = std::getenv("THM_CONFORMANCE_REQUIRE");
  if (text == nullptr) return std::vector<std::string>{};
  return parse_requirements(text, "THM_CONFORMANCE_REQUIRE");
}

/// A failed check's report as a test failure: id, title, reason, seed and counts.
inline std::string failure_message(const CheckRun& report) {
  const Counts& c = report.counts;
  return report.id + " (" + report.title + ") failed: " + report.reason + "\n  seed " +
         std::to_string(report.seed) + "; attempts " + std::to_string(c.attempts) + ", enqueued " +
         std::to_string(c.enqueued) + ", already " + std::to_string(c.already) + ", refused " +
         std::to_string(c.refused) + ", errors " + std::to_string(c.errors) + ", indeterminate " +
         std::to_string(c.indeterminate) + ", children " + std::to_string(c.children) + ", lost " +
         std::to_string(c.lost) + ", duplicated " + std::to_string(c.duplicated) + ", unexpected " +
         std::to_string(c.unexpected);
}

namespace detail {

/// The checks the typed suite ran in this program, by harness, and the reports the
/// environment asks for, written when the program ends (a GoogleTest environment).
class GtestReports final : public ::testing::Environment {
 public:
  /// The one instance, registered with GoogleTest when the program starts.
  static GtestReports& instance() {
    static GtestReports* const reports = [] {
      auto* made = new GtestReports;
      ::testing::AddGlobalTestEnvironment(made);  // GoogleTest owns it
      return made;
    }();
    return *reports;
  }

  /// Notes `result`, the check `harness` just ran with `options`.
  void add(Harness& harness, const Options& options, CheckResult result) {
    const std::scoped_lock lock(mutex_);
    auto [ran, made] = by_queue_.try_emplace(harness.queue_name());
    if (made) {
      ran->second.run = {.tool = "thm::conformance (GoogleTest)",
                         .harness = ran->first,
                         .queue = ran->first,
                         .seed = options.seed,
                         .runs = 1,
                         .repeat = options.repeat,
                         .short_mode = options.short_mode,
                         .capabilities = harness.capabilities()};
    }
    ran->second.run.checks.push_back(result.total.id);
    ran->second.run.duration_ms += result.run_ms.empty() ? 0 : result.run_ms.front();
    ran->second.results.push_back(std::move(result));
  }

  /// Writes each report the environment names; a test program whose reports cannot be
  /// written says so on stderr and fails.
  void TearDown() override {
    const std::scoped_lock lock(mutex_);
    for (const auto& [variable, write] : kinds()) {
      const char* path = std::getenv(variable);
      if (path == nullptr || *path == '\0') continue;
      for (const auto& [queue, ran] : by_queue_) {
        const std::string target = by_queue_.size() == 1 ? path : with_queue(path, queue);
        ReportFile file;
        if (!file.open(target) || !file.commit(write(ran.run, ran.results))) {
          ADD_FAILURE() << variable << ": cannot write the report to '" << target << "'";
        }
      }
    }
  }

 private:
  struct Ran {
    RunDescription run{};
    std::vector<CheckResult> results{};
  };
  using Writer = std::string (*)(const RunDescription&, std::span<const CheckResult>);

  static std::vector<std::pair<const char*, Writer>> kinds() {
    return {{"THM_CONFORMANCE_REPORT", &to_json},
            {"THM_CONFORMANCE_JUNIT", &to_junit},
            {"THM_CONFORMANCE_HTML", &to_html}};
  }
  // `path` with `.queue` before its extension: `report.json` -> `report.sqlite.json`.
  static std::string with_queue(const std::string& path, std::string queue) {
    for (char& c : queue) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-') c = '_';
    }
    const std::filesystem::path p(path);
    return (p.parent_path() / (p.stem().string() + "." + queue + p.extension().string())).string();
  }

  std::mutex mutex_;
  std::map<std::string, Ran> by_queue_;
};

// Registered before the tests run, so that its TearDown writes the reports at the end.
inline GtestReports& g_gtest_reports = GtestReports::instance();

}  // namespace detail

/// What the typed suite needs of a harness type: a default-constructible `Harness`.
template <class H>
concept ConformanceHarness = std::derived_from<H, Harness> && std::default_initializable<H>;

/// The typed fixture: `check(id)` runs one check against a fresh `H`.
template <class H>
class QueueConformance : public ::testing::Test {
  static_assert(ConformanceHarness<H>,
                "QueueConformance<H>: H must derive from thm::conformance::Harness and be "
                "default-constructible");

 protected:
  void check(std::string_view id) {
    const auto options = options_from_environment();
    if (!options) FAIL() << options.error();
    const auto required = required_capabilities_from_environment();
    if (!required) FAIL() << required.error();
    H harness;
    if (!required->empty()) {
      std::string missing;
      std::string harness_name;
      try {
        missing = undeclared(harness.capabilities(), *required);
        harness_name = harness.queue_name();
      } catch (const std::exception& e) {
        FAIL() << id << ": the harness's capabilities() or queue_name() threw: " << e.what();
      } catch (...) {
        FAIL() << id << ": the harness's capabilities() or queue_name() threw";
      }
      if (!missing.empty()) {
        FAIL() << "THM_CONFORMANCE_REQUIRE requires " << missing << ", which harness `"
               << harness_name << "` does not declare in capabilities(); " << id << " was not run";
      }
    }
    Progress quiet;
    const InvocationResult result = run_invocation(harness,
                                                   {.checks = {std::string(id)},
                                                    .seed = options->seed,
                                                    .repeat = options->repeat,
                                                    .short_mode = options->short_mode,
                                                    .stall = options->stall,
                                                    .require = *required,
                                                    .require_by = "THM_CONFORMANCE_REQUIRE"},
                                                   quiet);
    const CheckRun& report = result.results.front().total;
    detail::GtestReports::instance().add(harness, *options, result.results.front());
    if (report.verdict == Verdict::Skip) GTEST_SKIP() << report.id << " skipped: " << report.reason;
    if (report.verdict != Verdict::Pass) FAIL() << failure_message(report);
  }
};

TYPED_TEST_SUITE_P(QueueConformance);

TYPED_TEST_P(QueueConformance, EQ01_RaceOnOneKey) { this->check("EQ-01"); }
TYPED_TEST_P(QueueConformance, EQ02_PauseFirstCallerBeforeCommit) { this->check("EQ-02"); }
TYPED_TEST_P(QueueConformance, EQ03_FirstCallerRollsBack) { this->check("EQ-03"); }
TYPED_TEST_P(QueueConformance, EQ04_UniqueConstraint) { this->check("EQ-04"); }
TYPED_TEST_P(QueueConformance, EQ05_AnswerOnReplay) { this->check("EQ-05"); }
TYPED_TEST_P(QueueConformance, EQ06_IndeterminateThenRetry) { this->check("EQ-06"); }
TYPED_TEST_P(QueueConformance, EQ07_Accounting) { this->check("EQ-07"); }
TYPED_TEST_P(QueueConformance, EQ08_ForcedRollbackLeavesNothing) { this->check("EQ-08"); }
TYPED_TEST_P(QueueConformance, EQ09_RefusedLeavesNothing) { this->check("EQ-09"); }
TYPED_TEST_P(QueueConformance, EQ10_SessionSurvivesEveryAnswer) { this->check("EQ-10"); }
TYPED_TEST_P(QueueConformance, EQ11_MismatchMatrix) { this->check("EQ-11"); }
TYPED_TEST_P(QueueConformance, EQ12_PolicyInsideTheTransaction) { this->check("EQ-12"); }
TYPED_TEST_P(QueueConformance, EQ13_StoredReplyEditedConcurrently) { this->check("EQ-13"); }
TYPED_TEST_P(QueueConformance, EQ14_ExpiryComputedByTheStore) { this->check("EQ-14"); }
TYPED_TEST_P(QueueConformance, EQ15_NoStolenLeaseNoStarvation) { this->check("EQ-15"); }
TYPED_TEST_P(QueueConformance, EQ16_LeaseApiTakesDurations) { this->check("EQ-16"); }
TYPED_TEST_P(QueueConformance, EQ17_StatementTime) { this->check("EQ-17"); }
TYPED_TEST_P(QueueConformance, EQ18_AttemptsVisible) { this->check("EQ-18"); }
TYPED_TEST_P(QueueConformance, EQ19_ConcurrentClaimers) { this->check("EQ-19"); }
TYPED_TEST_P(QueueConformance, EQ20_CanonicalKeys) { this->check("EQ-20"); }
TYPED_TEST_P(QueueConformance, EQ21_LargeAndAdversarialInputs) { this->check("EQ-21"); }
TYPED_TEST_P(QueueConformance, EQ22_RecordOutlivesChild) { this->check("EQ-22"); }
TYPED_TEST_P(QueueConformance, EQ23_CrashAndRestart) { this->check("EQ-23"); }
TYPED_TEST_P(QueueConformance, EQ24_CapabilitiesMatchBehaviour) { this->check("EQ-24"); }
TYPED_TEST_P(QueueConformance, EQ25_AgreesWithTheModelQueue) { this->check("EQ-25"); }
TYPED_TEST_P(QueueConformance, EQ26_StaleTokensRefused) { this->check("EQ-26"); }
TYPED_TEST_P(QueueConformance, EQ27_ClaimsRespectAHeldRow) { this->check("EQ-27"); }
TYPED_TEST_P(QueueConformance, EQ28_LeaderKilled) { this->check("EQ-28"); }
TYPED_TEST_P(QueueConformance, EQ29_FollowerKilled) { this->check("EQ-29"); }
TYPED_TEST_P(QueueConformance, EQ30_LeaderPaused) { this->check("EQ-30"); }
TYPED_TEST_P(QueueConformance, EQ31_ReplayWhileLeased) { this->check("EQ-31"); }
TYPED_TEST_P(QueueConformance, EQ32_LeaseOperationsOnTheStoreClock) { this->check("EQ-32"); }
TYPED_TEST_P(QueueConformance, EQ33_ErrorKindsMatchTheStore) { this->check("EQ-33"); }
TYPED_TEST_P(QueueConformance, EQ34_InputDomain) { this->check("EQ-34"); }
TYPED_TEST_P(QueueConformance, EQ35_ConcurrentCallsLinearizable) { this->check("EQ-35"); }

REGISTER_TYPED_TEST_SUITE_P(
    QueueConformance, EQ01_RaceOnOneKey, EQ02_PauseFirstCallerBeforeCommit,
    EQ03_FirstCallerRollsBack, EQ04_UniqueConstraint, EQ05_AnswerOnReplay,
    EQ06_IndeterminateThenRetry, EQ07_Accounting, EQ08_ForcedRollbackLeavesNothing,
    EQ09_RefusedLeavesNothing, EQ10_SessionSurvivesEveryAnswer, EQ11_MismatchMatrix,
    EQ12_PolicyInsideTheTransaction, EQ13_StoredReplyEditedConcurrently,
    EQ14_ExpiryComputedByTheStore, EQ15_NoStolenLeaseNoStarvation, EQ16_LeaseApiTakesDurations,
    EQ17_StatementTime, EQ18_AttemptsVisible, EQ19_ConcurrentClaimers, EQ20_CanonicalKeys,
    EQ21_LargeAndAdversarialInputs, EQ22_RecordOutlivesChild, EQ23_CrashAndRestart,
    EQ24_CapabilitiesMatchBehaviour, EQ25_AgreesWithTheModelQueue, EQ26_StaleTokensRefused,
    EQ27_ClaimsRespectAHeldRow, EQ28_LeaderKilled, EQ29_FollowerKilled, EQ30_LeaderPaused,
    EQ31_ReplayWhileLeased, EQ32_LeaseOperationsOnTheStoreClock, EQ33_ErrorKindsMatchTheStore,
    EQ34_InputDomain, EQ35_ConcurrentCallsLinearizable);

}  // namespace thm::conformance
