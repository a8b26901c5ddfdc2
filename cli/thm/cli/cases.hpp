#pragma once
/// \file
/// The language-neutral case format (`spec/cases.md`): run one operation from its
/// JSON input, compare a result with a case's `expected`, and check whole case files.
/// Used by the `thm` tool (`thm check`, `thm eval`) and its tests.

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/json/json.hpp"

namespace thm::cli {

/// Which implementation runs the operations: the library on snapshot views, the library on
/// prepared teams (`thm::Team`, adr/0016), or the reference model.
enum class Implementation : std::uint8_t { Core, Prepared, Model };

/// What `run_op` noticed while it ran, for `thm check`'s summary.
struct RunNotes {
  /// With `Implementation::Prepared`: the op's snapshots could not be prepared (a malformed
  /// roster or desk set, which no `Team` holds), so the view overload answered.
  bool unprepared = false;
};

/// The result object of `op` applied to `input` (cases.md, "Operations"): e.g.
/// `{"decision": ...}`, or `{"error": {"variant": ..., ...}}` for a typed error, including
/// `Decode` errors whose paths start at `/input`. `refused` is a decode error the caller
/// already found in `input` (a repeated key, which the parsed tree cannot show): the op
/// then answers it in its own result shape without reading `input`. An unknown `op`, or one
/// `impl` does not run, gives an error message instead (the op could not run at all).
/// With `Implementation::Prepared`, the ops that take snapshots prepare a `Team` from them
/// and call its overload; every other op is the core's. `notes`, when given, is filled in.
/// With `explain`, the ops of `kExplainedOps` add `trace`, the steps of their decision (SPEC
/// §8; `thm explain`); the others ignore it.
[[nodiscard]] Result<json::Value, std::string> run_op(
    std::string_view op, const json::Value& input,
    std::optional<json::DecodeError> refused = std::nullopt,
    Implementation impl = Implementation::Core, RunNotes* notes = nullptr, bool explain = false);

/// The operations that can explain their decision with a trace (SPEC §8), in name order.
inline constexpr std::array<std::string_view, 3> kExplainedOps{"mention_dispatch", "responder_plan",
                                                               "settle_selection"};

/// One operation `run_op` accepts, as `thm eval --help` lists it.
struct OperationInfo {
  std::string name;
  /// Its input keys, the one it reads first first, e.g. `policy, input, roster`.
  std::string input;
  /// Whether `Implementation::Core` runs it.
  bool in_core = false;
  /// Whether `Implementation::Model` runs it.
  bool in_model = false;
};

/// Every operation of the tables `run_op` dispatches on (either implementation's), in name
/// order.
[[nodiscard]] std::vector<OperationInfo> operations();

/// The type names the `decode` operation accepts, one per `json::WireTypes` entry.
[[nodiscard]] std::vector<std::string> wire_type_names();

/// Whether `actual` matches `expected` (cases.md): structural JSON equality, except that
/// inside a top-level `error` object only the keys `expected` names are compared.
[[nodiscard]] bool matches(const json::Value& expected, const json::Value& actual);

/// What `check_files` counted.
struct CheckSummary {
  std::size_t passed = 0;
  std::size_t failed = 0;
  /// With `Implementation::Prepared`: the cases (passed or failed) whose snapshots no team
  /// holds, answered by the view overload (`RunNotes::unprepared`).
  std::size_t unprepared = 0;
  /// A file could not be read, is not a JSON array of cases, or holds no cases.
  bool unreadable = false;
};

/// Runs every case of every file, printing each failure (case name, expected and actual
/// JSON) to `out` and why a file cannot be run (one `thm check: ` line each, naming the
/// path) to `errors`. Does not print the summary line.
[[nodiscard]] CheckSummary check_files(const std::vector<std::string>& paths, std::ostream& out,
                                       std::ostream& errors,
                                       Implementation impl = Implementation::Core);

/// The closing line of `thm check`: `N passed, N failed`, followed, when some cases could
/// not run prepared, by `; N of them on snapshots no team holds, run on views`.
[[nodiscard]] std::string summary_line(const CheckSummary& summary);

}  // namespace thm::cli
