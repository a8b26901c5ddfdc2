#pragma once
/// \file
/// Writing conformance reports: the JSON form (queue-conformance.md §8) and a table for
/// people.

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "thm/conformance/suite.hpp"

namespace thm::conformance {

/// The reports as one JSON document: `{"harness": NAME, "passed": bool, "checks": [{"id",
/// "title", "result": "pass"|"fail"|"skip", "reason", "left_unproven": bool, "counts":
/// {attempts, enqueued, already, refused, errors, indeterminate, children, lost, duplicated,
/// unexpected}, "seed"}]}`. `left_unproven` is `left_unproven(report)`.
[[nodiscard]] std::string to_json(std::string_view harness, std::span<const CheckReport> reports);

/// A table for a terminal, at most 100 columns wide: per check a line of id, result and
/// counts, then its reason (or title) on lines of its own; under a failure, the command that
/// replays it when `replay` is given (`replay` followed by ` --seed S --check ID`, on one
/// line however long, so that it pastes). Then a
/// legend of the count columns, the checks left unproven (`left_unproven`), and last
/// `N passed, N failed, N skipped`.
void print_table(std::ostream& out, std::span<const CheckReport> reports,
                 std::string_view replay = {});

}  // namespace thm::conformance
