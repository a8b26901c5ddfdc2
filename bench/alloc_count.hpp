#pragma once
/// \file
/// Heap allocations counted per benchmark iteration. Linking `alloc_count.cpp` into a bench
/// replaces the global `operator new` with one that counts every call on the calling thread
/// (and then allocates with `malloc`), so a bench can report how many blocks one call of the
/// code under test allocates (a refusal allocates nothing). `time_calls` is the
/// timed loop the benches share around it.

#include <benchmark/benchmark.h>

#include <cstdint>

namespace thm::bench {

/// How many times `operator new` (any form) has run on this thread since it started.
[[nodiscard]] std::uint64_t allocations_on_this_thread() noexcept;
/// The bytes those calls asked for, together (what was freed since is not taken off).
[[nodiscard]] std::uint64_t bytes_allocated_on_this_thread() noexcept;

/// Counts the allocations one call of `call` makes, outside the timed loop (once, before the
/// bench), and records it as the counter `allocs` (blocks per call).
template <class Call>
void count_allocations(benchmark::State& state, Call&& call) {
  const std::uint64_t before = allocations_on_this_thread();
  call();
  state.counters["allocs"] =
      benchmark::Counter(static_cast<double>(allocations_on_this_thread() - before));
}

/// Times `call` (a bench checks first that it takes the path the bench names): the heap
/// blocks of one call (counter `allocs`), then the timed loop, one item per call.
template <class Call>
void time_calls(benchmark::State& state, const Call& call) {
  count_allocations(state, [&] { benchmark::DoNotOptimize(call()); });
  for (auto _ : state) {
    auto result = call();
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace thm::bench
