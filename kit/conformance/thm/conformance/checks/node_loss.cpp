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

// One node-loss check, from the cluster's first recovery to the last audit: its state and
// its steps, in the order `under_node_fault` takes them.
class FaultRun {
 public:
  FaultRun(Run& run, const NodeFault& fault) : run_(run), fault_(fault) {}

  // The cluster whole, the node to fail chosen, the keys and each caller's order of them.
  void prepare() {
    keys_ = run_.options.short_mode ? 60 : 120;
    callers_ = run_.racers(8, "the 8 callers");
    run_.fresh();
    run_.step("waiting for the cluster to take writes (Harness::recover)");
    run_.nodes().recover();
    const std::size_t count = run_.nodes().node_count();
    run_.require(count >= 2,
                 "node_count() is " + std::to_string(count) + ": a cluster has two at the least");
    const std::size_t leader = run_.nodes().leader();
    run_.require(leader < count,
                 "leader() named node " + std::to_string(leader) + " of " + std::to_string(count));
    node_ = node_under_fault(run_, fault_, count, leader);
    which_ = "node " + std::to_string(node_) + (fault_.leader ? ", the leader" : "");
    for (std::size_t k = 0; k < keys_; ++k) requests_.push_back(run_.trigger(k + 1));
    // Every caller takes the keys in blocks of 8 in key order, each block shuffled its own
    // way: callers race on the same few keys, and keys are admitted all through the run
    // rather than nearly all at its start (as 8 orders shuffled whole would admit them).
    blocks_ = (keys_ + kBlock - 1) / kBlock;
    orders_.assign(callers_, requests_);
    for (auto& order : orders_) {
      for (std::size_t block = 0; block < keys_; block += kBlock) {
        const auto first = order.begin() + static_cast<std::ptrdiff_t>(block);
        std::shuffle(first, first + static_cast<std::ptrdiff_t>(std::min(kBlock, keys_ - block)),
                     run_.random);
      }
    }
    run_.step("opening " + std::to_string(callers_) + " sessions");
    for (std::size_t c = 0; c < callers_; ++c) sessions_.push_back(run_.harness.open_session());
    answers_.resize(callers_);
  }

  // Each caller goes through its keys, replaying while it waits for the next block and
  // until the fault is healed, so that calls are in flight through all of it. The fault
  // comes once a quarter of the keys are admitted, so that most are still to be written
  // while it lasts.
  void race() {
    run_.step("waiting for " + std::to_string(callers_) + " callers enqueueing " +
              std::to_string(keys_) + " keys each while " + fault_.what + " (" + which_ + ")");
    detail::together(
        callers_, [this](std::size_t c) { call_as(c); },
        [this] {
          std::jthread releaser([this](const std::stop_token& stop) {
            while (released_.load() < blocks_ && !stop.stop_requested()) {
              std::this_thread::sleep_for(kReleaseEvery);
              released_.fetch_add(1);
            }
          });
          fault_and_heal();
          releaser.request_stop();
          released_.store(blocks_);
          healed_.store(true);
        });
    if (harness_failure_) std::rethrow_exception(harness_failure_);
  }

  // The store is audited before the answers are judged: a lost key is the finding that
  // matters most.
  void judge_answers() {
    read_answers();
    const std::uint64_t again = enqueued_again();
    // The outage a client saw: until the store took a write again, or (every key admitted
    // before that) until it answered.
    if (const auto end = writing_back_ ? writing_back_ : back_) {
      run_.counts.outage_ms = std::max<std::uint64_t>(
          run_.counts.outage_ms,
          static_cast<std::uint64_t>(
              std::chrono::duration_cast<std::chrono::milliseconds>(*end - faulted_).count()));
    }
    run_.counts.lost += again;
    run_.require(again == 0,
                 std::to_string(again) +
                     " key(s) answered Enqueued to a call that started after the key had been "
                     "admitted: the child the store acknowledged was lost with " +
                     which_ + ", and then made again");
    run_.audit();  // acknowledged keys all have a child, none has two, nothing unasked for
    run_.require(unclear_.empty(), unclear_);
    run_.require(back_.has_value(),
                 "no call was admitted after " + fault_.what + " (" + which_ + ")");
    if (!writing_back_) {
      run_.note("no key was first admitted by a call started after " + fault_.what +
                ": the fault met only replays, so whether writes survive it is left unproven");
    }
    if (leading_after_ == node_) {
      run_.note("node " + std::to_string(node_) +
                " led again after the pause: nothing replaced "
                "it meanwhile, so this showed a leader that stops and comes back, not a failover");
    }
  }

  // Every key no call admitted is tried again until the cluster says; after answers that
  // all said nothing was written, the retry must admit the key anew.
  void retry_unadmitted() {
    auto retrier = run_.harness.open_session();
    for (const auto& request : requests_) {
      const KeyHistory& key = history_[turn_key(request).encoded()];
      if (key.first_admitted) continue;
      Answer answer = no_answer();
      for (int attempt = 0; attempt < kRetries; ++attempt) {
        run_.step("retrying a key no call admitted during the fault");
        answer = call(*retrier, request);
        run_.tally(request, answer);
        if (answer || answer.error().kind != QueueErrorKind::Unavailable) break;
        run_.nodes().recover();
      }
      run_.require(is_admitted(answer), "a key no call admitted during the fault got " +
                                            describe(answer) + " on its retry");
      run_.require(key.maybe_written || is_enqueued(answer),
                   "every call of a key answered Unavailable (nothing was written), yet its "
                   "retry after the fault got " +
                       describe(answer));
    }
  }

  // The audit took in every answer before the retries: now each key has exactly one child,
  // and no other child exists.
  void check_children() {
    run_.step("reading the store's children after the retries (Harness::children)");
    std::map<std::string, std::size_t> children_per_key;
    const auto rows = run_.harness.children();
    for (const auto& child : rows) ++children_per_key[turn_key(child.request).encoded()];
    for (const auto& request : requests_) {
      const std::size_t n = children_per_key[turn_key(request).encoded()];
      run_.require(n == 1, "after the retries a key has " + std::to_string(n) + " child turns");
    }
    run_.require(rows.size() == keys_, "after the retries " + std::to_string(rows.size()) +
                                           " child turns exist for " + std::to_string(keys_) +
                                           " keys");
    run_.forget();  // the retries are counted, and judged here
  }

 private:
  // Caller `c`: its next key when the suite has let it at that key's block; meanwhile, and
  // once all are taken until the fault is healed, a replay of a key taken already (a steady
  // trickle of one a millisecond), so that a call is in flight at any moment.
  void call_as(std::size_t c) {
    std::size_t next = 0;
    for (std::size_t replay = 0; next < keys_ || !healed_.load(); ++replay) {
      std::size_t k = 0;
      if (next < keys_ && released_.load() > next / kBlock) {
        k = next++;
      } else if (next == 0) {
        std::this_thread::sleep_for(200us);
        continue;
      } else {
        std::this_thread::sleep_for(1ms);
        k = replay % next;
      }
      const Clock::time_point started = Clock::now();
      Answer answer = call(*sessions_[c], orders_[c][k]);
      if (is_enqueued(answer)) admitted_.fetch_add(1);
      answers_[c].emplace_back(k, Timed{std::move(answer), started, Clock::now()});
    }
  }

  // The fault, once a quarter of the keys are admitted (or every block is released, for a
  // store that admits none); then the node healed and the cluster recovered, even when the
  // fault went wrong, so that the checks after this one find the cluster whole.
  void fault_and_heal() {
    try {
      while (admitted_.load() < keys_ / 4 && released_.load() < blocks_) {
        std::this_thread::sleep_for(100us);
      }
      run_.step(fault_.what + " (" + which_ + ")");
      fault_.inject(run_.nodes(), node_);
      faulted_ = Clock::now();  // the node is down (or stopped) from here on
      ++run_.counts.faults;
      std::this_thread::sleep_for(fault_.window);
      if (fault_.recover_while_down) {
        run_.step("failing over with " + which_ + " down (Harness::recover)");
        run_.nodes().recover();
        run_.require(
            run_.nodes().leader() != node_,
            "after " + fault_.what + " (" + which_ + ") and recover(), leader() still names it");
      }
    } catch (...) {
      harness_failure_ = std::current_exception();
    }
    try {
      run_.step("healing " + which_);
      fault_.heal(run_.nodes(), node_);
      run_.step("waiting for the cluster to recover (Harness::recover)");
      run_.nodes().recover();
      if (fault_.expect_replacement) leading_after_ = run_.nodes().leader();
    } catch (...) {
      if (!harness_failure_) harness_failure_ = std::current_exception();
    }
    if (harness_failure_) {
      run_.step(
          "waiting for the callers to stop after a harness call of the fault failed "
          "(a caller blocked on a node that was not brought back never will)");
    }
  }

  // Every answer tallied, and what each key's calls told: whether it was admitted and
  // when, the first admission and the first `Enqueued` after the fault, and the first
  // answer that does not say whether a retry is safe.
  void read_answers() {
    for (std::size_t c = 0; c < callers_; ++c) {
      for (const auto& [k, timed] : answers_[c]) {
        const MentionTurnRequest& request = orders_[c][k];
        run_.tally(request, timed.answer);
        if (unclear_.empty() && !says_what_happened(timed.answer)) {
          unclear_ = "a call " + std::string(timed.at < faulted_ ? "before" : "after") + " " +
                     fault_.what + " got " + describe(timed.answer) +
                     ", which does not say whether a retry is safe";
        }
        KeyHistory& key = history_[turn_key(request).encoded()];
        key.maybe_written =
            key.maybe_written ||
            (!timed.answer && timed.answer.error().kind == QueueErrorKind::Indeterminate);
        if (!is_admitted(timed.answer)) continue;
        if (!key.first_admitted || timed.at < *key.first_admitted) key.first_admitted = timed.at;
        if (timed.started >= faulted_ && (!back_ || timed.at < *back_)) back_ = timed.at;
        if (timed.started >= faulted_ && is_enqueued(timed.answer) &&
            (!writing_back_ || timed.at < *writing_back_)) {
          writing_back_ = timed.at;
        }
      }
    }
  }

  // The keys answered Enqueued by a call that started after they were admitted.
  std::uint64_t enqueued_again() {
    std::uint64_t again = 0;
    for (std::size_t c = 0; c < callers_; ++c) {
      for (const auto& [k, timed] : answers_[c]) {
        KeyHistory& key = history_[turn_key(orders_[c][k]).encoded()];
        if (is_enqueued(timed.answer) && !key.enqueued_again &&
            timed.started > *key.first_admitted) {
          key.enqueued_again = true;
          ++again;
        }
      }
    }
    return again;
  }

  Run& run_;
  const NodeFault& fault_;
  std::size_t keys_ = 0;
  std::size_t callers_ = 0;
  std::size_t blocks_ = 0;
  std::size_t node_ = 0;
  std::string which_;
  std::vector<MentionTurnRequest> requests_;
  std::vector<std::vector<MentionTurnRequest>> orders_;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<std::vector<std::pair<std::size_t, Timed>>> answers_;
  std::atomic<std::size_t> admitted_{0};
  std::atomic<std::size_t> released_{1};  // blocks the callers may take
  std::atomic<bool> healed_{false};
  Clock::time_point faulted_{};
  std::optional<std::size_t> leading_after_;
  std::exception_ptr harness_failure_;
  std::map<std::string, KeyHistory> history_;
  std::optional<Clock::time_point> back_;          // the first admission after the fault
  std::optional<Clock::time_point> writing_back_;  // the first `Enqueued` after it
  std::string unclear_;  // the first answer that does not say whether a retry is safe
};

void under_node_fault(Run& run, const NodeFault& fault) {
  if (!run.capabilities.nodes) {
    throw Skipped{
        "needs a store on several nodes that the suite can fail (capability `nodes`), which "
        "the harness does not declare"};
  }
  FaultRun faulted(run, fault);
  faulted.prepare();
  faulted.race();
  faulted.judge_answers();
  faulted.retry_unadmitted();
  faulted.check_children();
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
