#pragma once
// `thm.LargeRosterWarning` (adr/0028): an operation given a roster of more than
// `kLargeRosterOnViews` agents as a snapshot, read as views on every call, warns once per
// process that a prepared team (`thm.Team.prepare`) would serve it at a fraction of the cost.
// The warnings filters decide what becomes of it: shown once, silenced
// (`-W ignore::thm.LargeRosterWarning`), or raised (`-W error::thm.LargeRosterWarning`), in
// which case every such call raises it until it is allowed through once.

#include <pybind11/pybind11.h>

#include <atomic>
#include <string>

#include "thm/core.hpp"

namespace thm::python {

namespace py = pybind11;

/// Warns when `roster`, which `op` is about to read as views, is larger than a team should be
/// left unprepared; needs the GIL.
inline void warn_if_large(const RosterSnapshot& roster, const char* op) {
  static std::atomic<bool> warned{false};
  if (roster.members.size() <= kLargeRosterOnViews || warned.load()) return;
  const py::object category = py::module_::import("thm._errors").attr("LargeRosterWarning");
  const std::string message =
      std::string(op) + ": a roster of " + std::to_string(roster.members.size()) +
      " agents, read as snapshots, is validated and indexed again on every call; prepare it "
      "once per change with thm.Team.prepare(roster=..., desks=...) and pass team=... instead";
  if (PyErr_WarnEx(category.ptr(), message.c_str(), 1) < 0) throw py::error_already_set();
  warned.store(true);
}

}  // namespace thm::python
