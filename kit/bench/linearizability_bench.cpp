// The linearizability checker (queue-conformance.md §9) on histories of 1k, 10k and 100k calls
// over 100 keys, against the counts the suite's audit keeps over the same history (Jepsen's
// total-queue accounting: Enqueued answers per key), in the same run.
//
// A history is what a correct queue answers: each call takes effect at its own instant, in
// order, and its invocation and return are drawn up to 64 instants either side, so about a
// hundred calls are in flight at once. Enqueues, claims, renewals, completions and
// fails, on a store clock that runs with the instants; a claim that finds nothing is rare, as
// it is in the suite (it belongs to every key).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "thm/conformance/linearizability.hpp"

namespace {

using thm::conformance::Operation;
using Kind = Operation::Kind;
using Answer = Operation::Answer;

constexpr std::int64_t kLeaseMs = 40;  // instants are milliseconds of store time

struct Child {
  bool admitted = false;
  bool ended = false;
  std::uint32_t attempts = 0;
  std::string token;
  std::int64_t expires = 0;
};

// One call of a correct queue at instant `at`, on `key` (a claim takes the first claimable).
Operation one_call(std::map<std::string, Child>& keys, std::mt19937_64& random, std::int64_t at,
                   std::uint64_t& tokens) {
  const std::string key = "k" + std::to_string(random() % keys.size());
  Child& child = keys[key];
  const auto dice = random() % 10;
  if (dice < 4) {
    const bool fresh = !child.admitted;
    child.admitted = true;
    return {
        .kind = Kind::Enqueue, .answer = fresh ? Answer::Enqueued : Answer::Already, .key = key};
  }
  const bool live = !child.token.empty() && at < child.expires;
  if (dice < 7) {
    for (auto& [k, c] : keys) {
      const bool free = c.token.empty() || at >= c.expires;
      if (!c.admitted || c.ended || c.attempts >= 3 || !free) continue;
      c.token = "t" + std::to_string(++tokens);
      c.expires = at + kLeaseMs;
      ++c.attempts;
      return {.kind = Kind::Claim,
              .answer = Answer::Leased,
              .key = k,
              .token = c.token,
              .attempt = c.attempts,
              .duration_ms = kLeaseMs,
              .expires_ms = c.expires};
    }
    return {.kind = Kind::Claim, .answer = Answer::Nothing, .duration_ms = kLeaseMs};
  }
  if (child.token.empty() || child.ended) {  // no lease to use: an enqueue instead
    const bool fresh = !child.admitted;
    child.admitted = true;
    return {
        .kind = Kind::Enqueue, .answer = fresh ? Answer::Enqueued : Answer::Already, .key = key};
  }
  Operation op{.kind = dice == 7   ? Kind::Renew
                       : dice == 8 ? Kind::Complete
                                   : Kind::Fail,
               .answer = live ? Answer::Settled : Answer::Stale,
               .key = key,
               .token = child.token};
  if (!live) return op;
  if (op.kind == Kind::Renew) {
    op.answer = Answer::Renewed;
    op.duration_ms = kLeaseMs;
    op.expires_ms = child.expires = at + kLeaseMs;
  } else {
    op.back_to_queue = op.kind == Kind::Fail && child.attempts < 3;
    child.ended = !op.back_to_queue;
    child.token.clear();
  }
  return op;
}

std::vector<Operation> history_of(std::size_t calls) {
  std::mt19937_64 random(calls);
  std::map<std::string, Child> keys;
  for (int k = 0; k < 100; ++k) keys["k" + std::to_string(k)];
  std::uint64_t tokens = 0;
  std::vector<Operation> history;
  for (std::size_t i = 0; i < calls; ++i) {
    const auto at = static_cast<std::int64_t>(i) + 1000;
    Operation op = one_call(keys, random, at, tokens);
    op.invoke = static_cast<std::uint64_t>(at) - random() % 64;
    op.complete = static_cast<std::uint64_t>(at) + random() % 64;
    history.push_back(std::move(op));
  }
  std::ranges::sort(history, {}, &Operation::invoke);
  return history;
}

void check(benchmark::State& state) {
  const auto history = history_of(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const auto result = thm::conformance::check_linearizability(history, {.max_attempts = 3});
    if (result.verdict != thm::conformance::LinearizabilityResult::Verdict::Linearizable ||
        result.unjudged > 0) {
      state.SkipWithError("a correct queue's history was not judged linearizable");
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

// The audit's counts over the same history: Enqueued answers per key, and the keys with more
// than one.
void counts(benchmark::State& state) {
  const auto history = history_of(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::map<std::string, std::uint64_t> enqueued;
    for (const Operation& op : history) {
      if (op.kind == Kind::Enqueue && op.answer == Answer::Enqueued) ++enqueued[op.key];
    }
    const auto duplicated =
        std::ranges::count_if(enqueued, [](const auto& entry) { return entry.second > 1; });
    benchmark::DoNotOptimize(duplicated);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

BENCHMARK(check)
    ->Name("linearizability.check/thm")
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(counts)
    ->Name("linearizability.check/counts")
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
