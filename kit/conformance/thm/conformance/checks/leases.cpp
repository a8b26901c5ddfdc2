// The checks of queue-conformance.md §6, part D. leases, the store clock and attempts (EQ-14…EQ-19,
// EQ-26, EQ-27, EQ-31, EQ-32). Each is a plain function over a `Run`; checks.cpp lists them and
// runs them.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "thm/conformance/checks/bodies.hpp"
#include "thm/conformance/checks/lease_judgement.hpp"
#include "thm/conformance/checks/run.hpp"
#include "thm/conformance/model_check.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::checking {

namespace {

// What the lease checks need from a harness: leases, and a lease length that suits its clock
// (a fake clock the suite moves, or a real one it waits for).
struct LeaseClock {
  Run& run;
  std::chrono::milliseconds lease;

  static LeaseClock of(Run& run) {
    if (!run.capabilities.leases) {
      throw Skipped{"needs capability `leases` (claim, renew, complete, fail, store_now)"};
    }
    return {run, run.capabilities.injected_store_clock ? std::chrono::milliseconds(30s)
                                                       : std::chrono::milliseconds(300ms)};
  }
  // Lets store time pass `until` (strictly).
  void pass(StoreTime until) const {
    if (run.capabilities.injected_store_clock) {
      const auto now = run.clocks().store_now();
      if (now <= until) run.clocks().advance_store_clock(until - now + 1ms);
      return;
    }
    // Every lease the checks wait out was asked for `lease`: one that ends later broke the
    // contract (EQ-14), and waiting for it could outlast the run (a fixed 15-minute lease).
    const auto left = until - run.clocks().store_now();
    run.require(
        left <= lease + 1s,
        "a lease asked for " + std::to_string(lease.count()) + " ms expires " +
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(left).count()) +
            " ms after store time: the queue does not lease for the duration asked "
            "(EQ-14), and the check does not wait that long");
    run.step("waiting for store time to pass a lease's expiry (Harness::store_now)");
    while (run.clocks().store_now() <= until) std::this_thread::sleep_for(10ms);
  }
  Lease claim(Session& session, const std::string& what) const {
    return claim(session, what, lease);
  }
  Lease claim(Session& session, const std::string& what, std::chrono::milliseconds duration) const {
    run.step("waiting for a claim to answer (" + what + ")");
    const auto claimed = session.claim(duration);
    run.require(claimed.has_value(), what + ": the claim was refused (" +
                                         std::string(claimed ? "" : name(claimed.error())) + ")");
    run.require(claimed->has_value(), what + ": nothing was claimable");
    return **claimed;
  }
  ChildTurn row(std::uint64_t child_id) const {
    for (auto& child : run.harness.children()) {
      if (child.id == child_id) return child;
    }
    run.require(false, "child " + std::to_string(child_id) + " is missing from the inspector");
    return {};
  }
};

// What EQ-14 and EQ-15 cannot show when the harness cannot move the host's clock.
void note_unless_skewable(Run& run) {
  if (run.capabilities.skewable_client_clock) return;
  run.note(
      "the host's clock could not be moved (capability `skewable_client_clock` is not "
      "declared): leases were checked against store time, but a host that stamps them from its "
      "own clock would pass too");
}

// Enqueues `n` children in a fresh store.
void children_to_claim(Run& run, std::size_t n) {
  run.fresh();
  for (std::size_t i = 1; i <= n; ++i) {
    const auto answer = run.enqueue(run.trigger(i));
    run.require(is_enqueued(answer), "setting up a child to claim got " + describe(answer));
  }
}

}  // namespace

void eq14_expiry_computed_by_the_store(Run& run) {
  const auto clock = LeaseClock::of(run);
  note_unless_skewable(run);
  children_to_claim(run, 3);
  auto session = run.harness.open_session();
  const StoreTime year_2021{
      std::chrono::sys_days{std::chrono::year{2021} / 1 / 1}.time_since_epoch()};
  const std::vector<std::pair<std::string, Clocks::ClientClock>> skews{
      {"+1 h", [&clocks = run.clocks()] { return clocks.store_now() + 1h; }},
      {"-1 h", [&clocks = run.clocks()] { return clocks.store_now() - 1h; }},
      {"2021-01-01", [year_2021] { return year_2021; }},
  };
  // An hour, so that the second of slack below cannot hide a lease of another length (a
  // queue that fixes every lease at its own shortest, pg-boss's 1 s, M20); no check waits it
  // out.
  const std::chrono::milliseconds duration = 1h;
  for (const auto& [label, client] : skews) {
    run.clocks().set_client_clock(client);
    const StoreTime before = run.clocks().store_now();
    const Lease lease = clock.claim(*session, "client clock " + label, duration);
    const StoreTime after = run.clocks().store_now();
    run.require(
        lease.expires_at >= before + duration && lease.expires_at <= after + duration + 1s,
        "with the client clock at " + label + ", the lease expiry is not store time + duration");
    run.require(clock.row(lease.child_id).lease_expires_at == lease.expires_at,
                "the row's lease expiry differs from the one the claim returned");
  }
  run.clocks().set_client_clock({});
}

void eq15_no_stolen_lease_no_starvation(Run& run) {
  const auto clock = LeaseClock::of(run);
  note_unless_skewable(run);
  for (const auto skew : {2 * clock.lease, -2 * clock.lease}) {
    children_to_claim(run, 1);
    auto holder = run.harness.open_session();
    auto other = run.harness.open_session();
    // Skewed from the first claim on: a host that stamps expiry from its own clock (M7)
    // hands out a lease that has already expired when the clock is behind.
    run.clocks().set_client_clock(
        [&clocks = run.clocks(), skew] { return clocks.store_now() + skew; });
    const Lease held = clock.claim(*holder, "the first claim");
    const std::string ahead = skew > 0ms ? "ahead" : "behind";
    const auto early = other->claim(clock.lease);
    run.require(early && !early->has_value(),
                "a claimer whose clock is 2×lease " + ahead + " took a lease that had not expired");
    clock.pass(held.expires_at);
    const auto late = other->claim(clock.lease);
    run.require(late && late->has_value(), "a claimer whose clock is 2×lease " + ahead +
                                               " could not reclaim an expired lease");
    run.clocks().set_client_clock({});
  }
}

void eq16_lease_api_takes_durations(Run& run) {
  // Compile time: the session's lease operations take durations, never time points.
  static_assert(
      std::is_invocable_v<decltype(&Session::claim), Session&, std::chrono::milliseconds>);
  static_assert(!std::is_invocable_v<decltype(&Session::claim), Session&, StoreTime>);
  static_assert(
      !std::is_invocable_v<decltype(&Session::renew), Session&, const std::string&, StoreTime>);
  const auto clock = LeaseClock::of(run);
  children_to_claim(run, 1);
  auto session = run.harness.open_session();
  const auto refused = session->claim(0ms);
  run.require(!refused && refused.error() == LeaseError::InvalidDuration,
              "a claim for 0 ms was not refused");
  const Lease lease = clock.claim(*session, "a claim");
  const auto renewed = session->renew(lease.token, 2 * clock.lease);
  run.require(renewed.has_value(), "renewing a live lease failed");
  run.require(clock.row(lease.child_id).lease_expires_at == *renewed,
              "renew returned an expiry that is not the one stored on the row");
  run.require(*renewed >= lease.expires_at, "renewing for twice the lease shortened it");
}

void eq17_statement_time(Run& run) {
  (void)run;
  throw Skipped{
      "not implemented yet for any store: no check holds a claim's transaction open "
      "before its statement runs (optional, for PostgreSQL stores)"};
}

void eq18_attempts_visible(Run& run) {
  const auto clock = LeaseClock::of(run);
  children_to_claim(run, 1);
  auto session = run.harness.open_session();
  const std::uint32_t most = run.capabilities.max_attempts.value_or(3);
  for (std::uint32_t attempt = 1; attempt <= most; ++attempt) {
    const Lease lease = clock.claim(*session, "claim " + std::to_string(attempt));
    run.require(lease.attempt == attempt, "claim " + std::to_string(attempt) +
                                              " reported attempt " + std::to_string(lease.attempt));
    run.require(clock.row(lease.child_id).attempts == attempt,
                "after claim " + std::to_string(attempt) + " the row shows " +
                    std::to_string(clock.row(lease.child_id).attempts) + " attempts");
    clock.pass(lease.expires_at);  // abandoned: the holder never answers
  }
  if (run.capabilities.max_attempts) {
    const auto spent = session->claim(clock.lease);
    run.require(spent && !spent->has_value(), "a child with its attempts spent was claimed again");
  } else {
    run.note("no claim past the last attempt: the harness declares no `max_attempts`");
  }
}

namespace {

// Each of `sessions` claims for `duration` on its own thread, all released together by a
// spin barrier; `meanwhile` runs once they are released, before they are joined (EQ-27 ends
// its hold there). The leases they got, in session order: a claim that failed or threw
// holds none, and the caller's count judges.
std::vector<std::optional<Lease>> claim_together(std::vector<std::unique_ptr<Session>>& sessions,
                                                 std::chrono::milliseconds duration,
                                                 const std::function<void()>& meanwhile = {}) {
  std::vector<std::optional<Lease>> got(sessions.size());
  detail::together(
      sessions.size(),
      [&](std::size_t i) {
        try {
          if (auto lease = sessions[i]->claim(duration); lease) got[i] = *lease;
        } catch (...) {
        }
      },
      meanwhile);
  return got;
}

}  // namespace

void eq19_concurrent_claimers(Run& run) {
  const auto clock = LeaseClock::of(run);
  const std::size_t claimers = run.racers(8, "the 8 claimers");
  for (int repetition = 0; repetition < run.options.repeat; ++repetition) {
    children_to_claim(run, 1);
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < claimers; ++i) sessions.push_back(run.harness.open_session());
    run.step("waiting for " + std::to_string(claimers) + " concurrent claimers");
    const auto got = claim_together(sessions, clock.lease);
    std::vector<Lease> leases;
    for (const auto& lease : got) {
      if (lease) leases.push_back(*lease);
    }
    const std::string holders =
        std::to_string(leases.size()) + " of " + std::to_string(claimers) + " concurrent claimers";
    run.require(!leases.empty(), holders + " got a lease on one claimable child");
    // More than one is right only one after another on the store's clock: a claimer slower
    // than the lease may get the child once the first lease expired.
    const std::string overlap = detail::overlapping_leases(leases, clock.lease);
    run.require(overlap.empty(),
                holders + " got a lease on one child, and two were live at once: " + overlap);
    const auto row = clock.row(leases.front().child_id);
    run.require(row.attempts == leases.size(),
                std::to_string(leases.size()) + " successful claims left " +
                    std::to_string(row.attempts) + " attempts on the row");
  }
}

// A lease's token stops working when its lease ends: once store time passes its expiry, and
// once a later claim has taken the child. Deterministic, with the short leases `LeaseClock`
// picks for the store's own clock; EQ-25's random sequences stay the net under it.
void eq26_stale_tokens_refused(Run& run) {
  const auto clock = LeaseClock::of(run);
  struct Use {
    std::string what;
    std::function<std::optional<LeaseError>(Session&, const std::string&)> error;
  };
  // The error a use of `token` met, or nothing when the store accepted it.
  const auto error_of = [](const auto& result) -> std::optional<LeaseError> {
    if (result) return std::nullopt;
    return result.error();
  };
  const std::vector<Use> uses{
      {"renew",
       [&](Session& s, const std::string& token) { return error_of(s.renew(token, clock.lease)); }},
      {"complete",
       [&](Session& s, const std::string& token) { return error_of(s.complete(token)); }},
      {"fail", [&](Session& s, const std::string& token) { return error_of(s.fail(token)); }},
  };
  const auto require_stale = [&run](const std::optional<LeaseError>& error,
                                    const std::string& what) {
    run.require(error.has_value(), what + " was accepted");
    run.require(*error == LeaseError::StaleToken,
                what + " got " + std::string(name(*error)) + ", not stale_token");
  };
  for (const Use& use : uses) {
    children_to_claim(run, 1);
    auto session = run.harness.open_session();
    const Lease expired = clock.claim(*session, "the first claim");
    clock.pass(expired.expires_at);
    require_stale(use.error(*session, expired.token),
                  use.what + " with a token whose lease expired on the store's clock");
    const Lease next = clock.claim(*session, "the reclaim after expiry");
    run.require(next.token != expired.token,
                "the reclaim issued the expired lease's token again (" + next.token + ")");
    require_stale(use.error(*session, expired.token),
                  use.what + " with the token of a lease that a later claim superseded");
    run.require(!use.error(*session, next.token).has_value(),
                use.what + " with the live lease's token was refused");
  }
}

// A claim never leases one child twice, however claimers interleave. With the child's row
// held by another transaction, two claimers start together and have time to read it; each
// must skip the child or wait for it, and once the hold ends at most one lease exists. A
// claim that reads its child without locking the row (M18) lets both take it, every time:
// both have read before either may write. EQ-19's race stays the net under it.
void eq27_claims_respect_a_held_row(Run& run) {
  const auto clock = LeaseClock::of(run);
  if (!run.capabilities.hold_child) {
    throw Skipped{
        "needs capability `hold_child` (the harness holds a child's row from a transaction of "
        "its own), which the in-memory queue and protocol v1 adapters do not declare; EQ-19's "
        "race is what checks their claims"};
  }
  const std::size_t claimers = run.racers(2, "the 2 claimers");
  for (int repetition = 0; repetition < 3; ++repetition) {
    children_to_claim(run, 1);
    const std::uint64_t child = run.harness.children().at(0).id;
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < claimers; ++i) sessions.push_back(run.harness.open_session());
    run.step("holding child " + std::to_string(child) + "'s row (Harness::hold_child)");
    auto hold = run.harness.hold_child(child);
    const auto got = claim_together(sessions, clock.lease, [&] {
      std::this_thread::sleep_for(4 * run.options.wait);  // both read the row meanwhile
      hold.reset();
      run.step("waiting for claimers that met a held row");
    });
    const auto leases = std::count_if(got.begin(), got.end(), [&](const auto& lease) {
      return lease && lease->child_id == child;
    });
    run.require(leases <= 1, std::to_string(leases) + " of " + std::to_string(claimers) +
                                 " claimers leased one child whose row another transaction "
                                 "held while they read it");
    run.require(clock.row(child).attempts == static_cast<std::uint32_t>(leases),
                "the row counts " + std::to_string(clock.row(child).attempts) + " attempts for " +
                    std::to_string(leases) + " lease(s) granted");
  }
}

// A replay of an admitted request answers `Already` and adds nothing at every point of its
// child's life a lease passes through: claimed, running (renewed), given back by `fail`,
// reclaimed after its lease expired, completed. An index unique per key and phase (a
// `stately` queue) admits a second child the first time the child is claimed (M21).
void eq31_replay_while_leased(Run& run) {
  const auto clock = LeaseClock::of(run);
  run.fresh();
  const auto request = run.trigger(1);
  const auto first = run.enqueue(request);
  run.require(is_enqueued(first), "the first enqueue got " + describe(first));
  auto worker = run.harness.open_session();
  const auto replay = [&](const std::string& when) {
    const auto answer = run.enqueue(request);
    run.require(is_already(answer), "a replay " + when + " got " + describe(answer));
    const auto children = run.children_of(request).size();
    run.require(children == 1,
                "a replay " + when + " left " + std::to_string(children) + " children for its key");
  };
  const auto ok = [&run](const auto& result, const std::string& what) {
    run.require(result.has_value(),
                what + " was refused (" + std::string(result ? "" : name(result.error())) + ")");
  };
  const Lease claimed = clock.claim(*worker, "the first claim");
  replay("while its child is claimed");
  ok(worker->renew(claimed.token, clock.lease), "renewing the first lease");
  replay("while its child runs (its lease renewed)");
  ok(worker->fail(claimed.token), "failing the first lease");
  replay("after its child failed and went back to the queue");
  const Lease second = clock.claim(*worker, "the claim after the fail");
  std::string live = second.token;
  if (run.capabilities.max_attempts.value_or(3) < 3) {
    run.note(
        "no replay after a reclaim: the store allows fewer than 3 attempts (capability "
        "`max_attempts`), and the reclaim would be the third");
  } else {
    clock.pass(second.expires_at);
    run.step("waiting for a claim to answer (the reclaim after expiry)");
    const auto reclaimed = worker->claim(clock.lease);
    if (!reclaimed || !*reclaimed) {
      // A store that cannot reclaim an expired lease fails EQ-15 and EQ-26; here it only
      // leaves the last two replays untried.
      run.note(
          "no replay after a reclaim or after completion: the claim after the lease "
          "expired took nothing (EQ-15 and EQ-26 judge reclaims)");
      return;
    }
    run.require((*reclaimed)->child_id == claimed.child_id, "the reclaim leased another child");
    replay("after its child was reclaimed once its lease expired");
    live = (*reclaimed)->token;
  }
  ok(worker->complete(live), "completing the last lease");
  replay("after its child completed");
}

// After a claim made on the store's clock, the host's clock moved 2 × lease ahead, then
// behind: renew must stamp the new expiry on the store's clock, and renew, complete and
// fail must judge a lease live or ended on it too. EQ-14 and EQ-15 move the client's clock
// around a claim only; a store whose renew reads the host's clock (M22), or whose lease
// operations judge liveness on it (M23), passes them.
void eq32_lease_operations_on_the_store_clock(Run& run) {
  const auto clock = LeaseClock::of(run);
  if (!run.capabilities.skewable_client_clock) {
    throw Skipped{
        "needs the host's clock moved after a claim (capability `skewable_client_clock`), "
        "which the harness does not declare"};
  }
  for (const auto skew : {2 * clock.lease, -2 * clock.lease}) {
    const std::string side = skew > 0ms ? "ahead" : "behind";
    const auto skewed = [&run, skew] {
      run.clocks().set_client_clock(
          [&clocks = run.clocks(), skew] { return clocks.store_now() + skew; });
    };
    children_to_claim(run, 1);
    auto session = run.harness.open_session();
    // A live lease, judged and renewed with the host's clock off.
    const Lease live = clock.claim(*session, "a claim on the store's clock");
    skewed();
    const std::string with = " with the host's clock 2×lease " + side;
    const StoreTime before = run.clocks().store_now();
    const auto renewed = session->renew(live.token, clock.lease);
    const StoreTime after = run.clocks().store_now();
    run.require(renewed.has_value(), "renewing a live lease" + with + " got " +
                                         std::string(renewed ? "" : name(renewed.error())));
    run.require(*renewed >= before + clock.lease && *renewed <= after + clock.lease + 1s,
                "renewing" + with + " stamped an expiry that is not store time + duration");
    run.require(clock.row(live.child_id).lease_expires_at == *renewed,
                "the row's lease expiry differs from the one renew returned");
    const auto failed = session->fail(live.token);
    run.require(failed.has_value(), "failing a live lease" + with + " got " +
                                        std::string(failed ? "" : name(failed.error())));
    run.clocks().set_client_clock({});
    const Lease next = clock.claim(*session, "the claim after the fail");
    skewed();
    const auto completed = session->complete(next.token);
    run.require(completed && *completed == TurnState::Completed,
                "completing a live lease" + with + " got " +
                    std::string(completed ? name(*completed) : name(completed.error())));
    // An ended lease, with the host's clock saying it is live (behind) or long ended (ahead).
    run.clocks().set_client_clock({});
    session.reset();  // sessions do not outlive a reset
    children_to_claim(run, 1);
    session = run.harness.open_session();
    const Lease ended = clock.claim(*session, "a claim to let expire");
    clock.pass(ended.expires_at);
    skewed();
    const auto stale = [&](const auto& result, const std::string& what) {
      run.require(!result.has_value() && result.error() == LeaseError::StaleToken,
                  what +
                      " with a token whose lease ended on the store's clock, and the host's "
                      "clock 2×lease " +
                      side + ", got " + std::string(result ? "accepted" : name(result.error())) +
                      ", not stale_token");
    };
    stale(session->renew(ended.token, clock.lease), "renew");
    stale(session->complete(ended.token), "complete");
    stale(session->fail(ended.token), "fail");
    run.clocks().set_client_clock({});
  }
}

}  // namespace thm::conformance::checking
