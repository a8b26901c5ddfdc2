// The checks of queue-conformance.md §6, EQ-01…EQ-25 (EQ-25's body lives in
// model_check.cpp). Each is a plain function over a Harness; `run_check` turns what it finds into
// a report entry. A check fails through `Run::require`, which throws `Failed` up to
// `run_check`; everything that pauses a caller releases it on the way out.
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

namespace thm::conformance {
namespace detail {

// Answers and steps in this process, by any check: the watchdog's sign of progress. (Two
// checks run at once in one process would each see the other's progress.)
std::atomic<std::uint64_t> g_progress{0};

void made_progress() noexcept { g_progress.fetch_add(1); }

void together(std::size_t n, const std::function<void(std::size_t)>& body,
              const std::function<void()>& meanwhile) {
  std::atomic<bool> open{false};
  std::vector<std::jthread> threads;
  {
    // Opened before the threads are joined, even if starting one of them throws.
    struct OpenOnExit {
      std::atomic<bool>& line;
      ~OpenOnExit() { line.store(true); }
    } const start{open};
    for (std::size_t i = 0; i < n; ++i) {
      threads.emplace_back([&, i] {
        while (!open.load()) std::this_thread::yield();
        body(i);
      });
    }
  }
  if (meanwhile) meanwhile();
}  // the threads are joined here

Result<EnqueueOutcome, QueueError> call(Session& session, const MentionTurnRequest& request) {
  struct Count {
    ~Count() { made_progress(); }
  } const counted;
  try {
    return session.enqueue_once(request);
  } catch (const std::exception& e) {
    return unexpected{
        QueueError{QueueErrorKind::Internal, std::string("harness error: ") + e.what()}};
  } catch (...) {
    return unexpected{QueueError{QueueErrorKind::Internal, "harness error: unknown exception"}};
  }
}

}  // namespace detail
namespace {

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

Answer no_answer() { return unexpected{QueueError{QueueErrorKind::Internal, "no answer"}}; }

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
thread_local Watch* t_watch = nullptr;

// Watches one check from a thread of its own, and ends the process when it stalls.
class Watchdog {
 public:
  Watchdog(const Check& check, const Options& options, Watch& watch) {
    if (options.stall <= std::chrono::milliseconds::zero()) return;
    thread_ = std::jthread([&check, &options, &watch](std::stop_token stop) {
      std::mutex mutex;
      std::condition_variable_any never;
      std::uint64_t seen = watch.progress().second;
      auto since = std::chrono::steady_clock::now();
      std::unique_lock lock(mutex);
      while (!never.wait_for(lock, stop, std::min<std::chrono::milliseconds>(options.stall, 1s),
                             [] { return false; })) {
        if (stop.stop_requested()) return;
        auto [now_doing, now_seen] = watch.progress();
        if (now_seen != seen) {
          seen = now_seen;
          since = std::chrono::steady_clock::now();
          continue;
        }
        if (std::chrono::steady_clock::now() - since < options.stall) continue;
        const auto ms = options.stall.count();
        const std::string how_long =
            ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
        const std::string message = std::string(check.id) + " (" + std::string(check.title) +
                                    ") made no progress for " + how_long + " while: " + now_doing +
                                    "; the harness or its store is stuck (seed " +
                                    std::to_string(options.seed) + "), so the process ends here";
        if (options.on_stall) {
          options.on_stall(message);
        } else {
          std::fprintf(stderr, "thm conformance: %s\n", message.c_str());
          std::fflush(stderr);
        }
        std::_Exit(1);
      }
    });
  }

 private:
  std::jthread thread_;
};

using detail::call;

bool is(const Answer& answer, const EnqueueOutcome& outcome) {
  return answer && *answer == outcome;
}
bool is_enqueued(const Answer& answer) { return is(answer, Enqueued{}); }
bool is_already(const Answer& answer) { return is(answer, Already{}); }

std::string describe(const Answer& answer) {
  if (!answer)
    return "error " + std::string(name(answer.error().kind)) + " (" + answer.error().message + ")";
  return std::visit(
      overloaded{[](const Enqueued&) { return std::string("Enqueued"); },
                 [](const Already&) { return std::string("Already"); },
                 [](const Refused& r) { return "Refused{" + std::string(name(r.reason)) + "}"; }},
      *answer);
}

MentionTurnRequest request_for(const CommittedReply& reply, const std::string& target = kTarget) {
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
  std::vector<ChildRow> children_of(const MentionTurnRequest& request) {
    step("reading the store's children (Harness::children)");
    const TurnKey key = turn_key(request);
    std::vector<ChildRow> out;
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

// ---- A. exactly-once and the meaning of each answer ----------------------------------------

void eq01_race_on_one_key(Run& run) {
  std::vector<std::size_t> sizes{2, 8};
  if (!run.options.short_mode) sizes.push_back(64);
  Sequence sequence = 0;
  for (const std::size_t wanted : sizes) {
    const std::size_t n = run.racers(wanted, "the race of " + std::to_string(wanted));
    run.fresh();
    for (int repetition = 0; repetition < run.options.repeat; ++repetition) {
      const auto request = run.trigger(++sequence);
      const auto answers = run.race(std::vector(n, request));
      const auto enqueued = std::count_if(answers.begin(), answers.end(), is_enqueued);
      const auto already = std::count_if(answers.begin(), answers.end(), is_already);
      const std::string where = " in a race of " + std::to_string(n) + " (repetition " +
                                std::to_string(repetition + 1) + ")";
      for (const auto& answer : answers) {
        run.require(is_enqueued(answer) || is_already(answer),
                    "a caller got " + describe(answer) + where);
      }
      run.require(enqueued == 1, std::to_string(enqueued) + " callers got Enqueued" + where);
      run.require(already == static_cast<long>(n) - 1,
                  std::to_string(already) + " callers got Already" + where);
      run.require(run.children_of(request).size() == 1,
                  "the key does not have exactly one child" + where);
    }
    run.require(run.harness.records().size() == static_cast<std::size_t>(run.options.repeat),
                "expected one idempotency record per raced key");
  }
}

// Caller A stops at `point`; caller B starts on the same key and may run for `wait`.
// Returns B's answer if it arrived while A was paused. Nothing reads the store while A is
// paused: a host's inspector may rightly wait for A's open transaction. In a fresh store
// with A paused before its commit, no child can be committed, so an answer B got meanwhile
// is judged without looking.
struct PausedPair {
  Answer first;
  Answer second;
  std::optional<Answer> second_while_paused;
};

PausedPair pause_first_caller(Run& run, const MentionTurnRequest& request, HookPoint point,
                              bool fail_first) {
  auto a_session = run.harness.open_session();
  auto b_session = run.harness.open_session();
  auto gate = run.gate(point, fail_first);
  std::optional<Call> a;
  std::optional<Call> b;
  ReleaseOnExit release{gate};
  a.emplace(*a_session, request);
  run.require(gate->wait_reached(), "the first caller never reached " + std::string(name(point)) +
                                        " (does the harness call its hook?)");
  b.emplace(*b_session, request);
  run.step("waiting for a second caller while the first is paused at " + std::string(name(point)));
  PausedPair out{.first = no_answer(),
                 .second = no_answer(),
                 .second_while_paused = b->answer_within(run.options.wait)};
  gate->release();
  run.step("waiting for both callers to answer after the first was released");
  out.first = a->answer();
  out.second = b->answer();
  run.tally(request, out.first);
  run.tally(request, out.second);
  return out;
}

void eq02_pause_first_caller_before_commit(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto request = run.trigger(1);
  const auto pair = pause_first_caller(run, request, HookPoint::BeforeCommit, false);
  if (pair.second_while_paused) {
    run.require(
        !is_enqueued(*pair.second_while_paused),
        "the second caller got Enqueued while the first caller's transaction was still open");
    run.require(!is_already(*pair.second_while_paused),
                "the second caller got Already while no child was committed");
  }
  run.require(is_enqueued(pair.first),
              "the first caller got " + describe(pair.first) + ", not Enqueued");
  run.require(is_already(pair.second),
              "the second caller got " + describe(pair.second) + ", not Already");
  run.require(run.children_of(request).size() == 1, "the key does not have exactly one child");
}

void eq03_first_caller_rolls_back(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto request = run.trigger(1);
  const auto pair = pause_first_caller(run, request, HookPoint::BeforeCommit, true);
  if (pair.second_while_paused) {
    run.require(!is_already(*pair.second_while_paused),
                "the second caller got Already while no child was committed");
  }
  run.require(!pair.first,
              "the first caller failed at before_commit but got " + describe(pair.first));
  run.require(is_enqueued(pair.second), "after the first caller rolled back, the second got " +
                                            describe(pair.second) + ", not Enqueued");
  run.require(run.children_of(request).size() == 1, "the key does not have exactly one child");
}

void eq04_unique_constraint(Run& run) {
  if (!run.capabilities.sql_schema) {
    throw Skipped{
        "the store has no SQL schema to introspect; its exactly-once rests on the per-key step "
        "that "
        "EQ-01, EQ-02 and EQ-03 exercise"};
  }
  const auto index = run.harness.unique_key_index();
  run.require(index.has_value(), "the idempotency table has no unique index on its key columns");
  run.require(!index->columns.empty(), "the idempotency table's unique index names no columns");
  run.require(!index->partial, "the idempotency table's unique index is partial");
  run.note(
      "the index is the one the harness reports, not one the suite read itself; EQ-02 is the "
      "behavioural check that the decision holds");
}

void eq05_answer_on_replay(Run& run) {
  run.fresh();
  const auto request = run.trigger(1);
  const auto first = run.enqueue(request);
  run.require(is_enqueued(first), "the first call got " + describe(first));
  for (int i = 0; i < 3; ++i) {
    const auto again = run.enqueue(request);
    run.require(is_already(again), "replay " + std::to_string(i + 1) + " got " + describe(again));
  }
  const auto children = run.children_of(request);
  run.require(children.size() == 1, "the key does not have exactly one child");
  run.require(children[0].request == request, "the child's request is not the one enqueued");
  if (run.capabilities.persistent) {
    run.forget_session();
    run.harness.reopen();
    const auto reopened = run.enqueue(*run.harness.open_session(), request);
    run.require(is_already(reopened),
                "after reopening the store the replay got " + describe(reopened));
  } else {
    run.note("no replay after reopening the store: it is not `persistent`");
  }
}

void eq06_indeterminate_then_retry(Run& run) {
  run.need_hooks();
  run.fresh();
  const auto committed = run.trigger(1);
  run.fail_once_at(HookPoint::AfterCommitBeforeReturn);
  const auto lost_answer = run.enqueue(committed);
  run.require(!lost_answer, "a failure after commit was answered " + describe(lost_answer));
  const auto retry = run.enqueue(committed);
  run.require(is_already(retry),
              "the retry after a committed but unanswered step got " + describe(retry));

  const auto rolled_back = run.trigger(2);
  run.fail_once_at(HookPoint::BeforeCommit);
  const auto failed = run.enqueue(rolled_back);
  run.require(!failed, "a failure before commit was answered " + describe(failed));
  run.require(run.children_of(rolled_back).empty(), "a child exists after a failure before commit");
  const auto second = run.enqueue(rolled_back);
  run.require(is_enqueued(second), "the retry after a rolled-back step got " + describe(second));
  run.require(run.children_of(committed).size() == 1 && run.children_of(rolled_back).size() == 1,
              "retries did not converge on one child per key");
}

// K keys, N callers each trying every key in its own order, faults injected by a seeded
// schedule (when the harness has hooks); the audit does the accounting.
void eq07_accounting(Run& run) {
  const std::size_t keys = run.options.short_mode ? 20 : 100;
  const std::size_t callers = run.racers(8, "the 8 callers");
  run.fresh();
  std::vector<MentionTurnRequest> requests;
  for (std::size_t k = 0; k < keys; ++k) requests.push_back(run.trigger(k + 1));
  auto injected = std::make_shared<std::atomic<std::uint64_t>>(0);
  if (run.capabilities.hooks) {
    const std::uint64_t salt = run.random();
    auto calls = std::make_shared<std::atomic<std::uint64_t>>(0);
    run.harness.set_hook([salt, calls, injected](HookPoint at, const MentionTurnRequest&) {
      if (at != HookPoint::BeforeCommit && at != HookPoint::AfterCommitBeforeReturn) return true;
      std::mt19937_64 dice(salt ^ calls->fetch_add(1));
      const bool fail = dice() % 8 == 0;  // each of the two points fails one call in eight
      if (fail) injected->fetch_add(1);
      return !fail;
    });
  } else {
    run.note("no faults were injected: the harness has no `hooks`");
  }
  std::vector<std::vector<MentionTurnRequest>> orders(callers, requests);
  for (auto& order : orders) std::shuffle(order.begin(), order.end(), run.random);
  std::vector<std::vector<Answer>> answers(callers);
  std::vector<std::unique_ptr<Session>> sessions;
  for (std::size_t c = 0; c < callers; ++c) sessions.push_back(run.harness.open_session());
  run.step("waiting for " + std::to_string(callers) + " callers enqueueing " +
           std::to_string(keys) + " keys each, with faults injected");
  {
    std::vector<std::jthread> threads;
    for (std::size_t c = 0; c < callers; ++c) {
      threads.emplace_back([&, c] {
        for (const auto& request : orders[c]) {
          answers[c].push_back(call(*sessions[c], request));
        }
      });
    }
  }
  run.harness.set_hook({});
  const Counts before = run.counts;
  for (std::size_t c = 0; c < callers; ++c) {
    for (std::size_t i = 0; i < orders[c].size(); ++i) run.tally(orders[c][i], answers[c][i]);
  }
  // Every error must be one the check injected: the others are the store's own failures
  // under load (a unique violation caught and returned, a poisoned transaction).
  const std::uint64_t failed =
      run.counts.errors + run.counts.indeterminate - before.errors - before.indeterminate;
  run.require(failed <= injected->load(), std::to_string(failed) +
                                              " calls failed, but the check injected only " +
                                              std::to_string(injected->load()) + " failures");
  run.audit();
}

// ---- B. atomicity and rollback ----------------------------------------------------------------

void eq08_forced_rollback_leaves_nothing(Run& run) {
  run.need_hooks();
  for (const HookPoint point : {HookPoint::AfterIdempotencyStatement, HookPoint::AfterChildInsert,
                                HookPoint::BeforeCommit}) {
    run.fresh();
    const auto request = run.trigger(1);
    run.fail_once_at(point);
    const auto failed = run.enqueue(request);
    const std::string at = " (failure at " + std::string(name(point)) + ")";
    run.require(!failed, "the failing step was answered " + describe(failed) + at);
    run.require_nothing_written("a rollback" + at);
    const auto retry = run.enqueue(request);
    run.require(is_enqueued(retry), "the retry got " + describe(retry) + at);
  }
}

// The three live conditions a host revalidates, each with the refusal it causes when off.
struct PolicyControl {
  EnqueueRefusal refusal;
  std::function<void(bool)> set;
};

std::vector<PolicyControl> policy_controls(Run& run) {
  return {
      {EnqueueRefusal::FeatureDisabled,
       [&run](bool on) { run.harness.set_policy({.enabled = on, .max_hops = 1000}); }},
      {EnqueueRefusal::Unauthorized,
       [&run](bool on) { run.harness.set_authorized(kSource, kTarget, on); }},
      {EnqueueRefusal::TargetUnavailable,
       [&run](bool on) { run.harness.set_available(kTarget, on); }},
  };
}

void eq09_refused_leaves_nothing(Run& run) {
  for (const auto& condition : policy_controls(run)) {
    run.fresh();
    const auto request = run.trigger(1);
    const std::string what = std::string(name(condition.refusal));
    condition.set(false);
    const auto refused = run.enqueue(request);
    run.require(is(refused, Refused{condition.refusal}),
                "expected Refused{" + what + "}, got " + describe(refused));
    run.require_nothing_written("Refused{" + what + "}");
    condition.set(true);
    const auto retry = run.enqueue(request);
    run.require(is_enqueued(retry),
                "after " + what + " was fixed the same key got " + describe(retry));
    // Policy is revalidated before the idempotency decision, like a mismatch (SPEC §4).
    condition.set(false);
    const auto duplicate = run.enqueue(request);
    run.require(is(duplicate, Refused{condition.refusal}), "a duplicate while " + what +
                                                               " holds got " + describe(duplicate) +
                                                               ", not Refused{" + what + "}");
  }
  // The hop budget is live policy too: a child past the live max_hops is refused.
  run.fresh();
  const auto request = run.trigger(1);
  run.harness.set_policy({.enabled = true, .max_hops = request.child_hop - 1});
  const auto over_budget = run.enqueue(request);
  run.require(is(over_budget, Refused{EnqueueRefusal::FeatureDisabled}),
              "a child hop over the live max_hops got " + describe(over_budget) +
                  ", not Refused{feature_disabled} (child_hop > max_hops is the policy refusing)");
  run.require_nothing_written("a refusal over the hop budget");
  // Authorization is per (source, target) pair: forbidding alice → bob forbids nothing else.
  run.fresh();
  run.harness.set_available("carol", true);
  run.harness.set_authorized(kSource, kTarget, false);
  const auto to_carol = request_for({.conversation = kDesk,
                                     .sequence = 2,
                                     .author_id = kSource,
                                     .content = "@carol hi",
                                     .hop = 0},
                                    "carol");
  const CommittedReply by_dave{
      .conversation = kDesk, .sequence = 3, .author_id = "dave", .content = "@bob hi", .hop = 0};
  run.harness.commit_reply({.conversation = kDesk,
                            .sequence = 2,
                            .author_id = kSource,
                            .content = "@carol hi",
                            .hop = 0});
  run.harness.commit_reply(by_dave);
  const auto carol = run.enqueue(to_carol);
  run.require(is_enqueued(carol),
              "with only alice → bob forbidden, alice → carol got " + describe(carol));
  const auto dave = run.enqueue(request_for(by_dave));
  run.require(is_enqueued(dave),
              "with only alice → bob forbidden, dave → bob got " + describe(dave));
}

void eq10_session_survives_every_answer(Run& run) {
  run.fresh();
  Session& session = run.session();
  std::vector<MentionTurnRequest> requests;
  for (Sequence s = 1; s <= 5; ++s) requests.push_back(run.trigger(s));
  const auto next = [&](std::size_t i, const std::string& after) {
    const auto answer = run.enqueue(session, requests[i]);
    run.require(is_enqueued(answer), "on the same session, right after " + after +
                                         ", a new key got " + describe(answer));
  };
  next(0, "a fresh start");
  run.require(is_already(run.enqueue(session, requests[0])), "a replay did not get Already");
  next(1, "Already");
  run.harness.set_available(kTarget, false);
  run.require(is(run.enqueue(session, requests[2]), Refused{EnqueueRefusal::TargetUnavailable}),
              "an unavailable target was not refused");
  run.harness.set_available(kTarget, true);
  next(3, "Refused");
  auto mismatched = requests[2];
  mismatched.content += " (edited)";
  run.require(!run.enqueue(session, mismatched),
              "a request that mismatches its stored reply was not an error");
  next(4, "an error");

  // Lost races: two sessions race on one key, then each must take a new key at once. A
  // host that catches the loser's unique violation without a savepoint (M2) poisons the
  // loser's transaction or session here, whatever the race answered.
  for (int round = 0; round < run.options.repeat; ++round) {
    const Sequence base = 100 + 3 * static_cast<Sequence>(round);
    const auto contested = run.trigger(base);
    std::array<std::unique_ptr<Session>, 2> racers{run.harness.open_session(),
                                                   run.harness.open_session()};
    std::array<Answer, 2> answers{no_answer(), no_answer()};
    run.step("waiting for two sessions racing on one key");
    detail::together(2, [&](std::size_t i) { answers[i] = call(*racers[i], contested); });
    for (std::size_t i = 0; i < 2; ++i) {
      run.tally(contested, answers[i]);
      run.require(is_enqueued(answers[i]) || is_already(answers[i]),
                  "a caller in a race of two on one key got " + describe(answers[i]));
      const auto fresh_key = run.trigger(base + 1 + i);
      const auto after = run.enqueue(*racers[i], fresh_key);
      run.require(is_enqueued(after),
                  "right after a race of two on one key, the same session "
                  "got " +
                      describe(after) + " for a new key");
    }
  }
}

// ---- C. revalidating the stored trigger and the policy --------------------------------------

void eq11_mismatch_matrix(Run& run) {
  run.fresh();
  const auto base = run.trigger(10);
  const auto next_reply = run.trigger(11, kDesk, "@carol something else entirely");
  const auto in_thread = run.trigger(20, DispatchConversation{.desk_id = "eng", .thread_root = 99});
  (void)next_reply;
  struct Row {
    std::string what;
    MentionTurnRequest request;
  };
  const auto with = [&](std::string what, const std::function<void(MentionTurnRequest&)>& change) {
    MentionTurnRequest request = base;
    change(request);
    return Row{std::move(what), std::move(request)};
  };
  const std::vector<Row> same_key{
      with("content differs", [](auto& r) { r.content += "!"; }),
      with("source differs", [](auto& r) { r.source_id = "carol"; }),
      with("child hop not derived from the stored reply", [](auto& r) { r.child_hop = 7; }),
  };
  const std::vector<Row> other_key{
      with("no stored reply", [](auto& r) { r.key.trigger_sequence = 30; }),
      with("sequence belongs to another conversation",
           [&](auto& r) {
             r.key = in_thread.key;
             r.content = in_thread.content;
           }),
      with("sequence off by one", [](auto& r) { r.key.trigger_sequence = 11; }),
      with("sequence newer than the stored head", [](auto& r) { r.key.trigger_sequence = 12; }),
  };
  const auto expect_mismatch = [&](const Row& row, const std::string& when) {
    const auto records = run.harness.records().size();
    const auto children = run.harness.children().size();
    const auto answer = run.enqueue(row.request);
    run.require(!answer, row.what + when + ": got " + describe(answer) + ", not an error");
    const auto kind = answer.error().kind;
    run.require(kind == QueueErrorKind::TriggerMismatch || kind == QueueErrorKind::TriggerMissing,
                row.what + when + ": the error is " + std::string(name(kind)) +
                    ", not trigger_mismatch or trigger_missing");
    run.require(
        run.harness.records().size() == records && run.harness.children().size() == children,
        row.what + when + ": the store changed");
  };
  for (const auto& row : same_key) expect_mismatch(row, "");
  for (const auto& row : other_key) expect_mismatch(row, "");
  const auto admitted = run.enqueue(base);
  run.require(is_enqueued(admitted), "the matching request got " + describe(admitted));
  for (const auto& row : same_key) expect_mismatch(row, " (the key already has a record)");
  const auto admitted_children = run.children_of(base);
  run.require(admitted_children.size() == 1, "the matching request left no single child");
  run.require(admitted_children[0].request == base,
              "the child was not built from the stored reply");
}

// Pauses a caller at `point`, runs `change` on another thread and waits up to
// `options.wait` for it to land, then releases the caller. Returns the caller's answer and
// whether the change landed while the caller was paused. A harness exception from `change`
// fails the check.
std::pair<Answer, bool> change_while_paused(Run& run, const MentionTurnRequest& request,
                                            HookPoint point, const std::function<void()>& change) {
  auto session = run.harness.open_session();
  auto gate = run.gate(point);
  std::optional<Call> caller;
  std::optional<Background> changer;
  ReleaseOnExit release{gate};
  caller.emplace(*session, request);
  run.require(gate->wait_reached(), "the caller never reached " + std::string(name(point)));
  changer.emplace(change);
  run.step("waiting for a change on another session while a caller is paused at " +
           std::string(name(point)));
  const bool landed = changer->done_within(run.options.wait);
  gate->release();
  run.step("waiting for the released caller, and for the change, to finish");
  Answer answer = caller->answer();
  changer->finish();
  run.tally(request, answer);
  return {std::move(answer), landed};
}

void eq12_policy_inside_the_transaction(Run& run) {
  if (run.capabilities.hooks) {
    std::size_t waited = 0;
    for (const auto& control : policy_controls(run)) {
      run.fresh();
      const auto request = run.trigger(1);
      const auto [answer, revoked_while_paused] =
          change_while_paused(run, request, HookPoint::AfterBegin, [&] { control.set(false); });
      if (revoked_while_paused) {
        run.require(is(answer, Refused{control.refusal}),
                    "revoked (" + std::string(name(control.refusal)) +
                        ") after begin, the step still got " + describe(answer));
      } else {
        ++waited;  // the host serialised the change after the step: nothing to judge here
      }
    }
    if (waited != 0) {
      run.note(std::to_string(waited) +
               " of 3 revocations waited for the open step, so the paused half could not show a "
               "check-then-use gap for them; the race below still ran");
    }
  } else {
    run.note(
        "no step was paused while the policy changed: the harness has no `hooks`; only the "
        "race below ran");
  }
  // The race: enqueuers on distinct keys while the feature is switched off. A call that
  // starts after the switch-off returned must not get Enqueued, and some must be refused.
  run.fresh();
  const std::size_t callers = run.racers(8, "the race of 8 enqueuers");
  const std::size_t per_caller = run.options.short_mode ? 10 : 40;
  std::vector<std::vector<MentionTurnRequest>> requests(callers);
  Sequence sequence = 0;
  for (auto& list : requests) {
    for (std::size_t i = 0; i < per_caller; ++i) list.push_back(run.trigger(++sequence));
  }
  std::atomic<std::uint64_t> clock{0};
  std::atomic<std::uint64_t> revoked_at{std::numeric_limits<std::uint64_t>::max()};
  struct Stamped {
    std::uint64_t started;
    Answer answer;
  };
  std::vector<std::vector<Stamped>> stamped(callers);
  std::vector<std::unique_ptr<Session>> sessions;
  for (std::size_t c = 0; c < callers; ++c) sessions.push_back(run.harness.open_session());
  run.step("waiting for " + std::to_string(callers) +
           " callers enqueueing while the feature is switched off (Harness::set_policy)");
  {
    std::vector<std::jthread> threads;
    for (std::size_t c = 0; c < callers; ++c) {
      threads.emplace_back([&, c] {
        for (const auto& request : requests[c]) {
          const std::uint64_t started = clock.fetch_add(1);
          stamped[c].push_back({started, call(*sessions[c], request)});
        }
      });
    }
    while (clock.load() < callers * per_caller / 3) std::this_thread::yield();
    Background revoke([&] { run.harness.set_policy({.enabled = false, .max_hops = 1000}); });
    revoke.finish();
    revoked_at = clock.fetch_add(1);
  }
  std::size_t refused = 0;
  for (std::size_t c = 0; c < callers; ++c) {
    for (std::size_t i = 0; i < stamped[c].size(); ++i) {
      run.tally(requests[c][i], stamped[c][i].answer);
      refused += is(stamped[c][i].answer, Refused{EnqueueRefusal::FeatureDisabled}) ? 1 : 0;
      run.require(!(is_enqueued(stamped[c][i].answer) && stamped[c][i].started > revoked_at),
                  "a call that started after the feature was switched off got Enqueued");
    }
  }
  const bool calls_after_revocation = clock.load() > revoked_at + 1;
  run.require(refused > 0 || !calls_after_revocation,
              "calls started after the feature was switched off, yet none was refused");
}

void eq13_stored_reply_edited_concurrently(Run& run) {
  run.need_hooks();
  if (!run.capabilities.row_locking) {
    throw Skipped{
        "needs capability `row_locking` (reads of the stored reply held until commit, or "
        "serialised writers)"};
  }
  run.fresh();
  const auto request = run.trigger(1);
  const auto [answer, edited_while_paused] =
      change_while_paused(run, request, HookPoint::AfterValidateReads, [&] {
        run.harness.commit_reply({.conversation = request.conversation,
                                  .sequence = request.key.trigger_sequence,
                                  .author_id = request.source_id,
                                  .content = request.content + " (edited)",
                                  .hop = 0});
      });
  if (edited_while_paused) {
    run.require(!is_enqueued(answer),
                "the stored reply was edited while the step was open, yet the child was built from "
                "the old content");
  } else {
    // The edit waited for the step (locking) or landed just before its commit (a host that
    // validates at commit fails the step): either is serialisable.
    run.require(is_enqueued(answer) || !answer,
                "the step that the edit raced got " + describe(answer));
  }
  run.require(!answer || !is_enqueued(answer) || run.children_of(request).size() == 1,
              "an admitted step left no single child");
}

// ---- D. leases, store clock, attempts --------------------------------------------------------

// What the lease checks need from a harness: leases, and a lease length that suits its clock
// (a fake clock the suite moves, or a real one it waits for).
struct LeaseClock {
  Run& run;
  std::chrono::milliseconds lease;

  static LeaseClock of(Run& run) {
    if (!run.capabilities.leases) {
      throw Skipped{"needs capability `leases` (claim, renew, complete, fail, store_now)"};
    }
    return {run, run.capabilities.injected_store_clock ? std::chrono::milliseconds(30s)
                                                       : std::chrono::milliseconds(300ms)};
  }
  // Lets store time pass `until` (strictly).
  void pass(StoreTime until) const {
    if (run.capabilities.injected_store_clock) {
      const auto now = run.harness.store_now();
      if (now <= until) run.harness.advance_store_clock(until - now + 1ms);
      return;
    }
    run.step("waiting for store time to pass a lease's expiry (Harness::store_now)");
    while (run.harness.store_now() <= until) std::this_thread::sleep_for(10ms);
  }
  Lease claim(Session& session, const std::string& what) const {
    run.step("waiting for a claim to answer (" + what + ")");
    const auto claimed = session.claim(lease);
    run.require(claimed.has_value(), what + ": the claim was refused (" +
                                         std::string(claimed ? "" : name(claimed.error())) + ")");
    run.require(claimed->has_value(), what + ": nothing was claimable");
    return **claimed;
  }
  ChildRow row(std::uint64_t child_id) const {
    for (auto& child : run.harness.children()) {
      if (child.id == child_id) return child;
    }
    run.require(false, "child " + std::to_string(child_id) + " is missing from the inspector");
    return {};
  }
};

// What EQ-14 and EQ-15 cannot show when the harness cannot move the host's clock.
void note_unless_skewable(Run& run) {
  if (run.capabilities.skewable_client_clock) return;
  run.note(
      "the host's clock could not be moved (capability `skewable_client_clock` is not "
      "declared): leases were checked against store time, but a host that stamps them from its "
      "own clock would pass too");
}

// Enqueues `n` children in a fresh store.
void children_to_claim(Run& run, std::size_t n) {
  run.fresh();
  for (std::size_t i = 1; i <= n; ++i) {
    const auto answer = run.enqueue(run.trigger(i));
    run.require(is_enqueued(answer), "setting up a child to claim got " + describe(answer));
  }
}

void eq14_expiry_computed_by_the_store(Run& run) {
  const auto clock = LeaseClock::of(run);
  note_unless_skewable(run);
  children_to_claim(run, 3);
  auto session = run.harness.open_session();
  const StoreTime year_2021{
      std::chrono::sys_days{std::chrono::year{2021} / 1 / 1}.time_since_epoch()};
  const std::vector<std::pair<std::string, Harness::ClientClock>> skews{
      {"+1 h", [&harness = run.harness] { return harness.store_now() + 1h; }},
      {"-1 h", [&harness = run.harness] { return harness.store_now() - 1h; }},
      {"2021-01-01", [year_2021] { return year_2021; }},
  };
  for (const auto& [label, client] : skews) {
    run.harness.set_client_clock(client);
    const StoreTime before = run.harness.store_now();
    const Lease lease = clock.claim(*session, "client clock " + label);
    const StoreTime after = run.harness.store_now();
    run.require(
        lease.expires_at >= before + clock.lease && lease.expires_at <= after + clock.lease + 1s,
        "with the client clock at " + label + ", the lease expiry is not store time + duration");
    run.require(clock.row(lease.child_id).lease_expires_at == lease.expires_at,
                "the row's lease expiry differs from the one the claim returned");
  }
  run.harness.set_client_clock({});
}

void eq15_no_stolen_lease_no_starvation(Run& run) {
  const auto clock = LeaseClock::of(run);
  note_unless_skewable(run);
  for (const auto skew : {2 * clock.lease, -2 * clock.lease}) {
    children_to_claim(run, 1);
    auto holder = run.harness.open_session();
    auto other = run.harness.open_session();
    // Skewed from the first claim on: a host that stamps expiry from its own clock (M7)
    // hands out a lease that has already expired when the clock is behind.
    run.harness.set_client_clock(
        [&harness = run.harness, skew] { return harness.store_now() + skew; });
    const Lease held = clock.claim(*holder, "the first claim");
    const std::string ahead = skew > 0ms ? "ahead" : "behind";
    const auto early = other->claim(clock.lease);
    run.require(early && !early->has_value(),
                "a claimer whose clock is 2×lease " + ahead + " took a lease that had not expired");
    clock.pass(held.expires_at);
    const auto late = other->claim(clock.lease);
    run.require(late && late->has_value(), "a claimer whose clock is 2×lease " + ahead +
                                               " could not reclaim an expired lease");
    run.harness.set_client_clock({});
  }
}

void eq16_lease_api_takes_durations(Run& run) {
  // Compile time: the session's lease operations take durations, never time points.
  static_assert(
      std::is_invocable_v<decltype(&Session::claim), Session&, std::chrono::milliseconds>);
  static_assert(!std::is_invocable_v<decltype(&Session::claim), Session&, StoreTime>);
  static_assert(
      !std::is_invocable_v<decltype(&Session::renew), Session&, const std::string&, StoreTime>);
  const auto clock = LeaseClock::of(run);
  children_to_claim(run, 1);
  auto session = run.harness.open_session();
  const auto refused = session->claim(0ms);
  run.require(!refused && refused.error() == LeaseError::InvalidDuration,
              "a claim for 0 ms was not refused");
  const Lease lease = clock.claim(*session, "a claim");
  const auto renewed = session->renew(lease.token, 2 * clock.lease);
  run.require(renewed.has_value(), "renewing a live lease failed");
  run.require(clock.row(lease.child_id).lease_expires_at == *renewed,
              "renew returned an expiry that is not the one stored on the row");
  run.require(*renewed >= lease.expires_at, "renewing for twice the lease shortened it");
}

void eq17_statement_time(Run& run) {
  (void)run;
  throw Skipped{
      "not implemented yet for any store: no check holds a claim's transaction open "
      "before its statement runs (optional, for PostgreSQL stores)"};
}

void eq18_attempts_visible(Run& run) {
  const auto clock = LeaseClock::of(run);
  children_to_claim(run, 1);
  auto session = run.harness.open_session();
  const std::uint32_t most = run.capabilities.max_attempts.value_or(3);
  for (std::uint32_t attempt = 1; attempt <= most; ++attempt) {
    const Lease lease = clock.claim(*session, "claim " + std::to_string(attempt));
    run.require(lease.attempt == attempt, "claim " + std::to_string(attempt) +
                                              " reported attempt " + std::to_string(lease.attempt));
    run.require(clock.row(lease.child_id).attempts == attempt,
                "after claim " + std::to_string(attempt) + " the row shows " +
                    std::to_string(clock.row(lease.child_id).attempts) + " attempts");
    clock.pass(lease.expires_at);  // abandoned: the holder never answers
  }
  if (run.capabilities.max_attempts) {
    const auto spent = session->claim(clock.lease);
    run.require(spent && !spent->has_value(), "a child with its attempts spent was claimed again");
  } else {
    run.note("no claim past the last attempt: the harness declares no `max_attempts`");
  }
}

// Each of `sessions` claims for `duration` on its own thread, all released together by a
// spin barrier; `meanwhile` runs once they are released, before they are joined (EQ-27 ends
// its hold there). The leases they got, in session order: a claim that failed or threw
// holds none, and the caller's count judges.
std::vector<std::optional<Lease>> claim_together(std::vector<std::unique_ptr<Session>>& sessions,
                                                 std::chrono::milliseconds duration,
                                                 const std::function<void()>& meanwhile = {}) {
  std::vector<std::optional<Lease>> got(sessions.size());
  detail::together(
      sessions.size(),
      [&](std::size_t i) {
        try {
          if (auto lease = sessions[i]->claim(duration); lease) got[i] = *lease;
        } catch (...) {
        }
      },
      meanwhile);
  return got;
}

void eq19_concurrent_claimers(Run& run) {
  const auto clock = LeaseClock::of(run);
  const std::size_t claimers = run.racers(8, "the 8 claimers");
  for (int repetition = 0; repetition < run.options.repeat; ++repetition) {
    children_to_claim(run, 1);
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < claimers; ++i) sessions.push_back(run.harness.open_session());
    run.step("waiting for " + std::to_string(claimers) + " concurrent claimers");
    const auto got = claim_together(sessions, clock.lease);
    const auto holders =
        std::count_if(got.begin(), got.end(), [](const auto& g) { return g.has_value(); });
    run.require(holders == 1, std::to_string(holders) + " of " + std::to_string(claimers) +
                                  " concurrent claimers got a lease on one child");
    const auto row =
        clock.row(std::find_if(got.begin(), got.end(), [](const auto& g) { return g.has_value(); })
                      ->value()
                      .child_id);
    run.require(row.attempts == 1, "one successful claim left " + std::to_string(row.attempts) +
                                       " attempts on the row");
  }
}

// A lease's token stops working when its lease ends: once store time passes its expiry, and
// once a later claim has taken the child. Deterministic, with the short leases `LeaseClock`
// picks for the store's own clock; EQ-25's random sequences stay the net under it.
void eq26_stale_tokens_refused(Run& run) {
  const auto clock = LeaseClock::of(run);
  struct Use {
    std::string what;
    std::function<std::optional<LeaseError>(Session&, const std::string&)> error;
  };
  // The error a use of `token` met, or nothing when the store accepted it.
  const auto error_of = [](const auto& result) -> std::optional<LeaseError> {
    if (result) return std::nullopt;
    return result.error();
  };
  const std::vector<Use> uses{
      {"renew",
       [&](Session& s, const std::string& token) { return error_of(s.renew(token, clock.lease)); }},
      {"complete",
       [&](Session& s, const std::string& token) { return error_of(s.complete(token)); }},
      {"fail", [&](Session& s, const std::string& token) { return error_of(s.fail(token)); }},
  };
  const auto require_stale = [&run](const std::optional<LeaseError>& error,
                                    const std::string& what) {
    run.require(error.has_value(), what + " was accepted");
    run.require(*error == LeaseError::StaleToken,
                what + " got " + std::string(name(*error)) + ", not stale_token");
  };
  for (const Use& use : uses) {
    children_to_claim(run, 1);
    auto session = run.harness.open_session();
    const Lease expired = clock.claim(*session, "the first claim");
    clock.pass(expired.expires_at);
    require_stale(use.error(*session, expired.token),
                  use.what + " with a token whose lease expired on the store's clock");
    const Lease next = clock.claim(*session, "the reclaim after expiry");
    run.require(next.token != expired.token,
                "the reclaim issued the expired lease's token again (" + next.token + ")");
    require_stale(use.error(*session, expired.token),
                  use.what + " with the token of a lease that a later claim superseded");
    run.require(!use.error(*session, next.token).has_value(),
                use.what + " with the live lease's token was refused");
  }
}

// A claim never leases one child twice, however claimers interleave. With the child's row
// held by another transaction, two claimers start together and have time to read it; each
// must skip the child or wait for it, and once the hold ends at most one lease exists. A
// claim that reads its child without locking the row (M18) lets both take it, every time:
// both have read before either may write. EQ-19's race stays the net under it.
void eq27_claims_respect_a_held_row(Run& run) {
  const auto clock = LeaseClock::of(run);
  if (!run.capabilities.hold_child) {
    throw Skipped{
        "needs capability `hold_child` (the harness holds a child's row from a transaction of "
        "its own), which the in-memory queue and protocol v1 adapters do not declare; EQ-19's "
        "race is what checks their claims"};
  }
  const std::size_t claimers = run.racers(2, "the 2 claimers");
  for (int repetition = 0; repetition < 3; ++repetition) {
    children_to_claim(run, 1);
    const std::uint64_t child = run.harness.children().at(0).id;
    std::vector<std::unique_ptr<Session>> sessions;
    for (std::size_t i = 0; i < claimers; ++i) sessions.push_back(run.harness.open_session());
    run.step("holding child " + std::to_string(child) + "'s row (Harness::hold_child)");
    auto hold = run.harness.hold_child(child);
    const auto got = claim_together(sessions, clock.lease, [&] {
      std::this_thread::sleep_for(4 * run.options.wait);  // both read the row meanwhile
      hold.reset();
      run.step("waiting for claimers that met a held row");
    });
    const auto leases = std::count_if(got.begin(), got.end(), [&](const auto& lease) {
      return lease && lease->child_id == child;
    });
    run.require(leases <= 1, std::to_string(leases) + " of " + std::to_string(claimers) +
                                 " claimers leased one child whose row another transaction "
                                 "held while they read it");
    run.require(clock.row(child).attempts == static_cast<std::uint32_t>(leases),
                "the row counts " + std::to_string(clock.row(child).attempts) + " attempts for " +
                    std::to_string(leases) + " lease(s) granted");
  }
}

// ---- E. keys, inputs, lifetime --------------------------------------------------------------

void eq20_canonical_keys(Run& run) {
  run.fresh();
  // (a) every General spelling is one key.
  const auto general = run.trigger(1, DispatchConversation{.desk_id = std::string(kGeneralDesk)});
  bool first = true;
  for (const char* alias : {"General", "", "main", "MAIN", "general", "GENERAL"}) {
    auto request = general;
    request.conversation.desk_id = alias;
    const auto answer = run.enqueue(request);
    run.require(first ? is_enqueued(answer) : is_already(answer),
                "General spelled \"" + std::string(alias) + "\" got " + describe(answer));
    first = false;
  }
  // (b)–(e) pairs that must stay two keys: channel vs thread, null vs 0, delimiter
  // look-alikes, digit run-ons, case and Unicode normalization.
  using Key = std::pair<DispatchConversation, Sequence>;
  const std::vector<std::pair<Key, Key>> distinct{
      {{{"eng", std::nullopt}, 7}, {{"eng", 7}, 7}},
      {{{"ops", std::nullopt}, 7}, {{"ops", 0}, 7}},
      {{{"a|7", std::nullopt}, 7}, {{"a", 7}, 7}},
      {{{"a/t1", std::nullopt}, 5}, {{"a", 1}, 5}},
      {{{"1", std::nullopt}, 23}, {{"12", std::nullopt}, 3}},
      {{{"QA", std::nullopt}, 9}, {{"qa", std::nullopt}, 9}},
      {{{"Design", std::nullopt}, 7}, {{"design", std::nullopt}, 7}},
      {{{"caf\u00e9", std::nullopt}, 7}, {{"cafe\u0301", std::nullopt}, 7}},
  };
  for (const auto& [a, b] : distinct) {
    const auto ra = run.trigger(a.second, a.first, "@bob first of a pair");
    const auto rb = run.trigger(b.second, b.first, "@bob second of a pair");
    const auto first_answer = run.enqueue(ra);
    const auto second_answer = run.enqueue(rb);
    const auto spell = [](const Key& k) {
      return "(" + k.first.desk_id +
             (k.first.thread_root ? " thread " + std::to_string(*k.first.thread_root) : "") + ", " +
             std::to_string(k.second) + ")";
    };
    const std::string pair_text = " for " + spell(a) + " vs " + spell(b);
    run.require(is_enqueued(first_answer) && is_enqueued(second_answer),
                "two distinct keys got " + describe(first_answer) + " and " +
                    describe(second_answer) + pair_text);
  }
  // (f) many distinct keys; then long desk ids under one sequence that differ only in their
  // last byte, so a key cut short anywhere collides.
  const std::size_t many = run.options.short_mode ? 100 : 500;
  for (std::size_t i = 0; i < many; ++i) {
    const auto request =
        run.trigger(1000 + i, DispatchConversation{.desk_id = "desk-" + std::to_string(i % 7)});
    const auto answer = run.enqueue(request);
    run.require(is_enqueued(answer),
                "distinct key " + std::to_string(i) + " got " + describe(answer));
  }
  const std::size_t long_id =
      std::min<std::size_t>(run.capabilities.max_id_bytes.value_or(256), 256);
  if (long_id < 2) return;
  for (char last = 'a'; last <= 'z'; ++last) {
    const auto request =
        run.trigger(999, DispatchConversation{.desk_id = std::string(long_id - 1, 'd') + last});
    const auto answer = run.enqueue(request);
    run.require(is_enqueued(answer), std::to_string(long_id) + "-byte desk id ending in '" +
                                         std::string(1, last) + "' got " + describe(answer) +
                                         " (a key cut short?)");
  }
}

void eq21_large_and_adversarial_inputs(Run& run) {
  run.fresh();
  // A declared limit past what a check can sensibly send is tested at the cap instead, and
  // its "one byte over" row is left out (the report says so).
  constexpr std::size_t kContentCap = std::size_t{16} << 20;
  constexpr std::size_t kIdCap = std::size_t{64} << 10;
  const std::size_t content_max =
      std::min(run.capabilities.max_content_bytes.value_or(std::size_t{1} << 20), kContentCap);
  const std::size_t id_max = std::min(run.capabilities.max_id_bytes.value_or(1024), kIdCap);
  const bool content_limit_tested = run.capabilities.max_content_bytes == content_max;
  const bool id_limit_tested = run.capabilities.max_id_bytes == id_max;
  if (run.capabilities.max_content_bytes && !content_limit_tested) {
    run.note(
        "the declared content limit is over 16 MiB; content was sent at 16 MiB and the "
        "limit itself was not probed");
  }
  if (run.capabilities.max_id_bytes && !id_limit_tested) {
    run.note(
        "the declared id limit is over 64 KiB; ids were sent at 64 KiB and the limit "
        "itself was not probed");
  }
  Sequence sequence = 0;
  const auto reply_with = [&](std::string desk, std::string author, std::string content,
                              std::optional<Sequence> at = std::nullopt) {
    const CommittedReply reply{.conversation = {.desk_id = std::move(desk)},
                               .sequence = at ? *at : ++sequence,
                               .author_id = std::move(author),
                               .content = std::move(content),
                               .hop = 0};
    run.harness.commit_reply(reply);
    return reply;
  };
  const auto round_trips = [&](const std::string& what, const MentionTurnRequest& request) {
    const auto answer = run.enqueue(request);
    run.require(is_enqueued(answer), what + ": got " + describe(answer));
    const auto children = run.children_of(request);
    run.require(children.size() == 1 && children[0].request == request,
                what + ": the child is not byte-exact");
  };
  const auto rejected = [&](const std::string& what, const MentionTurnRequest& request) {
    const auto before = run.harness.records().size();
    const auto answer = run.enqueue(request);
    run.require(!answer && answer.error().kind == QueueErrorKind::InvalidRequest,
                what + ": got " + describe(answer) + ", not invalid_request");
    run.require(run.harness.records().size() == before, what + ": the store changed");
  };
  if (id_max < 2 || content_max < 1)
    throw Failed{"the declared limits are too small to store a request"};
  const std::string long_id(id_max, 'x');
  run.harness.set_available(long_id, true);
  // Content at the limit twice: one byte repeated, and bytes from the seeded generator that
  // no store can compress (an index or page that fits the first may not fit the second).
  round_trips("content at the limit",
              request_for(reply_with("eng", kSource, std::string(content_max, 'c'))));
  std::string noise(content_max, '\0');
  for (char& byte : noise) byte = static_cast<char>(run.random() & 0xff);
  round_trips("incompressible content at the limit",
              request_for(reply_with("eng", kSource, noise)));
  round_trips("source id at the limit", request_for(reply_with("eng", long_id, "@bob hi")));
  round_trips("target id at the limit", request_for(reply_with("eng", kSource, "@x hi"), long_id));
  const Sequence shared = sequence + 1;  // both long desks under one sequence: a cut key collides
  round_trips("desk id at the limit", request_for(reply_with(long_id, kSource, "@bob hi", shared)));
  round_trips(
      "a second desk id at the limit",
      request_for(reply_with(std::string(id_max - 1, 'x') + "y", kSource, "@bob hi", shared)));
  sequence = shared;
  const std::string nul("a\0b", 3);
  const std::string invalid_utf8 = "\xff\xfe\xc3(";
  const std::string sql = "'); DROP TABLE child_turns; --";
  run.harness.set_available(nul, true);
  run.harness.set_available(sql, true);
  round_trips("NUL bytes",
              request_for(reply_with("eng" + nul, kSource + nul, "x" + nul + "y"), nul));
  round_trips("invalid UTF-8",
              request_for(reply_with("eng" + invalid_utf8, kSource, invalid_utf8)));
  round_trips("SQL metacharacters", request_for(reply_with(sql, sql, sql), sql));
  if (!run.capabilities.max_content_bytes || !run.capabilities.max_id_bytes) {
    run.note(
        "no input one byte over a limit: the harness declares no `max_content_bytes` or "
        "`max_id_bytes` for the one it lacks");
  }
  if (content_limit_tested) {
    rejected("content one byte over the limit",
             request_for(reply_with("eng", kSource, std::string(content_max + 1, 'c'))));
  }
  if (id_limit_tested) {
    const std::string over(id_max + 1, 'x');
    run.harness.set_available(over, true);
    rejected("source id one byte over the limit", request_for(reply_with("eng", over, "@bob hi")));
    rejected("target id one byte over the limit",
             request_for(reply_with("eng", kSource, "@x hi"), over));
    rejected("desk id one byte over the limit", request_for(reply_with(over, kSource, "@bob hi")));
  }
}

void eq22_record_outlives_child(Run& run) {
  run.fresh();
  Sequence sequence = 0;
  for (const auto how :
       {Settlement::Complete, Settlement::Fail, Settlement::DeadLetter, Settlement::Delete}) {
    const auto request = run.trigger(++sequence);
    const auto answer = run.enqueue(request);
    run.require(is_enqueued(answer), "the first call got " + describe(answer));
    const auto children = run.children_of(request);
    run.require(children.size() == 1, "the key does not have exactly one child");
    run.harness.settle(children[0].id, how);
    run.harness.run_maintenance();
    const auto again = run.enqueue(request);
    static constexpr std::array kHow{"completed", "failed", "dead-lettered", "deleted"};
    run.require(is_already(again), std::string("after the child was ") +
                                       kHow[static_cast<std::size_t>(how)] +
                                       " and maintenance ran, a re-enqueue got " + describe(again));
  }
  // The audit would count settled-and-pruned children as lost; EQ-22 removes them on purpose.
  run.forget();
}

// ---- F. durability, capabilities, the model -------------------------------------------------

void eq23_crash_and_restart(Run& run) {
  if (!run.capabilities.persistent) {
    throw Skipped{
        "the store is not persistent (capability `persistent`): nothing in it is meant "
        "to survive the host process"};
  }
  run.fresh();
  const auto acknowledged = run.trigger(1);
  run.step("a host process killed after its answer, then the store restarted and reopened");
  const auto answer = run.harness.enqueue_then_kill(acknowledged, KillPoint::AfterAnswer);
  run.require(answer.has_value(), "the process killed after answering reported no answer");
  run.tally(acknowledged, *answer);
  run.require(is_enqueued(*answer), "the killed process's enqueue got " + describe(*answer));
  run.require(run.children_of(acknowledged).size() == 1,
              "the acknowledged child is gone after the kill and restart");
  run.require(run.harness.records().size() == 1,
              "the acknowledged idempotency record is gone after the kill and restart");
  const auto replay = run.enqueue(acknowledged);
  run.require(is_already(replay), "after the restart a re-enqueue got " + describe(replay));

  const auto interrupted = run.trigger(2);
  run.forget_session();  // the next kill may restart the server under it
  std::optional<Answer> none;
  try {
    run.step("a host process killed inside its transaction, then the store reopened");
    none = run.harness.enqueue_then_kill(interrupted, KillPoint::InsideTransaction);
  } catch (const Unsupported&) {
    run.note(
        "the harness cannot kill a process inside its transaction, so a half-written "
        "step after a crash was not tested");
    return;
  }
  run.require(!none.has_value(), "the process killed inside its transaction reported an answer");
  run.require(run.children_of(interrupted).empty(),
              "a child exists for an enqueue killed inside its transaction");
  run.require(run.harness.records().size() == 1,
              "an idempotency record exists for an enqueue killed inside its transaction");
  const auto retry = run.enqueue(interrupted);
  run.require(is_enqueued(retry), "the retry after the kill got " + describe(retry));
}

// Runs `operation`, which must throw `Unsupported` because `capability` is not declared.
void require_unsupported(Run& run, const std::string& operation, const std::string& capability,
                         const std::function<void()>& attempt) {
  try {
    attempt();
  } catch (const Unsupported&) {
    return;
  } catch (const std::exception& e) {
    run.require(false, operation + " threw \"" + e.what() + "\" instead of Unsupported, with `" +
                           capability + "` not declared");
  }
  run.require(false, operation + " worked although `" + capability +
                         "` is not declared: declare it, or make it throw Unsupported");
}

// Each declared capability does what it says; each undeclared one reports `Unsupported`
// rather than silently doing nothing (Dapr's two-way rule).
void eq24_capabilities_match_behaviour(Run& run) {
  const Capabilities& caps = run.capabilities;
  // Capabilities that qualify leases prove nothing without them: EQ-14, 15 and 27 would be
  // skipped for want of `leases`, and the declaration would read as proven.
  for (const auto& [declared, qualifier] :
       {std::pair{caps.skewable_client_clock, "skewable_client_clock"},
        std::pair{caps.hold_child, "hold_child"}}) {
    run.require(!declared || caps.leases, "`" + std::string(qualifier) +
                                              "` is declared without `leases`, the checks of "
                                              "which it qualifies");
  }
  if (caps.max_sessions) {
    run.require(*caps.max_sessions >= 2,
                "`max_sessions` is " + std::to_string(*caps.max_sessions) +
                    ": a queue is called from many threads at once, and the suite needs two "
                    "sessions at a time at the least");
  }

  run.fresh();
  const auto request = run.trigger(1);
  if (caps.hooks) {
    auto seen = std::make_shared<std::vector<HookPoint>>();
    auto mutex = std::make_shared<std::mutex>();
    run.harness.set_hook([seen, mutex](HookPoint at, const MentionTurnRequest&) {
      const std::scoped_lock lock(*mutex);
      seen->push_back(at);
      return true;
    });
    const auto answer = run.enqueue(request);
    run.harness.set_hook({});
    run.require(is_enqueued(answer), "the hooked enqueue got " + describe(answer));
    const std::vector<HookPoint> every(kAllHookPoints.begin(), kAllHookPoints.end());
    run.require(*seen == every,
                "with `hooks` declared, an enqueue did not call the hook once at "
                "each of the six points, in order");
  } else {
    require_unsupported(run, "set_hook", "hooks",
                        [&] { run.harness.set_hook([](HookPoint, const auto&) { return true; }); });
    run.require(is_enqueued(run.enqueue(request)), "the enqueue after set_hook failed");
  }

  if (caps.leases) {
    (void)run.harness.store_now();
    const auto claimed = run.session().claim(30s);
    run.require(claimed && claimed->has_value(), "with `leases` declared, a claim took nothing");
  } else {
    require_unsupported(run, "store_now", "leases", [&] { (void)run.harness.store_now(); });
    require_unsupported(run, "claim", "leases", [&] { (void)run.session().claim(30s); });
    require_unsupported(run, "renew", "leases", [&] { (void)run.session().renew("1.1", 30s); });
    require_unsupported(run, "complete", "leases", [&] { (void)run.session().complete("1.1"); });
    require_unsupported(run, "fail", "leases", [&] { (void)run.session().fail("1.1"); });
  }

  if (caps.hold_child) {
    run.fresh();
    run.require(is_enqueued(run.enqueue(run.trigger(1))), "setting up a child to hold failed");
    (void)run.harness.hold_child(run.harness.children().at(0).id);  // held, then released
  } else {
    require_unsupported(run, "hold_child", "hold_child", [&] { (void)run.harness.hold_child(1); });
  }

  if (caps.injected_store_clock) {
    run.require(caps.leases,
                "`injected_store_clock` is declared without `leases`, whose "
                "`store_now` it needs");
    const StoreTime before = run.harness.store_now();
    run.harness.advance_store_clock(90s);
    run.require(run.harness.store_now() == before + 90s,
                "with `injected_store_clock` declared, advancing it by 90 s did not move "
                "store_now by exactly 90 s");
  } else {
    require_unsupported(run, "advance_store_clock", "injected_store_clock",
                        [&] { run.harness.advance_store_clock(90s); });
  }

  if (caps.persistent) {
    run.forget_session();
    run.harness.reopen();
    run.require(run.children_of(request).size() == 1,
                "with `persistent` declared, a child is gone after reopening the store");
  } else {
    run.forget_session();
    require_unsupported(run, "reopen", "persistent", [&] { run.harness.reopen(); });
    require_unsupported(run, "enqueue_then_kill", "persistent", [&] {
      (void)run.harness.enqueue_then_kill(request, KillPoint::AfterAnswer);
    });
  }

  if (caps.sql_schema) {
    // Declared, the inspection must work; what it finds (even no index) is EQ-04's to judge.
    try {
      (void)run.harness.unique_key_index();
    } catch (const Unsupported&) {
      run.require(false, "`sql_schema` is declared, but unique_key_index is unsupported");
    }
  } else {
    std::optional<Harness::UniqueIndex> index;
    try {
      index = run.harness.unique_key_index();
    } catch (const Unsupported&) {
    }
    run.require(!index.has_value(),
                "unique_key_index reports an index although `sql_schema` is not declared");
  }
}

void eq25_model_based(Run& run) {
  run.step("running random command sequences against the harness and the model");
  auto outcome = detail::check_against_model(run.harness, run.options);
  run.counts = outcome.counts;
  if (outcome.skipped) throw Skipped{*outcome.skipped};
  if (outcome.failed) throw Failed{*outcome.failed};
  if (!outcome.note.empty()) run.note(std::move(outcome.note));
}

template <void (*Body)(Run&)>
CheckReport run_body(Harness& harness, const Options& options);

constexpr Check kChecks[] = {
    {"EQ-01", "N-way race on one key", run_body<eq01_race_on_one_key>},
    {"EQ-02", "pause the first caller before commit",
     run_body<eq02_pause_first_caller_before_commit>},
    {"EQ-03", "first caller rolls back while the second waits",
     run_body<eq03_first_caller_rolls_back>},
    {"EQ-04", "the decision rests on a unique constraint", run_body<eq04_unique_constraint>},
    {"EQ-05", "correct answer on replay", run_body<eq05_answer_on_replay>},
    {"EQ-06", "indeterminate outcome, then retry", run_body<eq06_indeterminate_then_retry>},
    {"EQ-07", "accounting across many keys and callers", run_body<eq07_accounting>},
    {"EQ-08", "forced rollback leaves nothing", run_body<eq08_forced_rollback_leaves_nothing>},
    {"EQ-09", "Refused leaves nothing and is evaluated again",
     run_body<eq09_refused_leaves_nothing>},
    {"EQ-10", "the session works after Already, Refused and an error",
     run_body<eq10_session_survives_every_answer>},
    {"EQ-11", "mismatches against the stored reply", run_body<eq11_mismatch_matrix>},
    {"EQ-12", "policy checked inside the transaction",
     run_body<eq12_policy_inside_the_transaction>},
    {"EQ-13", "stored reply edited concurrently", run_body<eq13_stored_reply_edited_concurrently>},
    {"EQ-14", "lease expiry computed by the store", run_body<eq14_expiry_computed_by_the_store>},
    {"EQ-15", "no stolen leases and no starvation under skew",
     run_body<eq15_no_stolen_lease_no_starvation>},
    {"EQ-16", "the lease API takes durations", run_body<eq16_lease_api_takes_durations>},
    {"EQ-17", "statement time vs transaction time", run_body<eq17_statement_time>},
    {"EQ-18", "attempts visible and counted by the claim", run_body<eq18_attempts_visible>},
    {"EQ-19", "concurrent claimers", run_body<eq19_concurrent_claimers>},
    {"EQ-20", "canonical keys", run_body<eq20_canonical_keys>},
    {"EQ-21", "large and adversarial inputs", run_body<eq21_large_and_adversarial_inputs>},
    {"EQ-22", "the idempotency record outlives the child", run_body<eq22_record_outlives_child>},
    {"EQ-23", "crash and restart durability", run_body<eq23_crash_and_restart>},
    {"EQ-24", "capabilities match behaviour", run_body<eq24_capabilities_match_behaviour>},
    {"EQ-25", "random command sequences agree with the model queue", run_body<eq25_model_based>},
    {"EQ-26", "a lease's token is refused once the lease has ended",
     run_body<eq26_stale_tokens_refused>},
    {"EQ-27", "claims respect a row another transaction holds",
     run_body<eq27_claims_respect_a_held_row>},
};

// Each check's own seed: the run's seed mixed with an FNV-1a hash of the check id, the same
// on every standard library, so a reported seed replays anywhere.
std::uint64_t seed_for(std::string_view id, std::uint64_t seed) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : id) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return seed ^ hash;
}

const Check* find(std::string_view id) {
  for (const Check& check : kChecks) {
    if (check.id == id) return &check;
  }
  return nullptr;
}

template <void (*Body)(Run&)>
CheckReport run_body(Harness& harness, const Options& options) {
  // The id is filled in by run_check; the body only needs the seed derived from it.
  CheckReport report;
  report.seed = options.seed;
  std::optional<Run> run;
  try {
    run.emplace(harness, options, options.seed);
    Body(*run);
    run->finish();
    report.verdict = Verdict::Pass;
    report.reason = run->notes;
  } catch (const Failed& failed) {
    report.verdict = Verdict::Fail;
    report.reason = failed.reason;
    run->count_after_failure();
  } catch (const Skipped& skipped) {
    report.verdict = Verdict::Skip;
    report.reason = skipped.reason;
  } catch (const std::exception& e) {
    report.verdict = Verdict::Fail;
    report.reason = std::string("harness error: ") + e.what();
  } catch (...) {
    report.verdict = Verdict::Fail;
    report.reason = "harness error: an exception that is not a std::exception";
  }
  if (run) report.counts = run->counts;
  // A check may stop half-way: leave no hook and no skewed client clock (which may refer to
  // the finished run) behind for the next one.
  try {
    harness.set_hook({});
  } catch (...) {  // a harness without hooks may refuse; nothing to undo then
  }
  try {
    harness.set_client_clock({});
  } catch (...) {
  }
  return report;
}

}  // namespace

std::string_view name(Verdict verdict) noexcept {
  switch (verdict) {
    case Verdict::Pass:
      return "pass";
    case Verdict::Fail:
      return "fail";
    case Verdict::Skip:
      return "skip";
  }
  return "fail";
}

std::span<const Check> checks() noexcept { return kChecks; }

CheckReport run_check(std::string_view id, Harness& harness, const Options& options) {
  const Check* check = find(id);
  if (check == nullptr) {
    return {.id = std::string(id),
            .verdict = Verdict::Fail,
            .reason = "no check with this id",
            .seed = options.seed};
  }
  if (options.repeat < 1) {
    return {
        .id = std::string(id),
        .title = std::string(check->title),
        .verdict = Verdict::Fail,
        .reason = "options.repeat is " + std::to_string(options.repeat) + "; it must be at least 1",
        .seed = options.seed};
  }
  Options seeded = options;
  seeded.seed = seed_for(id, options.seed);
  Watch watch;
  Watch* const outer = std::exchange(t_watch, &watch);
  CheckReport report;
  {
    const Watchdog watchdog(*check, options, watch);
    report = check->run(harness, seeded);
  }
  t_watch = outer;
  report.id = std::string(check->id);
  report.title = std::string(check->title);
  report.seed = options.seed;
  return report;
}

std::vector<CheckReport> run_suite(Harness& harness, const Options& options,
                                   const std::function<void(const CheckReport&)>& progress) {
  std::vector<CheckReport> reports;
  for (const Check& check : kChecks) {
    reports.push_back(run_check(check.id, harness, options));
    if (progress) progress(reports.back());
  }
  return reports;
}

bool left_unproven(const CheckReport& report) noexcept {
  return report.verdict == Verdict::Skip ||
         (report.verdict == Verdict::Pass && !report.reason.empty());
}

bool passed(std::span<const CheckReport> reports) noexcept {
  return std::none_of(reports.begin(), reports.end(),
                      [](const CheckReport& r) { return r.verdict == Verdict::Fail; });
}

}  // namespace thm::conformance
