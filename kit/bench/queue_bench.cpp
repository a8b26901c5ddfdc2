// The in-memory queue's locking design against the simplest one: `thm::memory::MemoryQueue`
// (a lock per key, a shared lock on the replies and policy, a short lock on the rows) against
// `GlobalMutexQueue` below, the same `ReplyState` and `TurnTable` behind one mutex, in the
// same run. Threads enqueue on distinct keys (each its own committed reply) or all on one hot
// key (one `Enqueued`, then `Already`); then claim and complete, one thread.
//
// Threaded runs time each iteration themselves (wall time from a common start to the last
// thread's end, on a fresh queue whose replies were committed beforehand), so that threads
// which a 2-core machine runs one after another are not counted as running side by side.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "alloc_count.hpp"
#include "thm/memory/memory_queue.hpp"
#include "thm/memory/tables.hpp"
#include "turns.hpp"

namespace {

using thm::memory::MemoryQueue;

// The same store logic as `MemoryQueue` (its two tables, no hooks) with every call behind one
// mutex: the baseline that shows what the finer locking buys, and what it costs.
class GlobalMutexQueue final : public thm::MentionTurnQueue {
 public:
  explicit GlobalMutexQueue(thm::memory::Limits limits = {}) : limits_(limits) {}

  // Not inlined, so that a profile (callgrind --toggle-collect) sees it like MemoryQueue's.
  [[gnu::noinline]] thm::Result<thm::EnqueueOutcome, thm::QueueError> enqueue_once(
      const thm::MentionTurnRequest& request) noexcept override {
    if (auto over = thm::exceeds_limits(request, limits_.max_content_bytes, limits_.max_id_bytes))
      return thm::unexpected{*std::move(over)};
    const std::string key = thm::turn_key(request).encoded();
    const std::scoped_lock guard(mutex_);
    if (auto mismatch = state_.verify_trigger(request, key))
      return thm::unexpected{*std::move(mismatch)};
    if (auto refusal = state_.revalidate_policy(request)) return thm::Refused{*refusal};
    if (table_.has_record(key)) return thm::Already{};
    table_.insert(key, table_.reserve_id(), request);
    return thm::Enqueued{};
  }

  void commit_reply(thm::CommittedReply reply) {
    const std::scoped_lock guard(mutex_);
    state_.commit_reply(std::move(reply));
  }
  void set_policy(thm::MentionDispatchPolicy policy) {
    const std::scoped_lock guard(mutex_);
    state_.set_policy(policy);
  }
  void set_available(const std::string& agent_id, bool available) {
    const std::scoped_lock guard(mutex_);
    state_.set_available(agent_id, available);
  }
  thm::Result<std::optional<thm::Lease>, thm::LeaseError> claim(
      std::chrono::milliseconds duration) {
    const std::scoped_lock guard(mutex_);
    return table_.claim(thm::memory::system_store_clock(), duration, limits_.max_attempts);
  }
  thm::Result<thm::TurnState, thm::LeaseError> complete(const std::string& token) {
    const std::scoped_lock guard(mutex_);
    return table_.complete(token, thm::memory::system_store_clock());
  }

 private:
  const thm::memory::Limits limits_;
  std::mutex mutex_;
  thm::memory::ReplyState state_;
  thm::memory::TurnTable table_;
};

// Enqueues per iteration, shared out among the threads, and claims per run.
constexpr thm::Sequence kEnqueuesPerIteration = 24'000;
constexpr std::int64_t kClaims = 20'000;
constexpr std::chrono::milliseconds kLease{60'000};

using thm::bench::reply_for;
using thm::bench::request_for;

// A queue with dispatch on, `bob` available, and replies 1..`replies` committed.
template <class Queue>
std::unique_ptr<Queue> open_queue(thm::Sequence replies) {
  auto queue = std::make_unique<Queue>();
  // The memory queue's writes cannot fail.
  (void)queue->set_policy({.enabled = true, .max_hops = 8});
  (void)queue->set_available("bob", true);
  for (thm::Sequence sequence = 1; sequence <= replies; ++sequence)
    (void)queue->commit_reply(reply_for(sequence));
  return queue;
}

// Runs `work(thread)` on `threads` threads started together, and returns the wall time from
// the start to the last one's end. Creating the threads is not timed.
template <class Work>
std::chrono::duration<double> run_together(int threads, Work work) {
  std::latch start(1);
  std::vector<std::jthread> workers;
  workers.reserve(static_cast<std::size_t>(threads));
  for (int thread = 0; thread < threads; ++thread) {
    workers.emplace_back([&start, &work, thread] {
      start.wait();
      work(thread);
    });
  }
  const auto begin = std::chrono::steady_clock::now();
  start.count_down();
  workers.clear();  // joins
  return std::chrono::steady_clock::now() - begin;
}

// Throughput of `kEnqueuesPerIteration` enqueues shared among `state.range(0)` threads, on a
// fresh queue each iteration; only the enqueues are timed. With `distinct`, each enqueue has
// its own key (every answer `Enqueued`); otherwise all share one (`Enqueued`, then `Already`).
template <class Queue>
void enqueue_throughput(benchmark::State& state, bool distinct) {
  const int threads = static_cast<int>(state.range(0));
  const thm::Sequence share = kEnqueuesPerIteration / static_cast<thm::Sequence>(threads);
  if (distinct) {  // the heap blocks of one admitted enqueue, counted once
    const auto probe = open_queue<Queue>(1);
    const auto request = request_for(reply_for(1));
    thm::bench::count_allocations(state, [&] { (void)probe->enqueue_once(request); });
  }
  // The requests, built once: the same keys serve every iteration's fresh queue.
  std::vector<thm::MentionTurnRequest> requests;
  for (thm::Sequence i = 1; i <= (distinct ? share * static_cast<thm::Sequence>(threads) : 1); ++i)
    requests.push_back(request_for(reply_for(i)));
  std::atomic<bool> failed = false;
  for (auto _ : state) {
    const auto queue = open_queue<Queue>(static_cast<thm::Sequence>(requests.size()));
    const auto elapsed = run_together(threads, [&](int thread) {
      for (thm::Sequence i = 0; i < share; ++i) {
        const auto& request = distinct ? requests[thread * share + i] : requests.front();
        const auto answer = queue->enqueue_once(request);
        if (!answer || (distinct && !std::holds_alternative<thm::Enqueued>(*answer))) failed = true;
      }
    });
    state.SetIterationTime(elapsed.count());
  }
  if (failed) state.SkipWithError("an enqueue was not answered as expected");
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(share) * threads);
}

template <class Queue>
void BM_QueueEnqueueDistinct(benchmark::State& state) {
  enqueue_throughput<Queue>(state, true);
}

template <class Queue>
void BM_QueueEnqueueHot(benchmark::State& state) {
  enqueue_throughput<Queue>(state, false);
}

// One queue per run for the single-thread benches, built by `Setup` and dropped by `Teardown`.
template <class Queue>
std::unique_ptr<Queue> queue;

template <class Queue>
void close_queue(const benchmark::State&) {
  queue<Queue>.reset();
}

// The worker's side: claim the oldest pending child, then complete it.
template <class Queue>
void BM_QueueClaimComplete(benchmark::State& state) {
  for (auto _ : state) {
    auto lease = queue<Queue>->claim(kLease);
    if (!lease || !*lease) {
      state.SkipWithError("no child to claim");
      break;
    }
    auto done = queue<Queue>->complete((*lease)->token);
    if (!done) {
      state.SkipWithError("a fresh lease could not complete");
      break;
    }
    benchmark::DoNotOptimize(done);
  }
  state.SetItemsProcessed(state.iterations());
}

// A queue holding `kClaims` pending children, for the claim bench.
template <class Queue>
void open_for_claims(const benchmark::State&) {
  queue<Queue> = open_queue<Queue>(kClaims);
  for (thm::Sequence sequence = 1; sequence <= static_cast<thm::Sequence>(kClaims); ++sequence)
    (void)queue<Queue>->enqueue_once(request_for(reply_for(sequence)));
}

// A replayed reply: its key already has a record, so every answer is `Already`.
template <class Queue>
void open_for_replay(const benchmark::State&) {
  queue<Queue> = open_queue<Queue>(1);
  (void)queue<Queue>->enqueue_once(request_for(reply_for(1)));
}

template <class Queue>
void BM_QueueEnqueueAlready(benchmark::State& state) {
  const auto request = request_for(reply_for(1));
  thm::bench::count_allocations(state, [&] { (void)queue<Queue>->enqueue_once(request); });
  for (auto _ : state) {
    auto answer = queue<Queue>->enqueue_once(request);
    if (answer != thm::Result<thm::EnqueueOutcome, thm::QueueError>(thm::Already{})) {
      state.SkipWithError("a replayed enqueue was not Already");
      break;
    }
    benchmark::DoNotOptimize(answer);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Queue>
void register_for(const char* impl) {
  const std::string suffix = std::string("/") + impl;
  benchmark::RegisterBenchmark(("enqueue_once.distinct" + suffix).c_str(),
                               BM_QueueEnqueueDistinct<Queue>)
      ->ArgName("threads")
      ->RangeMultiplier(2)
      ->Range(1, 8)
      ->UseManualTime();
  benchmark::RegisterBenchmark(("enqueue_once.hot" + suffix).c_str(), BM_QueueEnqueueHot<Queue>)
      ->ArgName("threads")
      ->RangeMultiplier(2)
      ->Range(1, 8)
      ->UseManualTime();
  benchmark::RegisterBenchmark(("claim_complete" + suffix).c_str(), BM_QueueClaimComplete<Queue>)
      ->Setup(open_for_claims<Queue>)
      ->Teardown(close_queue<Queue>)
      ->Iterations(kClaims)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("enqueue_once.already" + suffix).c_str(),
                               BM_QueueEnqueueAlready<Queue>)
      ->Setup(open_for_replay<Queue>)
      ->Teardown(close_queue<Queue>);
}

}  // namespace

int main(int argc, char** argv) {
  register_for<MemoryQueue>("thm");
  register_for<GlobalMutexQueue>("global_mutex");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
