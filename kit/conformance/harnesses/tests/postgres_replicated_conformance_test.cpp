// The PostgreSQL queue on a primary and a synchronous standby against the whole
// conformance suite, the node-loss checks EQ-28…EQ-30 included, through the typed GoogleTest
// suite, on the pair CTest starts (fixture `postgres_pair_sync`).
#include <iostream>

#include "thm/conformance/gtest.hpp"
#include "thm/postgres/replicated.hpp"

namespace thm::conformance {
INSTANTIATE_TYPED_TEST_SUITE_P(ReplicatedPostgres, QueueConformance,
                               ::testing::Types<postgres::ReplicatedPostgresHarness>);
}  // namespace thm::conformance

namespace thm::postgres {
namespace {

// A pass proves nothing unless the fault happened: each node-loss check made one, the
// cluster came back, and nothing was lost. The counts and the outage a client saw are
// printed for the record (bench/README.md, "Where one PostgreSQL is not enough").
TEST(SynchronousFailover, EachFaultHappenedAndLostNothing) {
  for (const char* id : {"EQ-28", "EQ-29", "EQ-30"}) {
    ReplicatedPostgresHarness harness;
    ASSERT_EQ(harness.setup().replication(), Replication::Synchronous);
    const conformance::CheckRun report = conformance::run_check(id, harness, {.short_mode = true});
    const conformance::Counts& c = report.counts;
    std::cout << id << " on " << harness.queue_name() << ": " << conformance::name(report.verdict)
              << "; attempts " << c.attempts << ", enqueued " << c.enqueued << ", already "
              << c.already << ", errors " << c.errors << ", indeterminate " << c.indeterminate
              << ", lost " << c.lost << ", duplicated " << c.duplicated << ", outage "
              << c.outage_ms << " ms\n";
    EXPECT_EQ(report.verdict, conformance::Verdict::Pass) << id << ": " << report.reason;
    EXPECT_EQ(c.faults, 1U) << id;
    EXPECT_EQ(c.lost + c.duplicated + c.unexpected, 0U) << id;
    EXPECT_GT(c.outage_ms, 0U) << id << ": no call waited for the fault";
  }
}

}  // namespace
}  // namespace thm::postgres
