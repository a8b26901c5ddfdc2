// The checks of queue-conformance.md §6, part B. atomicity and rollback (EQ-08…EQ-10,
// EQ-33).
// Each is a plain function over a `Run`; checks.cpp lists them and runs them.
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
#include "thm/conformance/checks/run.hpp"
#include "thm/conformance/model_check.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::checking {

void eq08_forced_rollback_leaves_nothing(Run& run) {
  run.need_hooks();
  for (const HookPoint point : {HookPoint::AfterIdempotencyStatement, HookPoint::AfterChildInsert,
                                HookPoint::BeforeCommit}) {
    run.fresh();
    const auto request = run.trigger(1);
    run.fail_once_at(point);
    const auto failed = run.enqueue(request);
    const std::string at = " (failure at " + std::string(name(point)) + ")";
    run.require(!failed, "the failing step was answered " + describe(failed) + at);
    run.require_nothing_written("a rollback" + at);
    const auto retry = run.enqueue(request);
    run.require(is_enqueued(retry), "the retry got " + describe(retry) + at);
  }
}

void eq09_refused_leaves_nothing(Run& run) {
  for (const auto& condition : policy_controls(run)) {
    run.fresh();
    const auto request = run.trigger(1);
    const std::string what = std::string(name(condition.refusal));
    condition.set(false);
    const auto refused = run.enqueue(request);
    run.require(is(refused, Refused{condition.refusal}),
                "expected Refused{" + what + "}, got " + describe(refused));
    run.require_nothing_written("Refused{" + what + "}");
    condition.set(true);
    const auto retry = run.enqueue(request);
    run.require(is_enqueued(retry),
                "after " + what + " was fixed the same key got " + describe(retry));
    // Policy is revalidated before the idempotency decision, like a mismatch (SPEC §4).
    condition.set(false);
    const auto duplicate = run.enqueue(request);
    run.require(is(duplicate, Refused{condition.refusal}), "a duplicate while " + what +
                                                               " holds got " + describe(duplicate) +
                                                               ", not Refused{" + what + "}");
  }
  // The hop budget is live policy too: a child past the live max_hops is refused.
  run.fresh();
  const auto request = run.trigger(1);
  run.harness.set_policy({.enabled = true, .max_hops = request.child_hop - 1});
  const auto over_budget = run.enqueue(request);
  run.require(is(over_budget, Refused{EnqueueRefusal::FeatureDisabled}),
              "a child hop over the live max_hops got " + describe(over_budget) +
                  ", not Refused{feature_disabled} (child_hop > max_hops is the policy refusing)");
  run.require_nothing_written("a refusal over the hop budget");
  // Authorization is per (source, target) pair: forbidding alice → bob forbids nothing else.
  run.fresh();
  run.harness.set_available("carol", true);
  run.harness.set_authorized(kSource, kTarget, false);
  const auto to_carol = request_for({.conversation = kDesk,
                                     .sequence = 2,
                                     .author_id = kSource,
                                     .content = "@carol hi",
                                     .hop = 0},
                                    "carol");
  const CommittedReply by_dave{
      .conversation = kDesk, .sequence = 3, .author_id = "dave", .content = "@bob hi", .hop = 0};
  run.harness.commit_reply({.conversation = kDesk,
                            .sequence = 2,
                            .author_id = kSource,
                            .content = "@carol hi",
                            .hop = 0});
  run.harness.commit_reply(by_dave);
  const auto carol = run.enqueue(to_carol);
  run.require(is_enqueued(carol),
              "with only alice → bob forbidden, alice → carol got " + describe(carol));
  const auto dave = run.enqueue(request_for(by_dave));
  run.require(is_enqueued(dave),
              "with only alice → bob forbidden, dave → bob got " + describe(dave));
}

void eq10_session_survives_every_answer(Run& run) {
  run.fresh();
  Session& session = run.session();
  std::vector<MentionTurnRequest> requests;
  for (Sequence s = 1; s <= 5; ++s) requests.push_back(run.trigger(s));
  const auto next = [&](std::size_t i, const std::string& after) {
    const auto answer = run.enqueue(session, requests[i]);
    run.require(is_enqueued(answer), "on the same session, right after " + after +
                                         ", a new key got " + describe(answer));
  };
  next(0, "a fresh start");
  run.require(is_already(run.enqueue(session, requests[0])), "a replay did not get Already");
  next(1, "Already");
  run.harness.set_available(kTarget, false);
  run.require(is(run.enqueue(session, requests[2]), Refused{EnqueueRefusal::TargetUnavailable}),
              "an unavailable target was not refused");
  run.harness.set_available(kTarget, true);
  next(3, "Refused");
  auto mismatched = requests[2];
  mismatched.content += " (edited)";
  run.require(!run.enqueue(session, mismatched),
              "a request that mismatches its stored reply was not an error");
  next(4, "an error");

  // Lost races: two sessions race on one key, then each must take a new key at once. A
  // host that catches the loser's unique violation without a savepoint (M2) poisons the
  // loser's transaction or session here, whatever the race answered.
  for (int round = 0; round < run.options.repeat; ++round) {
    const Sequence base = 100 + 3 * static_cast<Sequence>(round);
    const auto contested = run.trigger(base);
    std::array<std::unique_ptr<Session>, 2> racers{run.harness.open_session(),
                                                   run.harness.open_session()};
    std::array<Answer, 2> answers{no_answer(), no_answer()};
    run.step("waiting for two sessions racing on one key");
    detail::together(2, [&](std::size_t i) { answers[i] = call(*racers[i], contested); });
    for (std::size_t i = 0; i < 2; ++i) {
      run.tally(contested, answers[i]);
      run.require(is_enqueued(answers[i]) || is_already(answers[i]),
                  "a caller in a race of two on one key got " + describe(answers[i]));
      const auto fresh_key = run.trigger(base + 1 + i);
      const auto after = run.enqueue(*racers[i], fresh_key);
      run.require(is_enqueued(after),
                  "right after a race of two on one key, the same session "
                  "got " +
                      describe(after) + " for a new key");
    }
  }
}

namespace {

// Judges `error`, the answer to `request` in a store that held nothing for it before, by
// what the store holds afterwards. A definite kind (`unavailable`, `trigger_missing`,
// `trigger_mismatch`, `invalid_request`) says nothing was written and a retry is safe: the
// store must hold nothing for the key, then or `wait` later. `indeterminate` and `internal`
// may go either way: the retry must answer what the store holds (`Already` for a child,
// `Enqueued` for none). Returns whether the store holds a child for the key.
bool judge_error(Run& run, const MentionTurnRequest& request, const QueueError& error,
                 const std::string& what) {
  const std::string kind(name(error.kind));
  const bool definite =
      error.kind != QueueErrorKind::Indeterminate && error.kind != QueueErrorKind::Internal;
  const auto held = [&] {
    run.step("reading the store back after an error");
    return run.harness.records().size() + run.children_of(request).size();
  };
  if (!definite) return held() > 0;
  run.require(held() == 0, what + " was answered " + kind +
                               ", which says nothing was written, yet the store holds a record "
                               "or child for the key");
  std::this_thread::sleep_for(run.options.wait);
  run.require(held() == 0, what + " was answered " + kind +
                               ", and a record or child for the key appeared later without a "
                               "retry");
  return false;
}

}  // namespace

// After every error, the suite reads the store back: an error's kind must agree with what
// the store then holds (SPEC §4). A failure injected at each hook point, and the errors a
// store finds itself (no committed reply, a mismatching one). A store that answers
// `unavailable` for every failure, also after its transaction committed, fails here (M24);
// EQ-06 and EQ-07 accept any error.
void eq33_error_kinds_match_the_store(Run& run) {
  run.need_hooks();
  for (const HookPoint point : kAllHookPoints) {
    run.fresh();
    const auto request = run.trigger(1);
    run.fail_once_at(point);
    const auto failed = run.enqueue(request);
    const std::string at = "a failure at " + std::string(name(point));
    run.require(!failed, at + " was answered " + describe(failed));
    const bool held = judge_error(run, request, failed.error(), at);
    const auto retry = run.enqueue(request);
    run.require(held ? is_already(retry) : is_enqueued(retry),
                "the retry after " + at + " got " + describe(retry) + ", with " +
                    (held ? "a child" : "no child") + " for the key in the store");
  }
  run.fresh();
  auto missing = run.trigger(1);
  missing.key.trigger_sequence = 2;  // no reply was committed there
  const auto no_reply = run.enqueue(missing);
  run.require(!no_reply, "a request with no committed reply got " + describe(no_reply));
  judge_error(run, missing, no_reply.error(), "a request with no committed reply");
  auto mismatched = run.trigger(3);
  mismatched.content += " (edited)";
  const auto mismatch = run.enqueue(mismatched);
  run.require(!mismatch, "a request that differs from its reply got " + describe(mismatch));
  judge_error(run, mismatched, mismatch.error(), "a request that differs from its reply");
}

}  // namespace thm::conformance::checking
