#include "thm/conformance/checks/linearizable_history.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "thm/conformance/report_common.hpp"

namespace thm::conformance::checking {

using detail::shown_bytes;
namespace {

struct Read {
  std::uint64_t start_us;
  std::uint64_t end_us;
  std::int64_t store_ms;
};

// How far two readings of a real store clock may differ and be one instant: a store may
// round a lease's expiry one way and its clock another, and a store whose clients estimate
// its clock (the etcd store counts from a member's tick on each client's monotonic clock)
// reads it a little differently in each session. A clock the suite moves is exact. On a real
// clock the checker judges what is wrong by more than this; EQ-14 to EQ-32 judge the rest.
constexpr std::int64_t kRealClockSlackMs = 50;
std::int64_t slack_for(const Capabilities& capabilities) {
  return capabilities.injected_store_clock ? 0 : kRealClockSlackMs;
}

// The clock reads of `stretch`, and for each operation the latest value read before it
// began and the earliest read after it returned.
void bound(std::vector<Operation>& operations, const std::vector<Read>& reads) {
  std::vector<Read> by_end = reads;
  std::ranges::sort(by_end, {}, &Read::end_us);
  std::vector<std::int64_t> most_so_far(by_end.size());
  for (std::size_t i = 0; i < by_end.size(); ++i) {
    most_so_far[i] = std::max(by_end[i].store_ms, i == 0 ? by_end[i].store_ms : most_so_far[i - 1]);
  }
  std::vector<Read> by_start = reads;
  std::ranges::sort(by_start, {}, &Read::start_us);
  std::vector<std::int64_t> least_from(by_start.size());
  for (std::size_t i = by_start.size(); i-- > 0;) {
    least_from[i] = std::min(by_start[i].store_ms,
                             i + 1 == by_start.size() ? by_start[i].store_ms : least_from[i + 1]);
  }
  for (Operation& op : operations) {
    const auto before = std::ranges::lower_bound(by_end, op.invoke, {}, &Read::end_us);
    if (before != by_end.begin()) {
      op.store_at_least_ms = most_so_far[static_cast<std::size_t>(before - by_end.begin()) - 1];
    }
    if (op.answer == Operation::Answer::Unknown) continue;
    const auto after = std::ranges::upper_bound(by_start, op.complete, {}, &Read::start_us);
    if (after != by_start.end()) {
      op.store_at_most_ms = least_from[static_cast<std::size_t>(after - by_start.begin())];
    }
  }
}

// The operations of `stretch` (events with an operation), each bounded by the reads of the
// store's clock (`store_now` events) that returned before it began and began after it
// returned, with the index of its event.
std::vector<Operation> operations_of(const std::vector<HistoryEvent>& stretch,
                                     std::vector<std::size_t>& events) {
  std::vector<Operation> operations;
  std::vector<Read> reads;
  events.clear();
  for (std::size_t i = 0; i < stretch.size(); ++i) {
    const HistoryEvent& e = stretch[i];
    if (e.store_time_ms) reads.push_back({e.start_us, e.end_us, *e.store_time_ms});
    if (!e.operation) continue;
    operations.push_back(*e.operation);
    events.push_back(i);
  }
  bound(operations, reads);
  return operations;
}

}  // namespace

std::optional<Violation> judged(const std::vector<HistoryEvent>& stretch,
                                const Capabilities& capabilities, std::size_t& unjudged) {
  std::vector<std::size_t> events;
  const std::vector<Operation> operations = operations_of(stretch, events);
  const LinearizabilityResult result = check_linearizability(
      operations,
      {.max_attempts = capabilities.max_attempts, .clock_slack_ms = slack_for(capabilities)});
  unjudged += result.unjudged;
  if (result.verdict == LinearizabilityResult::Verdict::Linearizable) return std::nullopt;
  Violation violation;
  for (const std::size_t i : result.operations) violation.events.push_back(stretch[events[i]]);
  std::ranges::stable_sort(violation.events, {}, &HistoryEvent::start_us);
  const HistoryEvent& stuck = stretch[events[result.culprit]];
  violation.reason =
      "the calls on key " + shown_bytes(result.key) + " are not linearizable: no order of its " +
      std::to_string(result.operations.size()) +
      " calls, each taking effect between its call and its return, gives every answer they "
      "got (the longest order took " +
      std::to_string(result.longest) + " of them, and could not place " + stuck.what +
      (stuck.subject.empty() ? "" : " " + stuck.subject) + " answered " + stuck.answer +
      (stuck.lane ? " on session " + std::to_string(*stuck.lane) : "") + ", which returned at " +
      std::to_string(stuck.end_us) + " us)";
  return violation;
}

}  // namespace thm::conformance::checking
