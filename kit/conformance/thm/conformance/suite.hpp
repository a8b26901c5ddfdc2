#pragma once
/// \file
/// The conformance checks (queue-conformance.md §6), run against a `Harness`: one at a time
/// by id, or the whole suite, each returning a report entry under its EQ id.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/linearizability.hpp"

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

/// One thing the suite saw happen during a check run, for the report's timeline
/// (queue-conformance.md §8, Reports): a call a session made, a pause in the check's hook,
/// or one of the host's own writes made through the harness. Times are microseconds from
/// the last time the check reset the store (`Harness::reset`), on a monotonic clock.
struct HistoryEvent {
  /// What the event is.
  enum class Kind : std::uint8_t {
    Call,     ///< a session's `enqueue_once`, `claim`, `renew`, `complete` or `fail`
    Pause,    ///< a hook point the check's hook held (1 ms or more, or while another event
              ///< happened) or made fail
    Harness,  ///< the host's own write, lifecycle or fault, made by the check
  };
  Kind kind = Kind::Call;
  /// The session: numbered from 0 in the order the check opened them since the last reset.
  /// None for a `Harness` event, and for a `Pause` whose session the suite could not tell
  /// (an exec adapter calls hooks from threads of its own; the request's key names the
  /// session unless two calls in flight share it).
  std::optional<std::uint32_t> lane{};
  /// The member called (`enqueue_once`, `set_policy`, `kill_node`) or, for a pause, the hook
  /// point (`before_commit`).
  std::string what{};
  /// Its arguments, for people: `alice -> bob, eng, seq 3` for a request; `node 1`.
  std::string subject{};
  /// What it answered: `Enqueued`, `Refused{unauthorized}`, `error unavailable (...)`; for a
  /// pause `continued` or `failed the step`; `threw: ...` when the member threw; empty for a
  /// write that returned.
  std::string answer{};
  std::uint64_t start_us = 0;  ///< when the call or pause began
  std::uint64_t end_us = 0;    ///< when it returned (not before `start_us`)
  /// The call as data, as the linearizability checker and the exported history read it:
  /// on every session call but one the harness refused as `Unsupported`, on
  /// `enqueue_then_kill`, `settle` and `hold_child` (whose event spans the hold). Times in
  /// microseconds, as above.
  std::optional<Operation> operation{};
  /// For a `store_now` event (a read of the store's clock): the time read, in milliseconds
  /// since the epoch.
  std::optional<std::int64_t> store_time_ms{};
  friend bool operator==(const HistoryEvent&, const HistoryEvent&) = default;
};

/// The token of `kind`: `call`, `pause` or `harness`.
[[nodiscard]] std::string_view name(HistoryEvent::Kind kind) noexcept;

/// The most events a check run keeps (the last ones: a failure is found at the end).
inline constexpr std::size_t kHistoryLimit = 4096;

/// One report entry: `id` like `EQ-01`; `reason` says why it failed or was skipped, or, on
/// a pass, what the check could not show with this harness (empty when nothing); `seed` is
/// the one the run used, so a failure can be replayed.
struct CheckRun {
  std::string id{};
  std::string title{};
  Verdict verdict = Verdict::Pass;
  std::string reason{};
  Counts counts{};
  std::uint64_t seed = 0;
  /// What happened since the check last reset the store, in the order the events began, at
  /// most `kHistoryLimit` of them; for a failure of linearizability (§9), the calls on the key
  /// no order explains. Kept for every run (a pass's too), so it can be exported and
  /// rechecked.
  std::vector<HistoryEvent> history{};
  /// Events of that stretch that did not fit in `history` (the earliest ones).
  std::uint64_t history_dropped = 0;
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
  CheckRun (*run)(Harness& harness, const Options& options);
};

/// Every check this suite implements, in EQ order.
[[nodiscard]] std::span<const Check> checks() noexcept;

/// Runs the check `id` (e.g. `EQ-05`) against `harness`. Never throws: harness exceptions
/// become a failing report; an unknown id becomes a failing report saying so.
[[nodiscard]] CheckRun run_check(std::string_view id, Harness& harness, const Options& options);

/// True when `report` left part of what its title promises unproven: a skip proved nothing
/// of it, and a pass with a reason proved only part (the reason says what it could not
/// show with this harness). A failure is a finding, not a gap.
[[nodiscard]] bool left_unproven(const CheckRun& report) noexcept;

/// True when no report failed (skips do not fail a suite).
[[nodiscard]] bool passed(std::span<const CheckRun> reports) noexcept;

/// The name of one run of one check until thm 0.2.
using CheckReport [[deprecated("CheckReport is CheckRun")]] = CheckRun;

}  // namespace thm::conformance
