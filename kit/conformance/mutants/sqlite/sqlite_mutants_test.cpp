// Every SQL mutant of queue-conformance.md §7 must fail the checks that section lists for it,
// on a real SQLite database: each required ("bold") check on its own, and at least one listed
// check overall. The same queue with no flaw must pass every one of those checks, so a
// failure is the flaw's and not the harness's.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../listed_checks.hpp"
#include "broken_sqlite.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::sqlite_mutants {

/// Prints a flaw by its label in test names and failures (GoogleTest finds it by ADL).
void PrintTo(SqlFlaw flaw, std::ostream* out) { *out << name(flaw); }

namespace {

using mutants::describe;
using mutants::ListedCheck;

/// The checks that must reject one mutant.
struct Expectation {
  SqlFlaw flaw{};
  std::vector<ListedCheck> checks{};
};

// queue-conformance.md §7 for the SQL mutants, adjusted to SQLite where the store decides:
// - Bold means "must fail on its own here": §7's bold checks, plus checks that are
//   deterministic on SQLite (EQ-04 reads the schema; EQ-06 and EQ-21 need no race).
// - EQ-01 races and stays listed, not required (it is §7's "flaky" one).
// - M2: SQLite does not poison a transaction after a failed statement, so §7's EQ-10 sees
//   M2 only through its race of two sessions on one key, which is a race: listed, not
//   required. EQ-02 catches it deterministically: the paused first caller
//   makes the second one insert late.
// - M14: EQ-04 sees the partial index that §5.1 forbids.
// - M16 and M17 are the lease-token rules EQ-26 pins on SQLite's real clock.
// - M18: EQ-27 holds the write lock while two claimers pick their child, so
//   both take it every time; EQ-19's race may or may not land in the window.
const std::vector<Expectation>& expectations() {
  static const std::vector<Expectation> table{
      {SqlFlaw::CheckThenInsert, {{"EQ-01", false}, {"EQ-02", true}, {"EQ-04", true}}},
      {SqlFlaw::CatchUniqueViolation, {{"EQ-01", false}, {"EQ-10", false}, {"EQ-02", true}}},
      {SqlFlaw::AutocommitRecord, {{"EQ-08", true}, {"EQ-06", true}}},
      {SqlFlaw::ClientClockExpiry, {{"EQ-14", true}, {"EQ-15", true}}},
      {SqlFlaw::ClientClockPredicate, {{"EQ-15", true}}},
      {SqlFlaw::HiddenAttempts, {{"EQ-18", true}}},
      {SqlFlaw::TruncatedKey, {{"EQ-20", true}, {"EQ-21", true}}},
      {SqlFlaw::LiveStateDedup, {{"EQ-22", true}, {"EQ-04", true}}},
      {SqlFlaw::ExpiredTokenAccepted, {{"EQ-26", true}}},
      {SqlFlaw::ChildIdToken, {{"EQ-26", true}}},
      {SqlFlaw::ClaimWithoutRowLock, {{"EQ-27", true}, {"EQ-19", false}}},
      {SqlFlaw::FixedLeaseLength,
       {{"EQ-14", true}, {"EQ-15", true}, {"EQ-18", true}, {"EQ-26", true}}},
      {SqlFlaw::FixedShortLease, {{"EQ-14", true}, {"EQ-25", false}}},
  };
  return table;
}

const Options kOptions{.seed = 7, .repeat = 10, .short_mode = true};

const Expectation* expectation_for(SqlFlaw flaw) {
  const auto& table = expectations();
  const auto found = std::ranges::find(table, flaw, &Expectation::flaw);
  return found == table.end() ? nullptr : &*found;
}

TEST(SqliteMutantTableTest, EveryFlawHasExactlyOneExpectation) {
  for (const SqlFlaw flaw : all_sql_flaws()) {
    EXPECT_EQ(std::ranges::count(expectations(), flaw, &Expectation::flaw), 1) << name(flaw);
  }
  EXPECT_EQ(expectations().size(), all_sql_flaws().size());
}

class SqliteMutantTest : public testing::TestWithParam<SqlFlaw> {};

// What `thm::sqlite::SqliteHarness` declares, so no check is skipped for want of it.
TEST_P(SqliteMutantTest, DeclaresWhatTheReferenceDeclares) {
  const Capabilities capabilities = broken_sqlite_harness(GetParam())->capabilities();
  EXPECT_TRUE(capabilities.hooks);
  EXPECT_TRUE(capabilities.row_locking);
  EXPECT_TRUE(capabilities.persistent);
  EXPECT_TRUE(capabilities.sql_schema);
  EXPECT_EQ(capabilities.max_content_bytes, std::size_t{1} << 20);
  EXPECT_EQ(capabilities.max_id_bytes, std::size_t{1024});
  EXPECT_TRUE(capabilities.leases);
  EXPECT_FALSE(capabilities.injected_store_clock);
  EXPECT_TRUE(capabilities.hold_child);
  EXPECT_EQ(capabilities.max_attempts, 3U);
}

TEST_P(SqliteMutantTest, FailsTheChecksListedForIt) {
  const Expectation* expected = expectation_for(GetParam());
  ASSERT_NE(expected, nullptr) << name(GetParam());
  const auto harness = broken_sqlite_harness(GetParam());
  mutants::expect_rejected(*harness, expected->checks, kOptions, name(GetParam()));
}

// "M1 check-then-insert, no unique index" → "M1".
std::string mutant_id(const testing::TestParamInfo<SqlFlaw>& flaw) {
  const std::string_view label = name(flaw.param);
  return std::string(label.substr(0, label.find(' ')));
}

INSTANTIATE_TEST_SUITE_P(AllSqlFlaws, SqliteMutantTest, testing::ValuesIn(all_sql_flaws()),
                         mutant_id);

// The control: with no flaw, the same queue and harness pass every check the table lists,
// plus EQ-05 (replay after reopening), EQ-23 (a forked process killed mid-enqueue) and EQ-24
// (capabilities both ways), which exercise the harness's own persistence.
TEST(SqliteControlTest, NoFlawPassesEveryListedCheck) {
  std::set<std::string_view> ids{"EQ-05", "EQ-23", "EQ-24"};
  for (const Expectation& expected : expectations()) {
    for (const ListedCheck& listed : expected.checks) ids.insert(listed.id);
  }
  const auto harness = broken_sqlite_harness(SqlFlaw::None);
  for (const std::string_view id : ids) {
    const CheckRun report = run_check(id, *harness, kOptions);
    std::cout << "[" << harness->queue_name() << "] " << describe(report) << "\n";
    EXPECT_EQ(report.verdict, Verdict::Pass) << describe(report);
  }
}

// On a real store clock EQ-25 claims for an hour, and its counterexample must say so: it
// once printed the injected clock's lengths (1000 ms for 3,600,000 ms sent).
TEST(SqliteModelCheckTest, ACounterexampleShowsTheLeaseLengthThatWasSent) {
  const auto harness = broken_sqlite_harness(SqlFlaw::HiddenAttempts);
  const CheckRun report = run_check("EQ-25", *harness, kOptions);
  ASSERT_EQ(report.verdict, Verdict::Fail) << describe(report);
  EXPECT_NE(report.reason.find("Claim(3600000 ms)"), std::string::npos) << report.reason;
  for (const char* wrong : {"Claim(1000 ms)", "Claim(30000 ms)", "Claim(300000 ms)"}) {
    EXPECT_EQ(report.reason.find(wrong), std::string::npos) << report.reason;
  }
}

}  // namespace
}  // namespace thm::conformance::sqlite_mutants
