#pragma once
/// \file
/// What a host requires the suite to prove: a list of capabilities, from the environment
/// variable `THM_CONFORMANCE_REQUIRE` (the GoogleTest suite, `gtest.hpp`) or from
/// `thm conformance --require`. A skipped check reads as green in most test runners; naming
/// what a queue must prove turns the skips and part-passes that matter into failures.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance {

/// The names a requirement may use: the field names of the flags of `Capabilities`, in its
/// order (`hooks`, `row_locking`, …). Its `max_*` fields are limits, not capabilities.
[[nodiscard]] std::span<const std::string_view> capability_names() noexcept;

/// True when `capabilities` declares the flag called `name` (false for any other name).
[[nodiscard]] bool declares(const Capabilities& capabilities, std::string_view name) noexcept;

/// The capabilities a comma-separated `list` names, each once, in its order; none for an
/// empty or blank list. An unknown or empty name is an error whose message starts with
/// `source` (e.g. `THM_CONFORMANCE_REQUIRE`) and lists the known names.
[[nodiscard]] Result<std::vector<std::string>, std::string> parse_requirements(
    std::string_view list, std::string_view source);

/// The required capabilities `capabilities` does not declare, as `` `a`, `b` ``; empty when
/// it declares them all.
[[nodiscard]] std::string undeclared(const Capabilities& capabilities,
                                     const std::vector<std::string>& required);

/// Why `report` fails under the capabilities `required` although its verdict is not `fail`:
/// it was skipped, or passed only in part (`left_unproven`), for a reason that names one of
/// them as `` `name` ``, the way the checks name capabilities. The message names the check,
/// what happened, `source` and the reason. Nothing otherwise: a reason that names no
/// capability (EQ-17's "not implemented yet", EQ-04's trust in the reported index) stands.
[[nodiscard]] std::optional<std::string> unmet_requirement(
    const CheckRun& report, const std::vector<std::string>& required,
    std::string_view source = "THM_CONFORMANCE_REQUIRE");

}  // namespace thm::conformance
