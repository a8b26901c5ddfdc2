#pragma once
// How EQ-19 judges the leases its concurrent claimers got on one child (queue-conformance.md
// §4: a child has at most one live lease). A claimer slower than the lease may get the child
// after the first lease expired, legitimately; what the store must never do is hand out a
// lease while another is live on its own clock.

#include <chrono>
#include <string>
#include <vector>

#include "thm/store/store.hpp"

namespace thm::conformance::detail {

/// Why `leases`, all of one child and each `duration` long, were not held one at a time on
/// the store's clock; empty when they were. A lease began at its expiry minus `duration` and
/// is live strictly before its expiry, so the next may begin at that instant.
[[nodiscard]] std::string overlapping_leases(std::vector<Lease> leases,
                                             std::chrono::milliseconds duration);

}  // namespace thm::conformance::detail
