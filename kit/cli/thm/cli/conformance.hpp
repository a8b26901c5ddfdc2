#pragma once
/// \file
/// `thm conformance`: run the host queue conformance suite (queue-conformance.md) against a
/// queue named on the command line, print progress and a table, write a JSON report.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace thm::cli {

/// What `thm conformance` was asked to do.
struct ConformanceRequest {
  /// Which queue: `memory` (the in-memory reference queue), `sqlite:PATH` (the SQLite queue
  /// on a scratch database file: new, empty, or made by an earlier run), or
  /// `postgres:CONNINFO` (the PostgreSQL queue on a scratch database named by libpq conninfo:
  /// no tables in any schema, or made by an earlier run), or `exec:COMMAND` (an adapter
  /// program speaking kit/protocol/PROTOCOL.md, run with `/bin/sh -c`).
  std::string queue = "memory";
  /// How long an `exec:` adapter may take to answer one request.
  std::chrono::milliseconds exec_timeout{30'000};
  /// The seed of the first run; run k (from 0) uses `seed + k`.
  std::uint64_t seed = 1;
  /// How often each race is repeated within one run (queue-conformance.md R).
  int repeat = 25;
  /// How many times the whole suite runs, each with its own seed.
  int runs = 1;
  bool short_mode = false;
  /// Only these check ids (e.g. `EQ-01`); empty means every check.
  std::vector<std::string> only{};
  /// Where to write the JSON report, if anywhere; `-` means `out`, in place of the table.
  std::optional<std::string> report_path{};
  /// Capabilities the queue must prove (`thm::conformance::parse_requirements`): the run
  /// fails when the queue does not declare one, and so does a check skipped or passed only
  /// in part for one of them (`unmet_requirement`).
  std::vector<std::string> require{};
  /// Where to write the report as JUnit XML (`conformance::to_junit`), if anywhere.
  std::optional<std::string> junit_path{};
  /// Where to write the report as one self-contained HTML page (`conformance::to_html`), if
  /// anywhere.
  std::optional<std::string> html_path{};
  /// Where to write every run's recorded history as JSON in Jepsen's shape
  /// (`conformance::to_history`), if anywhere.
  std::optional<std::string> history_path{};
  /// The tool and its version, as reports name them (`thm 0.1.0`).
  std::string tool = "thm";
};

/// The command that replays one check of `request`: `thm conformance --queue Q` with the
/// request's `--short`, `--repeat`, `--exec-timeout` and `--require` where they differ from
/// the defaults, to which a failure's ` --seed S --check ID` is appended. A password in the
/// queue (`password=…`, or `user:…@` in a URI) is shown as `...`.
[[nodiscard]] std::string replay_command(const ConformanceRequest& request);

/// Runs the request: on `progress`, a line when each check starts, one every 10 s while it
/// runs, and one with its verdict and time; then the table (counts
/// summed over runs; a check fails if any run failed it, reported with that run's seed and
/// reason) on `out`, and the JSON report. With `report_path` `-` the report is all of
/// `out`, and the table goes to `progress`; under it, each failure's replay command. Returns
/// 0 when every check passed or was skipped, 1 when one failed (or a requirement was not
/// met), 2 for a bad request (unknown queue or check id, unwritable report), with the reason
/// on `progress`. A check that stalls (`Options::stall`) ends the process with exit code 1
/// after printing the table so far.
int run_conformance(const ConformanceRequest& request, std::ostream& out, std::ostream& progress);

}  // namespace thm::cli
