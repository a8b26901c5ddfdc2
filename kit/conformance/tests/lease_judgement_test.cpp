// EQ-19's judgement of the leases concurrent claimers got on one child: one at a time on the
// store's clock is right, even when a slow claimer got the child after the first lease had
// expired; two that overlap are not.
#include "thm/conformance/checks/lease_judgement.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace thm::conformance {
namespace {

using std::chrono::milliseconds;

Lease lease_until(std::int64_t expires_ms, std::uint32_t attempt) {
  Lease lease;
  lease.child_id = 1;
  lease.token = "t" + std::to_string(attempt);
  lease.expires_at = StoreTime(milliseconds(expires_ms));
  lease.attempt = attempt;
  return lease;
}

TEST(LeaseJudgementTest, OneLeaseIsOneAtATime) {
  EXPECT_EQ(detail::overlapping_leases({lease_until(1'300, 1)}, milliseconds(300)), "");
}

TEST(LeaseJudgementTest, AReclaimAfterTheFirstLeaseExpiredIsNoSecondHolder) {
  // The first claim at 1000 (until 1300); a claimer slower than the lease got it at 1378.
  EXPECT_EQ(
      detail::overlapping_leases({lease_until(1'678, 2), lease_until(1'300, 1)}, milliseconds(300)),
      "");
  // Exactly at the expiry is after it: a lease is live strictly before its expiry.
  EXPECT_EQ(
      detail::overlapping_leases({lease_until(1'300, 1), lease_until(1'600, 2)}, milliseconds(300)),
      "");
}

TEST(LeaseJudgementTest, LeasesThatOverlapOnTheStoresClockAreTwoHolders) {
  const std::string why = detail::overlapping_leases(
      {lease_until(1'300, 1), lease_until(1'450, 2), lease_until(2'000, 3)}, milliseconds(300));
  EXPECT_NE(why.find("attempt 2 began at 1150 ms of store time, while attempt 1 held the child "
                     "until 1300"),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace thm::conformance
