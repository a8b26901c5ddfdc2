// Every SQL mutant of queue-conformance.md §7 must fail the checks that section lists for it,
// on a real PostgreSQL server (the throwaway one CTest starts, fixture `postgres`): each
// required ("bold") check on its own, and at least one listed check overall. The same queue
// with no flaw must pass every one of those checks, so a failure is the flaw's and not the
// harness's.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../listed_checks.hpp"
#include "broken_postgres.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/postgres/postgres_queue.hpp"

namespace thm::conformance::postgres_mutants {

/// Prints a flaw by its label in test names and failures (GoogleTest finds it by ADL).
void PrintTo(PgFlaw flaw, std::ostream* out) { *out << name(flaw); }

namespace {

using mutants::describe;
using mutants::ListedCheck;

/// The checks that must reject one mutant.
struct Expectation {
  PgFlaw flaw{};
  std::vector<ListedCheck> checks{};
};

// queue-conformance.md §7 for the SQL mutants, on PostgreSQL:
// - Bold means "must fail on its own here": §7's bold checks, plus checks that are
//   deterministic on PostgreSQL (EQ-04 reads the catalog; EQ-06 needs no race; EQ-21 sends
//   1 MiB; EQ-02 pauses the first caller, so M2's second caller always meets the violation).
// - EQ-01 races and stays listed, not required (it is §7's "flaky" one).
// - M2, M2b: §7's bold EQ-10 sees them through its race of two sessions on one key. That is
//   a race, but here it lands every time (both sessions look before either commits, so the
//   loser always meets the violation; 100 of 100 runs), so it is required.
// - M2b answers exactly as a correct queue does; EQ-01 and EQ-02 stay listed to show that
//   they pass it and only EQ-10's reuse of the losing session catches it.
// - M14: EQ-04 sees the partial index that §5.1 forbids.
// - M16 and M17 are the lease-token rules EQ-26 pins on the server's clock.
// - M12: EQ-12 pauses the step after BEGIN and revokes meanwhile: the policy was read
//   before, so the step enqueues every time. (On SQLite the write lock makes the revocation
//   wait, so EQ-12 cannot judge there; no SQLite M12.)
// - M18: EQ-27 holds the child's row while two claimers read it, so both take
//   it every time; EQ-19's race of 8 claimers may or may not land in the window.
const std::vector<Expectation>& expectations() {
  static const std::vector<Expectation> table{
      {PgFlaw::CheckThenInsert, {{"EQ-01", false}, {"EQ-02", true}, {"EQ-04", true}}},
      {PgFlaw::CatchUniqueViolation, {{"EQ-01", false}, {"EQ-10", true}, {"EQ-02", true}}},
      {PgFlaw::PoisonedSession, {{"EQ-01", false}, {"EQ-02", false}, {"EQ-10", true}}},
      {PgFlaw::AutocommitRecord, {{"EQ-08", true}, {"EQ-06", true}}},
      {PgFlaw::ClientClockExpiry, {{"EQ-14", true}, {"EQ-15", true}}},
      {PgFlaw::ClientClockPredicate, {{"EQ-15", true}}},
      {PgFlaw::HiddenAttempts, {{"EQ-18", true}}},
      {PgFlaw::TruncatedKey, {{"EQ-20", true}, {"EQ-21", true}}},
      {PgFlaw::LiveStateDedup, {{"EQ-22", true}, {"EQ-04", true}}},
      {PgFlaw::ExpiredTokenAccepted, {{"EQ-26", true}}},
      {PgFlaw::ChildIdToken, {{"EQ-26", true}}},
      {PgFlaw::ClaimWithoutRowLock, {{"EQ-27", true}, {"EQ-19", false}}},
      {PgFlaw::RevalidationOutsideTransaction, {{"EQ-12", true}, {"EQ-13", false}}},
  };
  return table;
}

const Options kOptions{.seed = 7, .repeat = 10, .short_mode = true};

const Expectation* expectation_for(PgFlaw flaw) {
  const auto& table = expectations();
  const auto found = std::ranges::find(table, flaw, &Expectation::flaw);
  return found == table.end() ? nullptr : &*found;
}

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? std::string() : std::string(value);
}

/// The harness for `flaw` on the server `$THM_POSTGRES` names, restarted (EQ-23) with
/// `$THM_POSTGRES_RESTART`; nothing when `THM_POSTGRES` is unset (the caller skips).
std::unique_ptr<Harness> harness_for(PgFlaw flaw) {
  if (std::getenv("THM_POSTGRES") == nullptr) return nullptr;
  return broken_postgres_harness(flaw, environment("THM_POSTGRES"),
                                 environment("THM_POSTGRES_RESTART"));
}

constexpr const char* kNoServer =
    "THM_POSTGRES is unset; run through `ctest --preset dev -L postgres`, which starts a "
    "throwaway server";

TEST(PostgresMutantTableTest, EveryFlawHasExactlyOneExpectation) {
  for (const PgFlaw flaw : all_pg_flaws()) {
    EXPECT_EQ(std::ranges::count(expectations(), flaw, &Expectation::flaw), 1) << name(flaw);
  }
  EXPECT_EQ(expectations().size(), all_pg_flaws().size());
}

TEST(PostgresMutantTableTest, EveryHarnessHasASchemaOfItsOwn) {
  std::set<std::string_view> schemas{schema_name(PgFlaw::None)};
  for (const PgFlaw flaw : all_pg_flaws()) schemas.insert(schema_name(flaw));
  EXPECT_EQ(schemas.size(), all_pg_flaws().size() + 1);
  EXPECT_FALSE(schemas.contains("public"));
}

class PostgresMutantTest : public testing::TestWithParam<PgFlaw> {};

// What `thm::postgres::PostgresHarness` declares (its limits are `thm::postgres::Options`'
// defaults), so no check is skipped for want of it.
TEST_P(PostgresMutantTest, DeclaresWhatTheReferenceDeclares) {
  const auto harness = harness_for(GetParam());
  if (!harness) GTEST_SKIP() << kNoServer;
  const Capabilities capabilities = harness->capabilities();
  const postgres::Options reference{};
  EXPECT_TRUE(capabilities.hooks);
  EXPECT_TRUE(capabilities.row_locking);
  EXPECT_TRUE(capabilities.persistent);
  EXPECT_TRUE(capabilities.sql_schema);
  EXPECT_EQ(capabilities.max_content_bytes, reference.max_content_bytes);
  EXPECT_EQ(capabilities.max_id_bytes, reference.max_id_bytes);
  EXPECT_TRUE(capabilities.leases);
  EXPECT_FALSE(capabilities.injected_store_clock);
  EXPECT_TRUE(capabilities.hold_child);
  EXPECT_EQ(capabilities.max_attempts, reference.max_attempts);
}

TEST_P(PostgresMutantTest, FailsTheChecksListedForIt) {
  const Expectation* expected = expectation_for(GetParam());
  ASSERT_NE(expected, nullptr) << name(GetParam());
  const auto harness = harness_for(GetParam());
  if (!harness) GTEST_SKIP() << kNoServer;
  mutants::expect_rejected(*harness, expected->checks, kOptions, name(GetParam()));
}

// "M1 check-then-insert, no unique index" → "M1".
std::string mutant_id(const testing::TestParamInfo<PgFlaw>& flaw) {
  const std::string_view label = name(flaw.param);
  return std::string(label.substr(0, label.find(' ')));
}

INSTANTIATE_TEST_SUITE_P(AllPgFlaws, PostgresMutantTest, testing::ValuesIn(all_pg_flaws()),
                         mutant_id);

// The control: with no flaw, the same queue and harness pass every check the table lists,
// plus EQ-05 (replay after reopening), EQ-23 (a forked process killed mid-enqueue, then the
// server restarted) and EQ-24 (capabilities both ways), which exercise the harness itself.
TEST(PostgresControlTest, NoFlawPassesEveryListedCheck) {
  std::set<std::string_view> ids{"EQ-05", "EQ-23", "EQ-24"};
  for (const Expectation& expected : expectations()) {
    for (const ListedCheck& listed : expected.checks) ids.insert(listed.id);
  }
  const auto harness = harness_for(PgFlaw::None);
  if (!harness) GTEST_SKIP() << kNoServer;
  for (const std::string_view id : ids) {
    const CheckRun report = run_check(id, *harness, kOptions);
    std::cout << "[" << harness->queue_name() << "] " << describe(report) << "\n";
    EXPECT_EQ(report.verdict, Verdict::Pass) << describe(report);
  }
}

}  // namespace
}  // namespace thm::conformance::postgres_mutants
