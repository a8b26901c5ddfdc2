#include "thm/conformance/checks/lease_judgement.hpp"

#include <algorithm>

namespace thm::conformance::detail {

std::string overlapping_leases(std::vector<Lease> leases, std::chrono::milliseconds duration) {
  std::sort(leases.begin(), leases.end(),
            [](const Lease& a, const Lease& b) { return a.expires_at < b.expires_at; });
  for (std::size_t i = 1; i < leases.size(); ++i) {
    const Lease& held = leases[i - 1];
    const Lease& next = leases[i];
    const auto began = next.expires_at - duration;
    if (began < held.expires_at) {
      return "attempt " + std::to_string(next.attempt) + " began at " +
             std::to_string(began.time_since_epoch().count()) +
             " ms of store time, while attempt " + std::to_string(held.attempt) +
             " held the child until " + std::to_string(held.expires_at.time_since_epoch().count());
    }
  }
  return "";
}

}  // namespace thm::conformance::detail
