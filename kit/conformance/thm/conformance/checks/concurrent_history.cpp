// The checks of queue-conformance.md §6, part F: EQ-35, concurrent calls judged only by the
// linearizability checker (§9) over their recorded history. checks.cpp lists it and runs it;
// the verdict on its history is `run_check`'s, as for every check.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "thm/conformance/checks/bodies.hpp"
#include "thm/conformance/checks/run.hpp"

namespace thm::conformance::checking {

namespace {

// One session's part of the workload: its own random stream, the leases it holds, and the
// answers to its enqueues (tallied once the threads are joined).
struct Worker {
  std::unique_ptr<Session> session;
  std::mt19937_64 random;
  std::vector<Lease> held{};
  std::vector<std::pair<MentionTurnRequest, Answer>> answers{};
};

// Runs `use` and forgets what it answers or throws: the recording keeps the call, and the
// checker judges it.
template <class Use>
void judged_later(Use&& use) {
  try {
    (void)use();
  } catch (...) {
  }
}

// One call of `worker`'s: mostly enqueues of the keys, and with `leases` claims, renewals,
// completions and fails of the leases it holds.
void one_call(Worker& worker, const std::vector<MentionTurnRequest>& requests, bool leases,
              std::chrono::milliseconds lease) {
  const auto dice = worker.random() % 10;
  if (!leases || dice < 5) {
    const auto& request = requests[worker.random() % requests.size()];
    worker.answers.emplace_back(request, call(*worker.session, request));
    return;
  }
  if (dice < 7 || worker.held.empty()) {
    judged_later([&] {
      auto claimed = worker.session->claim(lease);
      if (claimed && *claimed) worker.held.push_back(**claimed);
      return claimed;
    });
    return;
  }
  const std::size_t which = worker.random() % worker.held.size();
  const std::string token = worker.held[which].token;
  if (dice == 9) {
    judged_later([&] { return worker.session->renew(token, lease); });
    return;
  }
  worker.held.erase(worker.held.begin() + static_cast<std::ptrdiff_t>(which));
  if (dice == 7) {
    judged_later([&] { return worker.session->complete(token); });
  } else {
    judged_later([&] { return worker.session->fail(token); });
  }
}

// Across two sessions, in turn: a claim that finds nothing, an enqueue on the other session,
// a claim again. The second claim began after the enqueue returned, so it must lease the
// child (a session that keeps reading the store as it was at its first claim does not).
void claim_after_another_sessions_enqueue(Run& run, const MentionTurnRequest& request,
                                          std::chrono::milliseconds lease) {
  auto worker = run.harness.open_session();
  auto other = run.harness.open_session();
  judged_later([&] { return worker->claim(lease); });
  run.step("waiting for an enqueue on another session's thread");
  Call enqueue(*other, request);  // on a thread of its own, as another host process would
  run.tally(request, enqueue.answer());
  judged_later([&] { return worker->claim(lease); });
}

}  // namespace

// Sessions enqueue, claim, renew, complete and fail at once over a few keys, with no pause
// between calls; with `injected_store_clock` the suite moves the store's clock meanwhile, so
// leases expire. Nothing is asserted call by call: the recorded history must be linearizable
// (§9), and the audit must find nothing lost or duplicated. Counts alone pass a queue whose
// answers no order in real time explains (M27).
void eq35_concurrent_calls_linearizable(Run& run) {
  const bool leases = run.capabilities.leases;
  const auto lease = run.capabilities.injected_store_clock ? std::chrono::milliseconds(30s)
                                                           : std::chrono::milliseconds(300ms);
  const std::size_t sessions = run.racers(4, "the 4 sessions");
  const std::size_t calls = run.options.short_mode ? 40 : 200;
  if (!leases) run.note("enqueues only: the harness declares no `leases`");
  run.fresh();
  std::vector<MentionTurnRequest> requests;
  for (Sequence k = 1; k <= 8; ++k) requests.push_back(run.trigger(k));
  if (leases) claim_after_another_sessions_enqueue(run, requests[0], lease);
  std::vector<Worker> workers;
  for (std::size_t i = 0; i < sessions; ++i) {
    workers.push_back(
        {.session = run.harness.open_session(), .random = std::mt19937_64(run.random())});
  }
  std::atomic<std::size_t> running{sessions};
  run.step("waiting for " + std::to_string(sessions) + " sessions making " + std::to_string(calls) +
           " calls each at once");
  detail::together(
      sessions,
      [&](std::size_t i) {
        for (std::size_t n = 0; n < calls; ++n) one_call(workers[i], requests, leases, lease);
        running.fetch_sub(1);
      },
      [&] {
        if (!leases || !run.capabilities.injected_store_clock) return;
        while (running.load() > 0) {
          run.clocks().advance_store_clock(lease / 3);
          std::this_thread::sleep_for(1ms);
        }
      });
  for (const Worker& worker : workers) {
    for (const auto& [request, answer] : worker.answers) run.tally(request, answer);
  }
}

}  // namespace thm::conformance::checking
