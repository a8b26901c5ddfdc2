#pragma once
/// \file
/// What every mutant test does (queue-conformance.md §7): run the checks listed against a
/// broken queue, print every report, and require each bold one to fail on its own and at
/// least one of them to fail. Shared by the in-memory, SQLite and PostgreSQL mutant tests.

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "thm/conformance/suite.hpp"

namespace thm::conformance::mutants {

/// A check §7 lists against a mutant; a `bold` one must fail on its own.
struct ListedCheck {
  std::string_view id{};
  bool bold = false;
};

/// One report on one line: verdict, seed, reason and every count.
inline std::string describe(const CheckRun& report) {
  const Counts& c = report.counts;
  return report.id + " " + std::string(name(report.verdict)) + " (seed " +
         std::to_string(report.seed) + "): " + report.reason +
         " [attempts=" + std::to_string(c.attempts) + " enqueued=" + std::to_string(c.enqueued) +
         " already=" + std::to_string(c.already) + " refused=" + std::to_string(c.refused) +
         " errors=" + std::to_string(c.errors) +
         " indeterminate=" + std::to_string(c.indeterminate) +
         " children=" + std::to_string(c.children) + " lost=" + std::to_string(c.lost) +
         " duplicated=" + std::to_string(c.duplicated) +
         " unexpected=" + std::to_string(c.unexpected) + "]";
}

/// Runs each of `checks` against `harness` with `options`, printing every report, and
/// records GoogleTest failures unless each bold check failed and at least one check did.
inline void expect_rejected(Harness& harness, const std::vector<ListedCheck>& checks,
                            const Options& options, std::string_view mutant) {
  bool caught = false;
  std::string observed;
  for (const ListedCheck& listed : checks) {
    const CheckRun report = run_check(listed.id, harness, options);
    std::cout << "[" << harness.queue_name() << "] " << describe(report) << "\n";
    observed += "\n  " + describe(report);
    caught = caught || report.verdict == Verdict::Fail;
    if (listed.bold) {
      EXPECT_EQ(report.verdict, Verdict::Fail)
          << listed.id << " must reject " << mutant << ": " << describe(report);
    }
  }
  EXPECT_TRUE(caught) << "no listed check rejects " << mutant << ":" << observed;
}

}  // namespace thm::conformance::mutants
