#pragma once
/// \file
/// What every check of the suite is written with (internal to the suite): the `Run` a
/// check drives its harness through, failing with `Run::require` (which throws `Failed` up
/// to `run_check`) or skipping with `Skipped`; callers paused at hook points (`Gate`,
/// `Call`, `Background`), and the standard requests and answers of the checks.

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "thm/conformance/model_check.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::conformance::detail {
// Answers and steps in this process, by any check (checks.cpp): the watchdog's sign of
// progress.
extern std::atomic<std::uint64_t> g_progress;
}  // namespace thm::conformance::detail

namespace thm::conformance::checking {

using namespace std::chrono_literals;
using Answer = Result<EnqueueOutcome, QueueError>;

struct Failed {
  std::string reason;
};
struct Skipped {
  std::string reason;
};

// How long a check waits for something that must happen (a caller reaching a hook point).
constexpr auto kPatience = 10s;

const std::string kSource = "alice";
const std::string kTarget = "bob";
const DispatchConversation kDesk{.desk_id = "eng", .thread_root = std::nullopt};

inline Answer no_answer() { return unexpected{QueueError{QueueErrorKind::Internal, "no answer"}}; }

// ---- the watchdog (Options::stall) --------------------------------------------------------

// What the running check is doing, for its watchdog: the step it began last, and a count of
// steps begun. One per `run_check`, reached by the check's `Run` through `t_watch`.
class Watch {
 public:
  void step(std::string what) {
    const std::scoped_lock lock(mutex_);
    doing_ = std::move(what);
    ++steps_;
  }
  // The step, and a number that grows whenever the check makes progress.
  std::pair<std::string, std::uint64_t> progress() {
    const std::scoped_lock lock(mutex_);
    return {doing_, steps_ + detail::g_progress.load()};
  }

 private:
  std::mutex mutex_;
  std::string doing_ = "starting";
  std::uint64_t steps_ = 0;
};
inline thread_local Watch* t_watch = nullptr;

using detail::call;

inline bool is(const Answer& answer, const EnqueueOutcome& outcome) {
  return answer && *answer == outcome;
}
inline bool is_enqueued(const Answer& answer) { return is(answer, Enqueued{}); }
inline bool is_already(const Answer& answer) { return is(answer, Already{}); }

inline std::string describe(const Answer& answer) {
  if (!answer)
    return "error " + std::string(name(answer.error().kind)) + " (" + answer.error().message + ")";
  return std::visit(
      overloaded{[](const Enqueued&) { return std::string("Enqueued"); },
                 [](const Already&) { return std::string("Already"); },
                 [](const Refused& r) { return "Refused{" + std::string(name(r.reason)) + "}"; }},
      *answer);
}

inline MentionTurnRequest request_for(const CommittedReply& reply,
                                      const std::string& target = kTarget) {
  return {.key = {reply.sequence},
          .source_id = reply.author_id,
          .target_id = target,
          .content = reply.content,
          .conversation = reply.conversation,
          .child_hop = reply.hop + 1};
}

// A point in a hook where the first caller to arrive stops until released, then goes on
// (or fails there). Later callers pass straight through.
class Gate {
 public:
  Gate(HookPoint point, bool fail_after) : point_(point), fail_after_(fail_after) {}

  TransactionHook hook(std::shared_ptr<Gate> self) {
    return [self = std::move(self)](HookPoint at, const MentionTurnRequest&) {
      if (at != self->point_ || self->taken_.exchange(true)) return true;
      std::unique_lock lock(self->mutex_);
      self->reached_ = true;
      self->changed_.notify_all();
      self->changed_.wait(lock, [&] { return self->released_; });
      return !self->fail_after_;
    };
  }
  bool wait_reached() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kPatience, [&] { return reached_; });
  }
  void release() {
    const std::scoped_lock lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  const HookPoint point_;
  const bool fail_after_;
  std::atomic<bool> taken_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  bool reached_ = false;
  bool released_ = false;
};

// Releases a gate when it goes out of scope; declare it after the threads the gate holds,
// so it is destroyed (released) before they are joined.
struct ReleaseOnExit {
  std::shared_ptr<Gate> gate;
  ~ReleaseOnExit() { gate->release(); }
};

// A harness action on its own thread (a revocation, an edit) that may rightly wait for an
// open step. `finish` joins it and rethrows what it threw, so the check fails with it.
class Background {
 public:
  explicit Background(std::function<void()> action) {
    thread_ = std::jthread([this, action = std::move(action)] {
      std::exception_ptr failure;
      try {
        action();
      } catch (...) {
        failure = std::current_exception();
      }
      const std::scoped_lock lock(mutex_);
      failure_ = failure;
      done_ = true;
      changed_.notify_all();
    });
  }
  bool done_within(std::chrono::milliseconds bound) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, bound, [&] { return done_; });
  }
  void finish() {
    thread_.join();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool done_ = false;
  std::exception_ptr failure_;
  std::jthread thread_;
};

// A call on its own thread whose answer can be awaited with a bound.
class Call {
 public:
  Call(Session& session, MentionTurnRequest request) {
    thread_ = std::jthread([this, &session, request = std::move(request)] {
      Answer answer = call(session, request);
      const std::scoped_lock lock(mutex_);
      answer_ = std::move(answer);
      done_.notify_all();
    });
  }
  // The answer if it arrives within `bound`.
  std::optional<Answer> answer_within(std::chrono::milliseconds bound) {
    std::unique_lock lock(mutex_);
    done_.wait_for(lock, bound, [&] { return answer_.has_value(); });
    return answer_;
  }
  Answer answer() {
    thread_.join();
    return *answer_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::optional<Answer> answer_;
  std::jthread thread_;
};

// What one check run has seen: the answers per key (by the canonical `TurnKey`), the counts,
// and the helpers every check uses.
class Run {
 public:
  Run(Harness& under_test, const Options& knobs, std::uint64_t seed)
      : harness(under_test),
        options(knobs),
        capabilities(under_test.capabilities()),
        random(seed) {}

  // Names what the check does next, for the watchdog's message (Options::stall).
  void step(std::string what) const {
    if (watch_ != nullptr) watch_->step(std::move(what));
  }

  Harness& harness;
  const Options& options;
  const Capabilities capabilities;
  std::mt19937_64 random;
  Counts counts{};

  void require(bool condition, const std::string& reason) const {
    if (!condition) throw Failed{reason};
  }
  // The harness's facets; `Unsupported` when it has none, as a member of it would throw.
  [[nodiscard]] Durability& durability() const {
    return conformance::require(harness.durability(), "durability (reopen, enqueue_then_kill)");
  }
  [[nodiscard]] NodeFaults& nodes() const {
    return conformance::require(harness.nodes(), "nodes (node_count, leader, kill_node, ...)");
  }
  [[nodiscard]] Clocks& clocks() const {
    return conformance::require(harness.clocks(), "clocks (store_now, advance_store_clock)");
  }
  void need_hooks() const {
    if (!capabilities.hooks)
      throw Skipped{"needs hook points (capability `hooks`), which the harness does not declare"};
  }

  // A clean store with dispatch enabled and the fixture's target available. Audits what the
  // previous part of the check left first.
  void fresh() {
    if (!answers_.empty()) audit();
    session_.reset();  // sessions do not outlive a reset
    step("resetting the store (Harness::reset)");
    harness.reset();
    harness.set_policy({.enabled = true, .max_hops = 1000});
    harness.set_available(kTarget, true);
  }

  // Commits a reply by the fixture's source and returns the request that matches it.
  MentionTurnRequest trigger(Sequence sequence, DispatchConversation conversation = kDesk,
                             std::string content = {}) {
    if (content.empty()) content = "@bob please take step " + std::to_string(sequence);
    const CommittedReply reply{.conversation = std::move(conversation),
                               .sequence = sequence,
                               .author_id = kSource,
                               .content = std::move(content),
                               .hop = 0};
    step("committing a reply (Harness::commit_reply)");
    harness.commit_reply(reply);
    return request_for(reply);
  }

  Answer enqueue(Session& session, const MentionTurnRequest& request) {
    step("waiting for enqueue_once to answer");
    Answer answer = call(session, request);
    tally(request, answer);
    return answer;
  }
  Answer enqueue(const MentionTurnRequest& request) { return enqueue(session(), request); }

  // Records an answer that arrived on another thread.
  void tally(const MentionTurnRequest& request, const Answer& answer) {
    Seen& seen = answers_[turn_key(request).encoded()];
    ++counts.attempts;
    if (!answer) {
      const bool indeterminate = answer.error().kind == QueueErrorKind::Indeterminate;
      ++(indeterminate ? counts.indeterminate : counts.errors);
      ++(indeterminate ? seen.indeterminate : seen.errors);
    } else if (is_enqueued(answer)) {
      ++counts.enqueued;
      ++seen.enqueued;
    } else if (is_already(answer)) {
      ++counts.already;
      ++seen.already;
    } else {
      ++counts.refused;
    }
  }

  // Each of `requests` on its own session and thread, all released together by a spin
  // barrier; the answers in the same order.
  std::vector<Answer> race(const std::vector<MentionTurnRequest>& requests) {
    step("opening " + std::to_string(requests.size()) + " sessions for a race");
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < requests.size(); ++i) sessions.push_back(harness.open_session());
    std::vector<Answer> answers(requests.size(), no_answer());
    step("waiting for " + std::to_string(requests.size()) +
         " enqueue_once calls racing on sessions of their own");
    detail::together(requests.size(),
                     [&](std::size_t i) { answers[i] = call(*sessions[i], requests[i]); });
    for (std::size_t i = 0; i < requests.size(); ++i) tally(requests[i], answers[i]);
    return answers;
  }

  // The children whose request has the same canonical key as `request`.
  std::vector<ChildTurn> children_of(const MentionTurnRequest& request) {
    step("reading the store's children (Harness::children)");
    const TurnKey key = turn_key(request);
    std::vector<ChildTurn> out;
    for (auto& child : harness.children()) {
      if (turn_key(child.request) == key) out.push_back(std::move(child));
    }
    return out;
  }

  void require_nothing_written(const std::string& after) {
    step("reading the store's records and children");
    require(harness.records().empty(), "an idempotency record exists after " + after);
    require(harness.children().empty(), "a child turn exists after " + after);
  }

  // Compares the store with every answer since the last `fresh` (Jepsen's total-queue
  // accounting, duplicates counted as failures) and adds the findings to the counts; fails
  // on any finding unless `enforce` is false (a check that failed already only counts).
  void audit(bool enforce = true) {
    std::map<std::string, std::uint64_t> children_per_key;
    step("reading the store's children for the audit (Harness::children)");
    const auto rows = harness.children();
    counts.children += rows.size();
    for (const auto& child : rows) ++children_per_key[turn_key(child.request).encoded()];
    std::uint64_t lost = 0;
    std::uint64_t duplicated = 0;
    std::uint64_t unexpected_children = 0;
    for (const auto& [key, seen] : answers_) {
      const std::uint64_t n = children_per_key.contains(key) ? children_per_key[key] : 0;
      if (seen.enqueued + seen.already > 0 && n == 0) ++lost;
      if (n > 1 || seen.enqueued > 1) ++duplicated;
    }
    for (const auto& [key, n] : children_per_key) {
      const auto seen = answers_.find(key);
      if (seen == answers_.end() ||
          seen->second.enqueued + seen->second.already + seen->second.indeterminate == 0) {
        unexpected_children += n;
      }
    }
    answers_.clear();
    counts.lost += lost;
    counts.duplicated += duplicated;
    counts.unexpected += unexpected_children;
    if (!enforce) return;
    require(lost == 0,
            std::to_string(lost) + " key(s) answered Enqueued or Already have no child turn");
    require(duplicated == 0,
            std::to_string(duplicated) + " key(s) have more than one child or Enqueued answer");
    require(unexpected_children == 0,
            std::to_string(unexpected_children) + " child turn(s) exist for keys no call admitted");
  }

  // How many sessions a race meant for `wanted` gets: all of them, or the most the store
  // allows at once, which is noted (a smaller race proves less).
  std::size_t racers(std::size_t wanted, const std::string& race) {
    const std::size_t most = capabilities.max_sessions.value_or(wanted);
    require(most >= 2, "the store allows " + std::to_string(most) +
                           " session(s) at once (capability `max_sessions`), and a race needs "
                           "two at the least");
    if (most >= wanted) return wanted;
    note(race + " ran with " + std::to_string(most) + " sessions, not " + std::to_string(wanted) +
         ": the most the store allows at once (capability `max_sessions`)");
    return most;
  }

  // Something a passing check could not prove, for the report's reason.
  void note(std::string text) { notes += (notes.empty() ? "" : "; ") + std::move(text); }
  std::string notes;

  // Audits whatever the check left since the last `fresh`.
  void finish() {
    if (!answers_.empty()) audit();
  }
  // After a failure: counts what the store holds for the answers since the last `fresh`, so
  // the report's counts describe the store the reason speaks of. Best effort: a harness
  // that cannot be read any more leaves the counts as they were.
  void count_after_failure() noexcept {
    try {
      if (!answers_.empty()) audit(false);
    } catch (...) {
    }
  }
  // Drops the answers seen so far, for a check that deletes children on purpose.
  void forget() { answers_.clear(); }

  Session& session() {
    if (!session_) session_ = harness.open_session();
    return *session_;
  }
  // Closes the run's own session, before the store is reopened.
  void forget_session() { session_.reset(); }

  // Pauses the first caller that reaches `point` (and then lets it fail there, if asked).
  std::shared_ptr<Gate> gate(HookPoint point, bool fail_after = false) {
    auto gate = std::make_shared<Gate>(point, fail_after);
    harness.set_hook(gate->hook(gate));
    return gate;
  }
  // Fails the first caller that reaches `point`.
  void fail_once_at(HookPoint point) {
    auto taken = std::make_shared<std::atomic<bool>>(false);
    harness.set_hook([point, taken](HookPoint at, const MentionTurnRequest&) {
      return at != point || taken->exchange(true);
    });
  }

 private:
  struct Seen {
    std::uint64_t enqueued = 0;
    std::uint64_t already = 0;
    std::uint64_t errors = 0;
    std::uint64_t indeterminate = 0;
  };
  std::map<std::string, Seen> answers_;
  std::unique_ptr<Session> session_;
  Watch* watch_ = t_watch;
};

// The three live conditions a host revalidates, each with the refusal it causes when off.
struct PolicyControl {
  EnqueueRefusal refusal;
  std::function<void(bool)> set;
};

inline std::vector<PolicyControl> policy_controls(Run& run) {
  return {
      {EnqueueRefusal::FeatureDisabled,
       [&run](bool on) { run.harness.set_policy({.enabled = on, .max_hops = 1000}); }},
      {EnqueueRefusal::Unauthorized,
       [&run](bool on) { run.harness.set_authorized(kSource, kTarget, on); }},
      {EnqueueRefusal::TargetUnavailable,
       [&run](bool on) { run.harness.set_available(kTarget, on); }},
  };
}

}  // namespace thm::conformance::checking
