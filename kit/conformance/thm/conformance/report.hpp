#pragma once
/// \file
/// Writing conformance reports: the JSON form (queue-conformance.md §8) and a table for
/// people.

#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/suite.hpp"

namespace thm::conformance {

/// One check over every run of an invocation: the total the table shows (counts summed,
/// the first failure's reason and seed), each run's own entry, and how long each run of it
/// took, in milliseconds. A check cut short by a stall or a signal has a total and fewer runs.
struct CheckResult {
  CheckRun total{};
  std::vector<CheckRun> runs{};
  std::vector<std::uint64_t> run_ms{};
};

/// The name of a check's result over every run until thm 0.2.
using CheckRecord [[deprecated("CheckRecord is CheckResult")]] = CheckResult;

/// What a report says of the invocation as a whole (queue-conformance.md §8).
struct RunDescription {
  std::string tool{};                  ///< `thm` and its version, e.g. `thm 0.1.0`
  std::string harness{};               ///< the queue's name, e.g. `sqlite`
  std::string queue{};                 ///< `--queue` as given, a password shown as `...`
  std::uint64_t seed = 0;              ///< the first run's seed
  int runs = 1;                        ///< `--runs`
  int repeat = 25;                     ///< `--repeat`
  bool short_mode = false;             ///< `--short`
  std::vector<std::string> checks{};   ///< the `--check` ids; empty: every check
  std::vector<std::string> require{};  ///< the `--require`d capabilities
  Capabilities capabilities{};         ///< what the queue declared
  std::string replay{};                ///< the replay command, less `--seed S --check ID`
  std::uint64_t duration_ms = 0;       ///< the whole invocation
};

/// The report as one JSON document (queue-conformance.md §8): `{"harness", "passed",
/// "tool", "options": {queue, seed, runs, repeat, short, checks, require}, "capabilities":
/// {each flag of `capability_names()`, and the limits `max_content_bytes`, `max_id_bytes`,
/// `max_attempts`, `max_sessions`, `election_timeout_ms`, null when none}, "duration_ms",
/// "checks": [{"id", "title", "result": "pass"|"fail"|"skip", "reason", "left_unproven",
/// "counts": {attempts, enqueued, already, refused, errors, indeterminate, children, lost,
/// duplicated, unexpected, faults, outage_ms}, "seed", "duration_ms", "replay" (a failure's
/// command, else null), "runs": [{"seed", "result", "reason", "counts", "duration_ms",
/// "history": [{"kind": "call"|"pause"|"harness", "lane" (null when none), "what",
/// "subject", "answer", "start_us", "end_us"}] (a failing run's, see `HistoryEvent`; else
/// empty), "history_dropped"}]}]}`.
/// The keys of the first version keep their place and meaning.
[[nodiscard]] std::string to_json(const RunDescription& run, std::span<const CheckResult> checks);

/// Every run's recorded history (queue-conformance.md §9) as one JSON document, in the shape
/// Jepsen's tools read: `{"tool", "harness", "queue", "checks": [{"id", "runs": [{"seed",
/// "result", "history_dropped", "history": [{"index", "type": "invoke"|"ok"|"fail"|"info",
/// "process" (the session, or "nemesis" for the host's own events), "f", "value", "time"
/// (nanoseconds since the check last reset the store)}]}]}]}`. Each call is an invocation and
/// its completion: `ok` with the answer, `info` for an unknown outcome, `fail` for one that
/// did not happen. Keys and tokens are bytes shown as printable ASCII with `\xNN` escapes.
[[nodiscard]] std::string to_history(const RunDescription& run,
                                     std::span<const CheckResult> checks);

/// The report as JUnit XML, the form CI systems read: one `<testsuite>` named `thm
/// conformance <harness>`, with the options and capabilities as `<properties>`, one
/// `<testcase classname="conformance.<harness>" name="EQ-NN title" time="s">` per check; a
/// failure holds `<failure message="reason">` with the reason and the replay command, a skip
/// `<skipped message="reason"/>`, and a check passed in part a `<system-out>` saying what it
/// left unproven.
[[nodiscard]] std::string to_junit(const RunDescription& run, std::span<const CheckResult> checks);

/// The report as one self-contained HTML page (adr/0020): inline CSS and SVG, no script,
/// nothing fetched from anywhere. It says what ran (`run`), the verdict, what the run left
/// unproven in words (each skipped check and each check passed in part, with its reason),
/// a table of every check's counts, runs and time, and for each failure its reason, seed,
/// replay command and, from the first failing run's `history`, a timeline drawn as SVG: one
/// row per session, one for the host's writes, bars coloured by answer, pauses in the
/// check's hook hatched, each with a `<title>` naming the call; then every event as a table.
/// Host text is escaped as `to_junit` escapes it.
[[nodiscard]] std::string to_html(const RunDescription& run, std::span<const CheckResult> checks);

/// A report file, put in place only when a run completes: the text goes to `PATH.partial`
/// beside it and is renamed over PATH at the end, so a run that is interrupted, stalls or
/// fails to open another report leaves PATH as it was. A PATH that exists and is no regular
/// file (`/dev/null`, a pipe) is written in place and never removed. A symlink's target is
/// what is replaced, not the link.
class ReportFile {
 public:
  ReportFile() = default;
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  /// Drops what was written (`abandon`).
  ~ReportFile();

  /// Opens it before the run, so that an unwritable path is known before a long run; false,
  /// with errno set, when it cannot be written.
  bool open(const std::string& path);
  /// Drops what was written; PATH stays as it was.
  void abandon();
  /// Writes `text` and puts it in place; false when the write, its flush or the rename
  /// failed (PATH then stays as it was).
  bool commit(const std::string& text);

 private:
  std::string path_;
  std::string written_;
  bool in_place_ = false;
  std::ofstream file_;
};

/// A table for a terminal, at most 100 columns wide: per check a line of id, result and
/// counts, then its reason (or title) on lines of its own; under a failure, the command that
/// replays it when `replay` is given (`replay` followed by ` --seed S --check ID`, on one
/// line however long, so that it pastes). Then a
/// legend of the count columns, the checks left unproven (`left_unproven`), and last
/// `N passed, N failed, N skipped`.
void print_table(std::ostream& out, std::span<const CheckRun> reports,
                 std::string_view replay = {});

}  // namespace thm::conformance
