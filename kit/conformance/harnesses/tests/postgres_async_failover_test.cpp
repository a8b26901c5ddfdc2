// The node-loss checks' negative control: on a primary whose standby replicates asynchronously
// (and lags, as it may), a failover loses acknowledged enqueues, and EQ-28 must say so with
// lost > 0. On the pair CTest starts (fixture `postgres_pair_async`).
#include <gtest/gtest.h>

#include <iostream>

#include "thm/conformance/suite.hpp"
#include "thm/postgres/replicated.hpp"

namespace thm::postgres {
namespace {

TEST(AsynchronousFailover, Eq28FindsTheEnqueuesTheFailoverLost) {
  ReplicatedPostgresHarness harness;
  ASSERT_EQ(harness.setup().replication(), Replication::Asynchronous);
  const conformance::CheckRun report =
      conformance::run_check("EQ-28", harness, {.short_mode = true});
  std::cout << "EQ-28 on " << harness.queue_name() << ": " << conformance::name(report.verdict)
            << " (" << report.reason << "); attempts " << report.counts.attempts << ", enqueued "
            << report.counts.enqueued << ", already " << report.counts.already << ", lost "
            << report.counts.lost << ", duplicated " << report.counts.duplicated << ", outage "
            << report.counts.outage_ms << " ms\n";
  EXPECT_EQ(report.verdict, conformance::Verdict::Fail) << report.reason;
  EXPECT_GT(report.counts.lost, 0U) << report.reason;
  EXPECT_EQ(report.counts.faults, 1U);
}

}  // namespace
}  // namespace thm::postgres
