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
/// "title", "result": "pass"|"fail"|"skip", "reason", "counts": {attempts, enqueued, already,
/// refused, errors, indeterminate, children, lost, duplicated, unexpected}, "seed"}]}`.
[[nodiscard]] std::string to_json(std::string_view harness, std::span<const CheckReport> reports);

/// One line per check (id, result, counts, reason), then `N passed, N failed, N skipped`.
void print_table(std::ostream& out, std::span<const CheckReport> reports);

}  // namespace thm::conformance
