#pragma once
/// \file
/// The conformance checks (queue-conformance.md §6), run against a `Harness`: one at a time
/// by id, or the whole suite, each returning a report entry under its EQ id.

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/harness.hpp"

namespace thm::conformance {

/// A check's verdict.
enum class Verdict : std::uint8_t { Pass, Fail, Skip };

/// The token of `verdict`: `pass`, `fail` or `skip`.
[[nodiscard]] std::string_view name(Verdict verdict) noexcept;

/// Jepsen-style counts over one check run (queue-conformance.md §6). Answers: `attempts`
/// enqueue calls, of which `enqueued`, `already`, `refused`, `errors` (definite) and
/// `indeterminate`. Store after the run: `children` rows; `lost` keys answered Enqueued or
/// Already without a child (and, under node faults, keys answered Enqueued again by a call
/// that started after they were admitted); `duplicated` keys with more than one child or more than
/// one Enqueued answer; `unexpected` children for keys no call could have admitted. Node faults
/// (EQ-28…EQ-30): `faults` made, and `outage_ms`, the longest time from one to the first
/// `Enqueued` answer to a call started after it (to the first `Already` when no key was
/// left to write).
struct Counts {
  std::uint64_t attempts = 0;
  std::uint64_t enqueued = 0;
  std::uint64_t already = 0;
  std::uint64_t refused = 0;
  std::uint64_t errors = 0;
  std::uint64_t indeterminate = 0;
  std::uint64_t children = 0;
  std::uint64_t lost = 0;
  std::uint64_t duplicated = 0;
  std::uint64_t unexpected = 0;
  std::uint64_t faults = 0;
  std::uint64_t outage_ms = 0;
  friend bool operator==(const Counts&, const Counts&) = default;
};

/// One report entry: `id` like `EQ-01`; `reason` says why it failed or was skipped, or, on
/// a pass, what the check could not show with this harness (empty when nothing); `seed` is
/// the one the run used, so a failure can be replayed.
struct CheckReport {
  std::string id{};
  std::string title{};
  Verdict verdict = Verdict::Pass;
  std::string reason{};
  Counts counts{};
  std::uint64_t seed = 0;
};

/// Knobs (queue-conformance.md §8). `repeat` is how often each race is run (R); a failing
/// race is not retried: one counterexample fails the check. `short_mode` drops the largest
/// race and shrinks the randomized schedules. `wait` bounds how long a check lets a second
/// caller run while a first one is paused.
///
/// `stall` arms a watchdog on every check: when a check makes no progress (no enqueue
/// answered, no step begun) for that long, a harness or store is stuck, and waiting longer
/// would only hang the run. The watchdog then writes `EQ-NN (title) made no progress for
/// N s while: <the step>` with the seed, calls `on_stall` with that message if set
/// (otherwise writes it to stderr), and ends the process with exit code 1: a stuck thread
/// cannot be stopped safely any other way. Zero disables it.
struct Options {
  std::uint64_t seed = 1;
  int repeat = 25;
  bool short_mode = false;
  std::chrono::milliseconds wait{100};
  std::chrono::milliseconds stall{std::chrono::minutes(2)};
  std::function<void(const std::string& message)> on_stall{};
};

/// A check of the suite: its EQ id, a one-line title and the function that runs it.
struct Check {
  std::string_view id;
  std::string_view title;
  CheckReport (*run)(Harness& harness, const Options& options);
};

/// Every check this suite implements, in EQ order.
[[nodiscard]] std::span<const Check> checks() noexcept;

/// Runs the check `id` (e.g. `EQ-05`) against `harness`. Never throws: harness exceptions
/// become a failing report; an unknown id becomes a failing report saying so.
[[nodiscard]] CheckReport run_check(std::string_view id, Harness& harness, const Options& options);

/// Runs every check in order, calling `progress` (if set) after each one.
[[nodiscard]] std::vector<CheckReport> run_suite(
    Harness& harness, const Options& options,
    const std::function<void(const CheckReport&)>& progress = {});

/// True when `report` left part of what its title promises unproven: a skip proved nothing
/// of it, and a pass with a reason proved only part (the reason says what it could not
/// show with this harness). A failure is a finding, not a gap.
[[nodiscard]] bool left_unproven(const CheckReport& report) noexcept;

/// True when no report failed (skips do not fail a suite).
[[nodiscard]] bool passed(std::span<const CheckReport> reports) noexcept;

}  // namespace thm::conformance
