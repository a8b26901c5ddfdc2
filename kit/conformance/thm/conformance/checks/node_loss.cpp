// G. node loss (EQ-28…EQ-30): EQ-07's many keys and callers while the suite fails one node
// of a store that runs on several, then Jepsen's counts once the cluster has recovered and
// every unsettled key has been retried. Each is a plain function over a `Run`; checks.cpp
// lists them and runs them.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "thm/conformance/checks/bodies.hpp"
#include "thm/conformance/checks/run.hpp"
#include "thm/conformance/model_check.hpp"

namespace thm::conformance::checking {
namespace {

using Clock = std::chrono::steady_clock;

// How long a killed node stays down, and a paused leader stopped when the harness names no
// election timeout.
constexpr auto kFaultWindow = 1s;
// How often an unsettled key is tried again after the cluster recovered.
constexpr int kRetries = 5;
// The callers' orders are shuffled in blocks of this many keys, and the suite lets the
// callers at one more block every kReleaseEvery: keys are then written all through the run,
// the fault included, at a pace of the suite's rather than of the store's (a fast store
// would otherwise have admitted every key before the fault script had even run).
constexpr std::size_t kBlock = 8;
constexpr auto kReleaseEvery = 50ms;

// One node fault: which node, what is done to it, and how it is healed.
struct NodeFault {
  std::string what;  // e.g. "killing the leader", for steps and reasons
  bool leader = true;
  std::function<void(NodeFaults&, std::size_t)> inject;
  std::function<void(NodeFaults&, std::size_t)> heal;
  // Fail over while the node is still down (the host's failover replaces a dead primary).
  bool recover_while_down = false;
  std::chrono::milliseconds window = kFaultWindow;
  // The cluster should have replaced the node meanwhile (a paused leader); a note says so
  // when the same node leads again afterwards.
  bool expect_replacement = false;
};

// An answer a call may get while a node fails: an admission, a refusal, or an error whose
// kind says whether a retry is safe (`Unavailable`: nothing was written; `Indeterminate`:
// retry to learn).
bool says_what_happened(const Answer& answer) {
  if (answer) return true;
  const QueueErrorKind kind = answer.error().kind;
  return kind == QueueErrorKind::Unavailable || kind == QueueErrorKind::Indeterminate;
}

bool is_admitted(const Answer& answer) { return is_enqueued(answer) || is_already(answer); }

struct Timed {
  Answer answer;
  Clock::time_point started;
  Clock::time_point at;  // when it answered
};

// What the calls of one key have told.
struct KeyHistory {
  bool maybe_written = false;  // an Indeterminate answer: the step may have committed
  std::optional<Clock::time_point> first_admitted;  // set once any call admitted the key
  // An `Enqueued` answer to a call that started after the key was admitted: the store had
  // no child for it any more, so the one it had acknowledged was lost (and then made again).
  bool enqueued_again = false;
};

std::size_t node_under_fault(Run& run, const NodeFault& fault, std::size_t count,
                             std::size_t leader) {
  if (fault.leader) return leader;
  return (leader + 1 + static_cast<std::size_t>(run.random() % (count - 1))) % count;
}

void under_node_fault(Run& run, const NodeFault& fault) {
  if (!run.capabilities.nodes) {
    throw Skipped{
        "needs a store on several nodes that the suite can fail (capability `nodes`), which "
        "the harness does not declare"};
  }
  const std::size_t keys = run.options.short_mode ? 60 : 120;
  const std::size_t callers = run.racers(8, "the 8 callers");
  run.fresh();
  run.step("waiting for the cluster to take writes (Harness::recover)");
  run.nodes().recover();
  const std::size_t count = run.nodes().node_count();
  run.require(count >= 2,
              "node_count() is " + std::to_string(count) + ": a cluster has two at the least");
  const std::size_t leader = run.nodes().leader();
  run.require(leader < count,
              "leader() named node " + std::to_string(leader) + " of " + std::to_string(count));
  const std::size_t node = node_under_fault(run, fault, count, leader);
  const std::string which = "node " + std::to_string(node) + (fault.leader ? ", the leader" : "");

  std::vector<MentionTurnRequest> requests;
  for (std::size_t k = 0; k < keys; ++k) requests.push_back(run.trigger(k + 1));
  // Every caller takes the keys in blocks of 8 in key order, each block shuffled its own
  // way: callers race on the same few keys, and keys are admitted all through the run
  // rather than nearly all at its start (as 8 orders shuffled whole would admit them).
  const std::size_t blocks = (keys + kBlock - 1) / kBlock;
  std::vector<std::vector<MentionTurnRequest>> orders(callers, requests);
  for (auto& order : orders) {
    for (std::size_t block = 0; block < keys; block += kBlock) {
      const auto first = order.begin() + static_cast<std::ptrdiff_t>(block);
      std::shuffle(first, first + static_cast<std::ptrdiff_t>(std::min(kBlock, keys - block)),
                   run.random);
    }
  }
  std::vector<std::unique_ptr<Session>> sessions;
  run.step("opening " + std::to_string(callers) + " sessions");
  for (std::size_t c = 0; c < callers; ++c) sessions.push_back(run.harness.open_session());

  // Each caller goes through its keys, replaying while it waits for the next block and
  // until the fault is healed, so that calls are in flight through all of it. The fault
  // comes once a quarter of the keys are admitted, so that most are still to be written
  // while it lasts.
  std::vector<std::vector<std::pair<std::size_t, Timed>>> answers(callers);
  std::atomic<std::size_t> admitted{0};
  std::atomic<std::size_t> released{1};  // blocks the callers may take
  std::atomic<bool> healed{false};
  Clock::time_point faulted{};
  std::optional<std::size_t> leading_after;
  std::exception_ptr harness_failure;
  run.step("waiting for " + std::to_string(callers) + " callers enqueueing " +
           std::to_string(keys) + " keys each while " + fault.what + " (" + which + ")");
  detail::together(
      callers,
      [&](std::size_t c) {
        // Its next key when the suite has let it at that key's block; meanwhile, and once
        // all are taken until the fault is healed, a replay of a key taken already (a
        // steady trickle of one a millisecond), so that a call is in flight at any moment.
        std::size_t next = 0;
        for (std::size_t replay = 0; next < keys || !healed.load(); ++replay) {
          std::size_t k = 0;
          if (next < keys && released.load() > next / kBlock) {
            k = next++;
          } else if (next == 0) {
            std::this_thread::sleep_for(200us);
            continue;
          } else {
            std::this_thread::sleep_for(1ms);
            k = replay % next;
          }
          const Clock::time_point started = Clock::now();
          Answer answer = call(*sessions[c], orders[c][k]);
          if (is_enqueued(answer)) admitted.fetch_add(1);
          answers[c].emplace_back(k, Timed{std::move(answer), started, Clock::now()});
        }
      },
      [&] {
        std::jthread releaser([&](std::stop_token stop) {
          while (released.load() < blocks && !stop.stop_requested()) {
            std::this_thread::sleep_for(kReleaseEvery);
            released.fetch_add(1);
          }
        });
        // The node is healed and the cluster recovered even when the fault went wrong, so
        // that the checks after this one find the cluster whole.
        try {
          // (or once every block is released, for a store that admits none)
          while (admitted.load() < keys / 4 && released.load() < blocks) {
            std::this_thread::sleep_for(100us);
          }
          run.step(fault.what + " (" + which + ")");
          fault.inject(run.nodes(), node);
          faulted = Clock::now();  // the node is down (or stopped) from here on
          ++run.counts.faults;
          std::this_thread::sleep_for(fault.window);
          if (fault.recover_while_down) {
            run.step("failing over with " + which + " down (Harness::recover)");
            run.nodes().recover();
            const std::size_t now_leading = run.nodes().leader();
            run.require(now_leading != node, "after " + fault.what + " (" + which +
                                                 ") and recover(), leader() still names it");
          }
        } catch (...) {
          harness_failure = std::current_exception();
        }
        try {
          run.step("healing " + which);
          fault.heal(run.nodes(), node);
          run.step("waiting for the cluster to recover (Harness::recover)");
          run.nodes().recover();
          if (fault.expect_replacement) leading_after = run.nodes().leader();
        } catch (...) {
          if (!harness_failure) harness_failure = std::current_exception();
        }
        if (harness_failure) {
          run.step(
              "waiting for the callers to stop after a harness call of the fault failed "
              "(a caller blocked on a node that was not brought back never will)");
        }
        releaser.request_stop();
        released.store(blocks);
        healed.store(true);
      });
  if (harness_failure) std::rethrow_exception(harness_failure);

  // The store is audited before the answers are judged: a lost key is the finding that
  // matters most.
  std::map<std::string, KeyHistory> history;
  std::optional<Clock::time_point> back;          // the first admission after the fault
  std::optional<Clock::time_point> writing_back;  // the first `Enqueued` after it
  std::string unclear;  // the first answer that does not say whether a retry is safe
  for (std::size_t c = 0; c < callers; ++c) {
    for (const auto& [k, timed] : answers[c]) {
      const MentionTurnRequest& request = orders[c][k];
      run.tally(request, timed.answer);
      if (unclear.empty() && !says_what_happened(timed.answer)) {
        unclear = "a call " + std::string(timed.at < faulted ? "before" : "after") + " " +
                  fault.what + " got " + describe(timed.answer) +
                  ", which does not say whether a retry is safe";
      }
      KeyHistory& key = history[turn_key(request).encoded()];
      key.maybe_written = key.maybe_written || (!timed.answer && timed.answer.error().kind ==
                                                                     QueueErrorKind::Indeterminate);
      if (is_admitted(timed.answer)) {
        if (!key.first_admitted || timed.at < *key.first_admitted) key.first_admitted = timed.at;
        if (timed.started >= faulted && (!back || timed.at < *back)) back = timed.at;
        if (timed.started >= faulted && is_enqueued(timed.answer) &&
            (!writing_back || timed.at < *writing_back)) {
          writing_back = timed.at;
        }
      }
    }
  }
  std::uint64_t enqueued_again = 0;
  for (std::size_t c = 0; c < callers; ++c) {
    for (const auto& [k, timed] : answers[c]) {
      KeyHistory& key = history[turn_key(orders[c][k]).encoded()];
      if (is_enqueued(timed.answer) && !key.enqueued_again && timed.started > *key.first_admitted) {
        key.enqueued_again = true;
        ++enqueued_again;
      }
    }
  }
  // The outage a client saw: until the store took a write again, or (every key admitted
  // before that) until it answered.
  if (const auto end = writing_back ? writing_back : back) {
    run.counts.outage_ms = std::max<std::uint64_t>(
        run.counts.outage_ms,
        static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(*end - faulted).count()));
  }
  run.counts.lost += enqueued_again;
  run.require(enqueued_again == 0,
              std::to_string(enqueued_again) +
                  " key(s) answered Enqueued to a call that started after the key had been "
                  "admitted: the child the store acknowledged was lost with " +
                  which + ", and then made again");
  run.audit();  // acknowledged keys all have a child, none has two, nothing unasked for
  run.require(unclear.empty(), unclear);
  run.require(back.has_value(), "no call was admitted after " + fault.what + " (" + which + ")");
  if (!writing_back) {
    run.note("no key was first admitted by a call started after " + fault.what +
             ": the fault met only replays, so whether writes survive it is left unproven");
  }
  if (leading_after == node) {
    run.note("node " + std::to_string(node) +
             " led again after the pause: nothing replaced "
             "it meanwhile, so this showed a leader that stops and comes back, not a failover");
  }

  // Every key no call admitted is tried again until the cluster says; after answers that
  // all said nothing was written, the retry must admit the key anew.
  auto retrier = run.harness.open_session();
  for (const auto& request : requests) {
    const KeyHistory& key = history[turn_key(request).encoded()];
    if (key.first_admitted) continue;
    Answer answer = no_answer();
    for (int attempt = 0; attempt < kRetries; ++attempt) {
      run.step("retrying a key no call admitted during the fault");
      answer = call(*retrier, request);
      run.tally(request, answer);
      if (answer || answer.error().kind != QueueErrorKind::Unavailable) break;
      run.nodes().recover();
    }
    run.require(is_admitted(answer), "a key no call admitted during the fault got " +
                                         describe(answer) + " on its retry");
    run.require(key.maybe_written || is_enqueued(answer),
                "every call of a key answered Unavailable (nothing was written), yet its retry "
                "after the fault got " +
                    describe(answer));
  }
  // The audit above took in every answer before the retries: now each key has exactly one
  // child, and no other child exists.
  run.step("reading the store's children after the retries (Harness::children)");
  std::map<std::string, std::size_t> children_per_key;
  const auto rows = run.harness.children();
  for (const auto& child : rows) ++children_per_key[turn_key(child.request).encoded()];
  for (const auto& request : requests) {
    const std::size_t n = children_per_key[turn_key(request).encoded()];
    run.require(n == 1, "after the retries a key has " + std::to_string(n) + " child turns");
  }
  run.require(rows.size() == keys, "after the retries " + std::to_string(rows.size()) +
                                       " child turns exist for " + std::to_string(keys) + " keys");
  run.forget();  // the retries are counted, and judged here
}

}  // namespace

void eq28_leader_killed(Run& run) {
  under_node_fault(run, {.what = "killing the leader",
                         .leader = true,
                         .inject = [](NodeFaults& nodes, std::size_t n) { nodes.kill_node(n); },
                         .heal = [](NodeFaults& nodes, std::size_t n) { nodes.restart_node(n); },
                         .recover_while_down = true});
}

void eq29_follower_killed(Run& run) {
  under_node_fault(run, {.what = "killing a follower",
                         .leader = false,
                         .inject = [](NodeFaults& nodes, std::size_t n) { nodes.kill_node(n); },
                         .heal = [](NodeFaults& nodes, std::size_t n) { nodes.restart_node(n); }});
}

void eq30_leader_paused(Run& run) {
  const auto timeout = run.capabilities.election_timeout;
  if (run.capabilities.nodes && !timeout) {
    run.note(
        "the harness names no `election_timeout`, so the leader was paused for 1 s, which may "
        "be too short for its cluster to replace it");
  }
  under_node_fault(run, {.what = "pausing the leader",
                         .leader = true,
                         .inject = [](NodeFaults& nodes, std::size_t n) { nodes.pause_node(n); },
                         .heal = [](NodeFaults& nodes, std::size_t n) { nodes.resume_node(n); },
                         .window = timeout ? 2 * *timeout : std::chrono::milliseconds(kFaultWindow),
                         .expect_replacement = true});
}

}  // namespace thm::conformance::checking
