#pragma once
/// \file
/// The linearizability checker over a check run's recorded calls (internal to the suite,
/// queue-conformance.md §9): the events of one stretch between resets become operations,
/// each bounded by the reads of the store's clock around it, and are judged per key.

#include <optional>
#include <string>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/linearizability.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::checking {

// What the checker found in a stretch whose calls are not linearizable: why, in words, and
// the failing key's events in the order they began.
struct Violation {
  std::string reason;
  std::vector<HistoryEvent> events;
};

// Judges `stretch`, the calls since a reset of a store that declares `capabilities`: nothing
// when they are linearizable, else the violation. Adds to `unjudged` the keys it could not
// judge.
[[nodiscard]] std::optional<Violation> judged(const std::vector<HistoryEvent>& stretch,
                                              const Capabilities& capabilities,
                                              std::size_t& unjudged);

}  // namespace thm::conformance::checking
