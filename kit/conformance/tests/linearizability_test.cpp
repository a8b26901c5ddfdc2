// The linearizability checker on hand-made histories: each one linearizable or not by the
// sequential specification of a child turn, with calls of unknown outcome (Jepsen's `:info`)
// and leases judged on the store's clock.
#include "thm/conformance/linearizability.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace thm::conformance {
namespace {

using Kind = Operation::Kind;
using Answer = Operation::Answer;
using Verdict = LinearizabilityResult::Verdict;

// Calls on key `k` over [from, to] of real time.
Operation enqueue(Answer answer, std::uint64_t from, std::uint64_t to, std::string key = "k") {
  return {.kind = Kind::Enqueue,
          .answer = answer,
          .key = std::move(key),
          .invoke = from,
          .complete = to};
}
// A claim that leased `key`'s child at store time `at` for `duration` ms.
Operation leased(std::string token, std::uint32_t attempt, std::int64_t at, std::uint64_t from,
                 std::uint64_t to, std::int64_t duration = 1000, std::string key = "k") {
  return {.kind = Kind::Claim,
          .answer = Answer::Leased,
          .key = std::move(key),
          .token = std::move(token),
          .attempt = attempt,
          .duration_ms = duration,
          .expires_ms = at + duration,
          .invoke = from,
          .complete = to};
}
Operation nothing(std::uint64_t from, std::uint64_t to) {
  return {.kind = Kind::Claim,
          .answer = Answer::Nothing,
          .duration_ms = 1000,
          .invoke = from,
          .complete = to};
}
Operation use(Kind kind, Answer answer, std::string token, std::uint64_t from, std::uint64_t to) {
  return {.kind = kind,
          .answer = answer,
          .key = "k",
          .token = std::move(token),
          .invoke = from,
          .complete = to};
}
// `op`, with the store's clock read at `at` just before it began and just after it returned.
Operation at_store_time(Operation op, std::int64_t at) {
  op.store_at_least_ms = at;
  op.store_at_most_ms = at;
  return op;
}

LinearizabilityResult check(const std::vector<Operation>& history,
                            LinearizabilityOptions options = {.max_attempts = 3}) {
  return check_linearizability(history, options);
}

TEST(LinearizabilityTest, AnEmptyHistoryIsLinearizable) {
  EXPECT_EQ(check({}).verdict, Verdict::Linearizable);
}

TEST(LinearizabilityTest, OneAdmissionThenAlreadyIsLinearizable) {
  const auto result = check({enqueue(Answer::Enqueued, 0, 10), enqueue(Answer::Already, 20, 30),
                             enqueue(Answer::Refused, 5, 40)});
  EXPECT_EQ(result.verdict, Verdict::Linearizable);
  EXPECT_EQ(result.keys, 1U);
}

TEST(LinearizabilityTest, TwoAdmissionsOfOneKeyAreNot) {
  for (const auto& second : {enqueue(Answer::Enqueued, 20, 30), enqueue(Answer::Enqueued, 5, 15)}) {
    const auto result = check({enqueue(Answer::Enqueued, 0, 10), second});
    ASSERT_EQ(result.verdict, Verdict::NotLinearizable);
    EXPECT_EQ(result.key, "k");
    EXPECT_EQ(result.operations.size(), 2U);
  }
}

TEST(LinearizabilityTest, AlreadyBeforeTheAdmissionBeganIsNot) {
  const auto result = check({enqueue(Answer::Already, 0, 10), enqueue(Answer::Enqueued, 20, 30)});
  ASSERT_EQ(result.verdict, Verdict::NotLinearizable);
  EXPECT_EQ(result.culprit, 0U);  // no order before its return explains it
  EXPECT_EQ(check({enqueue(Answer::Already, 0, 25), enqueue(Answer::Enqueued, 20, 30)}).verdict,
            Verdict::Linearizable);  // overlapping: the admission may come first
}

TEST(LinearizabilityTest, AnUnknownOutcomeMayHaveHappenedOrNot) {
  // It happened: the later Already needs it.
  EXPECT_EQ(check({enqueue(Answer::Unknown, 0, 10), enqueue(Answer::Already, 20, 30)}).verdict,
            Verdict::Linearizable);
  // It did not: the later Enqueued needs it not to have.
  EXPECT_EQ(check({enqueue(Answer::Unknown, 0, 10), enqueue(Answer::Enqueued, 20, 30)}).verdict,
            Verdict::Linearizable);
  // Both at once cannot be.
  EXPECT_EQ(check({enqueue(Answer::Unknown, 0, 10), enqueue(Answer::Already, 20, 30),
                   enqueue(Answer::Enqueued, 40, 50)})
                .verdict,
            Verdict::NotLinearizable);
  // It may take effect long after it was answered, but not before it was invoked.
  EXPECT_EQ(check({enqueue(Answer::Already, 0, 10), enqueue(Answer::Unknown, 20, 30)}).verdict,
            Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, KeysAreJudgedApartAndTheBadOneIsNamed) {
  const auto result =
      check({enqueue(Answer::Enqueued, 0, 10, "a"), enqueue(Answer::Enqueued, 0, 10, "b"),
             enqueue(Answer::Enqueued, 20, 30, "b")});
  ASSERT_EQ(result.verdict, Verdict::NotLinearizable);
  EXPECT_EQ(result.key, "b");
  EXPECT_EQ(result.operations, (std::vector<std::size_t>{1, 2}));
}

TEST(LinearizabilityTest, ALeaseIsExclusiveUntilItExpiresOnTheStoreClock) {
  const Operation admitted = enqueue(Answer::Enqueued, 0, 10);
  // Reclaimed after expiry (t = 1000 + 1000): fine; while live (t = 1500): two holders.
  EXPECT_EQ(check({admitted, leased("a", 1, 1000, 20, 30), leased("b", 2, 2000, 40, 50)}).verdict,
            Verdict::Linearizable);
  EXPECT_EQ(check({admitted, leased("a", 1, 1000, 20, 30), leased("b", 2, 1500, 40, 50)}).verdict,
            Verdict::NotLinearizable);
  // Attempts are counted by the claim: a second claim reporting attempt 1 is not.
  EXPECT_EQ(check({admitted, leased("a", 1, 1000, 20, 30), leased("b", 1, 2000, 40, 50)}).verdict,
            Verdict::NotLinearizable);
  // Nothing claimable while the lease is live; the child once it expired.
  EXPECT_EQ(
      check({admitted, leased("a", 1, 1000, 20, 30), at_store_time(nothing(40, 50), 1500)}).verdict,
      Verdict::Linearizable);
  EXPECT_EQ(
      check({admitted, leased("a", 1, 1000, 20, 30), at_store_time(nothing(40, 50), 2500)}).verdict,
      Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, OnARealClockReadingsWithinTheSlackAreOneInstant) {
  // The reclaim read the store's clock 10 ms behind the first claim's reading: one instant
  // with 50 ms of slack, a second holder without.
  const std::vector<Operation> history{enqueue(Answer::Enqueued, 0, 10),
                                       leased("a", 1, 1000, 20, 30), leased("b", 2, 1990, 40, 50)};
  EXPECT_EQ(check(history, {.max_attempts = 3, .clock_slack_ms = 50}).verdict,
            Verdict::Linearizable);
  EXPECT_EQ(check(history).verdict, Verdict::NotLinearizable);
  // Twice the slack is no longer one instant.
  const std::vector<Operation> far{enqueue(Answer::Enqueued, 0, 10), leased("a", 1, 1000, 20, 30),
                                   leased("b", 2, 1900, 40, 50)};
  EXPECT_EQ(check(far, {.max_attempts = 3, .clock_slack_ms = 50}).verdict,
            Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, NothingToClaimWhileAChildWaitsIsALaggingRead) {
  // The queue answered from a read that had not seen the committed enqueue.
  EXPECT_EQ(check({enqueue(Answer::Enqueued, 0, 10), nothing(20, 30)}).verdict,
            Verdict::NotLinearizable);
  EXPECT_EQ(check({enqueue(Answer::Enqueued, 0, 30), nothing(20, 40)}).verdict,
            Verdict::Linearizable);  // concurrent: the claim may come first
  // A claim that met a row another call on the key held may skip it (EQ-27).
  EXPECT_EQ(check({enqueue(Answer::Enqueued, 0, 10), leased("a", 1, 1000, 20, 60), nothing(30, 40),
                   use(Kind::Fail, Answer::Unknown, "x", 70, 80)})
                .unjudged,
            1U);
  Operation hold{.kind = Kind::Hold, .key = "k", .invoke = 15, .complete = 50};
  EXPECT_EQ(check({enqueue(Answer::Enqueued, 0, 10), hold, nothing(20, 30)}).verdict,
            Verdict::Linearizable);
}

TEST(LinearizabilityTest, ATokenWorksOnlyWhileItsLeaseIsLive) {
  const Operation admitted = enqueue(Answer::Enqueued, 0, 10);
  const Operation claimed = leased("a", 1, 1000, 20, 30);  // expires at 2000
  // Completed while live; completed after expiry (M16); refused while live.
  EXPECT_EQ(check({admitted, claimed,
                   at_store_time(use(Kind::Complete, Answer::Settled, "a", 40, 50), 1500)})
                .verdict,
            Verdict::Linearizable);
  EXPECT_EQ(check({admitted, claimed,
                   at_store_time(use(Kind::Complete, Answer::Settled, "a", 40, 50), 2500)})
                .verdict,
            Verdict::NotLinearizable);
  EXPECT_EQ(
      check({admitted, claimed, at_store_time(use(Kind::Renew, Answer::Stale, "a", 40, 50), 1500)})
          .verdict,
      Verdict::NotLinearizable);
  EXPECT_EQ(
      check({admitted, claimed, at_store_time(use(Kind::Renew, Answer::Stale, "a", 40, 50), 2500)})
          .verdict,
      Verdict::Linearizable);
  // A superseded token is refused; a completed child is claimed no more.
  EXPECT_EQ(check({admitted, claimed, leased("b", 2, 2000, 40, 50),
                   use(Kind::Fail, Answer::Settled, "a", 60, 70)})
                .verdict,
            Verdict::NotLinearizable);
  EXPECT_EQ(check({admitted, claimed,
                   at_store_time(use(Kind::Complete, Answer::Settled, "a", 40, 50), 1200),
                   leased("b", 2, 3000, 60, 70)})
                .verdict,
            Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, ARenewalCountsFromStoreTimeNow) {
  const Operation admitted = enqueue(Answer::Enqueued, 0, 10);
  const Operation claimed = at_store_time(leased("a", 1, 1000, 20, 30), 1000);
  Operation renewed = use(Kind::Renew, Answer::Renewed, "a", 40, 50);
  renewed.duration_ms = 1000;
  renewed.expires_ms = 1500 + 1000;  // renewed at store time 1500
  EXPECT_EQ(check({admitted, claimed, at_store_time(renewed, 1500)}).verdict,
            Verdict::Linearizable);
  // Stamped from a clock 2 s behind the store's (M22): store time 1500 was read before it.
  renewed.expires_ms = -500 + 1000;
  EXPECT_EQ(check({admitted, claimed, at_store_time(renewed, 1500)}).verdict,
            Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, FailGivesTheChildBackOrEndsItAsTheStoreAnswers) {
  const Operation admitted = enqueue(Answer::Enqueued, 0, 10);
  Operation failed = use(Kind::Fail, Answer::Settled, "a", 40, 50);
  failed.back_to_queue = true;
  EXPECT_EQ(
      check({admitted, leased("a", 1, 1000, 20, 30), failed, leased("b", 2, 1100, 60, 70)}).verdict,
      Verdict::Linearizable);
  failed.back_to_queue = false;
  EXPECT_EQ(
      check({admitted, leased("a", 1, 1000, 20, 30), failed, leased("b", 2, 1100, 60, 70)}).verdict,
      Verdict::NotLinearizable);
  // With three attempts, a fourth lease is one too many.
  EXPECT_EQ(check({admitted, leased("a", 1, 1000, 20, 30), leased("b", 2, 2000, 40, 50),
                   leased("c", 3, 3000, 60, 70), leased("d", 4, 4000, 80, 90)})
                .verdict,
            Verdict::NotLinearizable);
}

TEST(LinearizabilityTest, ARaceOfSixtyFourIsDecidedQuickly) {
  std::vector<Operation> race;
  for (std::uint64_t i = 0; i < 64; ++i) {
    race.push_back(enqueue(i == 37 ? Answer::Enqueued : Answer::Already, i, 1000 + i));
  }
  EXPECT_EQ(check(race).verdict, Verdict::Linearizable);
  race[3].answer = Answer::Enqueued;  // a second admission among them
  const auto result = check(race, {.max_attempts = 3, .budget = 200'000});
  EXPECT_EQ(result.verdict, Verdict::NotLinearizable);
  EXPECT_EQ(result.unjudged, 0U);
}

TEST(LinearizabilityTest, DescribesAnOperationInOneLine) {
  EXPECT_EQ(describe(leased("t", 2, 1000, 0, 1, 30000)),
            "claim 30000 ms -> leased attempt 2, expires 31000");
  EXPECT_EQ(describe(enqueue(Answer::Unknown, 0, 1)), "enqueue -> unknown");
  // One vocabulary with the exported history (queue-conformance.md §9).
  EXPECT_EQ(describe(use(Kind::Renew, Answer::Stale, "t", 0, 1)), "renew 0 ms -> stale");
  EXPECT_EQ(name(Kind::Settle), "settle");
}

}  // namespace
}  // namespace thm::conformance
