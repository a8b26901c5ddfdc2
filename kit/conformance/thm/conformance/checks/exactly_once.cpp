// The checks of queue-conformance.md §6, part A. exactly-once and the meaning of each answer
// (EQ-01…EQ-07). Each is a plain function over a `Run`; checks.cpp lists them and runs them.
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

void eq01_race_on_one_key(Run& run) {
  std::vector<std::size_t> sizes{2, 8};
  if (!run.options.short_mode) sizes.push_back(64);
  Sequence sequence = 0;
  for (const std::size_t wanted : sizes) {
    const std::size_t n = run.racers(wanted, "the race of " + std::to_string(wanted));
    run.fresh();
    for (int repetition = 0; repetition < run.options.repeat; ++repetition) {
      const auto request = run.trigger(++sequence);
      const auto answers = run.race(std::vector(n, request));
      const auto enqueued = std::count_if(answers.begin(), answers.end(), is_enqueued);
      const auto already = std::count_if(answers.begin(), answers.end(), is_already);
      const std::string where = " in a race of " + std::to_string(n) + " (repetition " +
                                std::to_string(repetition + 1) + ")";
      for (const auto& answer : answers) {
        run.require(is_enqueued(answer) || is_already(answer),
                    "a caller got " + describe(answer) + where);
      }
      run.require(enqueued == 1, std::to_string(enqueued) + " callers got Enqueued" + where);
      run.require(already == static_cast<long>(n) - 1,
                  std::to_string(already) + " callers got Already" + where);
      run.require(run.children_of(request).size() == 1,
                  "the key does not have exactly one child" + where);
    }
    run.require(run.harness.records().size() == static_cast<std::size_t>(run.options.repeat),
                "expected one idempotency record per raced key");
  }
}

namespace {

// Caller A stops at `point`; caller B starts on the same key and may run for `wait`.
// Returns B's answer if it arrived while A was paused. Nothing reads the store while A is
// paused: a host's inspector may rightly wait for A's open transaction. In a fresh store
// with A paused before its commit, no child can be committed, so an answer B got meanwhile
// is judged without looking.
struct PausedPair {
  Answer first;
  Answer second;
  std::optional<Answer> second_while_paused;
};

PausedPair pause_first_caller(Run& run, const MentionTurnRequest& request, HookPoint point,
                              bool fail_first) {
  auto a_session = run.harness.open_session();
  auto b_session = run.harness.open_session();
  auto gate = run.gate(point, fail_first);
  std::optional<Call> a;
  std::optional<Call> b;
  ReleaseOnExit release{gate};
  a.emplace(*a_session, request);
  run.require(gate->wait_reached(), "the first caller never reached " + std::string(name(point)) +
                                        " (does the harness call its hook?)");
  b.emplace(*b_session, request);
  run.step("waiting for a second caller while the first is paused at " + std::string(name(point)));
  PausedPair out{.first = no_answer(),
                 .second = no_answer(),
                 .second_while_paused = b->answer_within(run.options.wait)};
  gate->release();
  run.step("waiting for both callers to answer after the first was released");
  out.first = a->answer();
  out.second = b->answer();
  run.tally(request, out.first);
  run.tally(request, out.second);
  return out;
}

}  // namespace

void eq02_pause_first_caller_before_commit(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto request = run.trigger(1);
  const auto pair = pause_first_caller(run, request, HookPoint::BeforeCommit, false);
  if (pair.second_while_paused) {
    run.require(
        !is_enqueued(*pair.second_while_paused),
        "the second caller got Enqueued while the first caller's transaction was still open");
    run.require(!is_already(*pair.second_while_paused),
                "the second caller got Already while no child was committed");
  }
  run.require(is_enqueued(pair.first),
              "the first caller got " + describe(pair.first) + ", not Enqueued");
  run.require(is_already(pair.second),
              "the second caller got " + describe(pair.second) + ", not Already");
  run.require(run.children_of(request).size() == 1, "the key does not have exactly one child");
}

void eq03_first_caller_rolls_back(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto request = run.trigger(1);
  const auto pair = pause_first_caller(run, request, HookPoint::BeforeCommit, true);
  if (pair.second_while_paused) {
    run.require(!is_already(*pair.second_while_paused),
                "the second caller got Already while no child was committed");
  }
  run.require(!pair.first,
              "the first caller failed at before_commit but got " + describe(pair.first));
  run.require(is_enqueued(pair.second), "after the first caller rolled back, the second got " +
                                            describe(pair.second) + ", not Enqueued");
  run.require(run.children_of(request).size() == 1, "the key does not have exactly one child");
}

void eq04_unique_constraint(Run& run) {
  if (!run.capabilities.sql_schema) {
    throw Skipped{
        "the store has no SQL schema to introspect; its exactly-once rests on the per-key step "
        "that "
        "EQ-01, EQ-02 and EQ-03 exercise"};
  }
  const auto index = run.harness.unique_key_index();
  run.require(index.has_value(), "the idempotency table has no unique index on its key columns");
  run.require(!index->columns.empty(), "the idempotency table's unique index names no columns");
  run.require(!index->partial, "the idempotency table's unique index is partial");
  run.note(
      "the index is the one the harness reports, not one the suite read itself; EQ-02 is the "
      "behavioural check that the decision holds");
}

void eq05_answer_on_replay(Run& run) {
  run.fresh();
  const auto request = run.trigger(1);
  const auto first = run.enqueue(request);
  run.require(is_enqueued(first), "the first call got " + describe(first));
  for (int i = 0; i < 3; ++i) {
    const auto again = run.enqueue(request);
    run.require(is_already(again), "replay " + std::to_string(i + 1) + " got " + describe(again));
  }
  const auto children = run.children_of(request);
  run.require(children.size() == 1, "the key does not have exactly one child");
  run.require(children[0].request == request, "the child's request is not the one enqueued");
  if (run.capabilities.persistent) {
    run.forget_session();
    run.durability().reopen();
    const auto reopened = run.enqueue(*run.harness.open_session(), request);
    run.require(is_already(reopened),
                "after reopening the store the replay got " + describe(reopened));
  } else {
    run.note("no replay after reopening the store: it is not `persistent`");
  }
}

void eq06_indeterminate_then_retry(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto committed = run.trigger(1);
  run.fail_once_at(HookPoint::AfterCommitBeforeReturn);
  const auto lost_answer = run.enqueue(committed);
  run.require(!lost_answer, "a failure after commit was answered " + describe(lost_answer));
  const auto retry = run.enqueue(committed);
  run.require(is_already(retry),
              "the retry after a committed but unanswered step got " + describe(retry));

  const auto rolled_back = run.trigger(2);
  run.fail_once_at(HookPoint::BeforeCommit);
  const auto failed = run.enqueue(rolled_back);
  run.require(!failed, "a failure before commit was answered " + describe(failed));
  run.require(run.children_of(rolled_back).empty(), "a child exists after a failure before commit");
  const auto second = run.enqueue(rolled_back);
  run.require(is_enqueued(second), "the retry after a rolled-back step got " + describe(second));
  run.require(run.children_of(committed).size() == 1 && run.children_of(rolled_back).size() == 1,
              "retries did not converge on one child per key");
}

// K keys, N callers each trying every key in its own order, faults injected by a seeded
// schedule (when the harness has hooks); the audit does the accounting.
void eq07_accounting(Run& run) {
  const std::size_t keys = run.options.short_mode ? 20 : 100;
  const std::size_t callers = run.racers(8, "the 8 callers");
  run.fresh();
  std::vector<MentionTurnRequest> requests;
  for (std::size_t k = 0; k < keys; ++k) requests.push_back(run.trigger(k + 1));
  auto injected = std::make_shared<std::atomic<std::uint64_t>>(0);
  if (run.capabilities.hooks) {
    const std::uint64_t salt = run.random();
    auto calls = std::make_shared<std::atomic<std::uint64_t>>(0);
    run.harness.set_hook([salt, calls, injected](HookPoint at, const MentionTurnRequest&) {
      if (at != HookPoint::BeforeCommit && at != HookPoint::AfterCommitBeforeReturn) return true;
      std::mt19937_64 dice(salt ^ calls->fetch_add(1));
      const bool fail = dice() % 8 == 0;  // each of the two points fails one call in eight
      if (fail) injected->fetch_add(1);
      return !fail;
    });
  } else {
    run.note("no faults were injected: the harness has no `hooks`");
  }
  std::vector<std::vector<MentionTurnRequest>> orders(callers, requests);
  for (auto& order : orders) std::shuffle(order.begin(), order.end(), run.random);
  std::vector<std::vector<Answer>> answers(callers);
  std::vector<std::unique_ptr<Session>> sessions;
  for (std::size_t c = 0; c < callers; ++c) sessions.push_back(run.harness.open_session());
  run.step("waiting for " + std::to_string(callers) + " callers enqueueing " +
           std::to_string(keys) + " keys each, with faults injected");
  {
    std::vector<std::jthread> threads;
    for (std::size_t c = 0; c < callers; ++c) {
      threads.emplace_back([&, c] {
        for (const auto& request : orders[c]) {
          answers[c].push_back(call(*sessions[c], request));
        }
      });
    }
  }
  run.harness.set_hook({});
  const Counts before = run.counts;
  for (std::size_t c = 0; c < callers; ++c) {
    for (std::size_t i = 0; i < orders[c].size(); ++i) run.tally(orders[c][i], answers[c][i]);
  }
  // Every error must be one the check injected: the others are the store's own failures
  // under load (a unique violation caught and returned, a poisoned transaction).
  const std::uint64_t failed =
      run.counts.errors + run.counts.indeterminate - before.errors - before.indeterminate;
  run.require(failed <= injected->load(), std::to_string(failed) +
                                              " calls failed, but the check injected only " +
                                              std::to_string(injected->load()) + " failures");
  run.audit();
}

}  // namespace thm::conformance::checking
