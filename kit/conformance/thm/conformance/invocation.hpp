#pragma once
/// \file
/// One invocation of the suite against a harness (queue-conformance.md §8): which checks,
/// how many runs from which seed, what the queue must prove; the runs, each check's totals
/// and its runs for the reports, and what stops it early (a stalled check, SIGINT, SIGTERM).
/// `thm conformance` and the GoogleTest suite (`gtest.hpp`) both run the suite this way, so
/// both can write the same reports.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/report.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance {

/// What to run.
struct Invocation {
  /// Check ids, e.g. `EQ-05`, each run once per run in this order; empty: every check.
  std::vector<std::string> checks{};
  /// The first run's seed; run k (from 0) uses `seed + k`.
  std::uint64_t seed = 1;
  /// How many times the checks run, each time with its own seed.
  int runs = 1;
  /// `Options::repeat`, `Options::short_mode`, `Options::stall`.
  int repeat = 25;
  bool short_mode = false;
  std::chrono::milliseconds stall{std::chrono::minutes(2)};
  /// Capabilities the queue must prove (`parse_requirements`): a check skipped or passed only
  /// in part for one of them fails (`unmet_requirement`), with a reason naming `require_by`.
  std::vector<std::string> require{};
  std::string require_by = "--require";
};

/// Why `invocation` cannot run, one sentence naming what to change (an unknown check id,
/// with the one it may have meant; `runs` or `repeat` below 1); nothing when it can.
[[nodiscard]] std::optional<std::string> invalid(const Invocation& invocation);

/// The check ids `invocation` runs, in order, each once.
[[nodiscard]] std::vector<std::string> checks_of(const Invocation& invocation);

/// SIGINT and SIGTERM while it lives. Both are blocked in the thread that makes it, and so in
/// every thread started after it (make it before the harness, whose threads must inherit
/// that), and taken by a thread of its own: nothing runs in a signal handler. The first one
/// calls `on_first` (e.g. ending the adapter processes a check waits on, so that it fails at
/// once) and writes `stopping` to stderr; the invocation then stops after the check in
/// progress. A second one ends the process at once, with 128 + the signal.
class SignalStop {
 public:
  SignalStop(std::function<void()> on_first, std::string stopping);
  ~SignalStop();
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  /// The signal that came, or 0.
  [[nodiscard]] int signal() const;

 private:
  void watch(const std::stop_token& stop);

  std::function<void()> on_first_;
  std::string stopping_;
  sigset_t signals_{};
  sigset_t previous_{};
  std::atomic<int> signal_{0};
  std::jthread watcher_;
};

/// What an invocation did: each check it ran or cut short, in order, with its total and its
/// runs; how long it took; and the signal that stopped it, in which check.
struct InvocationResult {
  std::vector<CheckResult> results{};
  std::uint64_t duration_ms = 0;
  int signal = 0;
  std::string interrupted_in{};

  /// The totals, in order, as the table shows them.
  [[nodiscard]] std::vector<CheckRun> totals() const;
  /// True when no check failed (skips do not fail an invocation).
  [[nodiscard]] bool passed() const;
};

/// What an invocation tells as it goes: nothing, unless a derived class says otherwise.
/// Every member is called under one lock, from the invocation's thread or from the threads
/// that watch a check.
class Progress {
 public:
  Progress() = default;
  Progress(const Progress&) = default;
  Progress& operator=(const Progress&) = default;
  virtual ~Progress() = default;
  /// A check begins; `label` is its id, with `run k/n` before it when there are several runs.
  virtual void started(const std::string& label) { (void)label; }
  /// It still runs, every 10 s.
  virtual void still_running(const std::string& label, std::chrono::seconds elapsed) {
    (void)label;
    (void)elapsed;
  }
  /// It ended with `run` after `seconds`.
  virtual void finished(const std::string& label, const CheckRun& run, double seconds) {
    (void)label;
    (void)run;
    (void)seconds;
  }
  /// A check made no progress for `Invocation::stall`: `so_far` holds every check that
  /// finished and the stalled one, failed with `message`. The process ends when it returns.
  virtual void stalled(const std::string& message, const InvocationResult& so_far) {
    (void)message;
    (void)so_far;
  }
};

/// Runs `invocation` (which `invalid` accepts) against `harness`: each check of each run,
/// through `run_check`. A check's total sums its runs' counts and fails when any run did,
/// with that run's reason and seed; a run that leaves a required capability unproven fails
/// (`unmet_requirement`). With `stop`, a signal stops it after the check in progress, which
/// is then failed with the reason. Never throws for what a harness does.
[[nodiscard]] InvocationResult run_invocation(Harness& harness, const Invocation& invocation,
                                              Progress& progress, const SignalStop* stop = nullptr);

}  // namespace thm::conformance
