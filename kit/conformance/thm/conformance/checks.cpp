// The checks of queue-conformance.md §6, EQ-01…EQ-35 (EQ-25's body lives in
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

#include "thm/conformance/checks/bodies.hpp"
#include "thm/conformance/checks/recording.hpp"
#include "thm/conformance/checks/run.hpp"
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

using namespace checking;

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

template <void (*Body)(Run&)>
CheckRun run_body(Harness& harness, const Options& options);

constexpr Check kChecks[] = {
    {"EQ-01", "of N callers racing on one key, exactly one is admitted",
     run_body<eq01_race_on_one_key>},
    {"EQ-02", "a duplicate waits for the open step before it answers",
     run_body<eq02_pause_first_caller_before_commit>},
    {"EQ-03", "a waiting duplicate is admitted when the first step rolls back",
     run_body<eq03_first_caller_rolls_back>},
    {"EQ-04", "the decision rests on a unique constraint", run_body<eq04_unique_constraint>},
    {"EQ-05", "a replay answers Already, also after the store reopens",
     run_body<eq05_answer_on_replay>},
    {"EQ-06", "a failure before or after commit is an error, and the retry settles the key",
     run_body<eq06_indeterminate_then_retry>},
    {"EQ-07", "nothing lost or doubled across many keys, callers and faults",
     run_body<eq07_accounting>},
    {"EQ-08", "forced rollback leaves nothing", run_body<eq08_forced_rollback_leaves_nothing>},
    {"EQ-09", "Refused leaves nothing and is evaluated again",
     run_body<eq09_refused_leaves_nothing>},
    {"EQ-10", "the session works after Already, Refused and an error",
     run_body<eq10_session_survives_every_answer>},
    {"EQ-11", "a request that differs from its stored reply is an error and writes nothing",
     run_body<eq11_mismatch_matrix>},
    {"EQ-12", "the live policy is read inside the transaction",
     run_body<eq12_policy_inside_the_transaction>},
    {"EQ-13", "a reply edited while a step runs never reaches a child",
     run_body<eq13_stored_reply_edited_concurrently>},
    {"EQ-14", "lease expiry computed by the store", run_body<eq14_expiry_computed_by_the_store>},
    {"EQ-15", "no stolen leases and no starvation under skew",
     run_body<eq15_no_stolen_lease_no_starvation>},
    {"EQ-16", "the lease API takes durations", run_body<eq16_lease_api_takes_durations>},
    {"EQ-17", "statement time vs transaction time", run_body<eq17_statement_time>},
    {"EQ-18", "attempts visible and counted by the claim", run_body<eq18_attempts_visible>},
    {"EQ-19", "of concurrent claimers, one holds the lease at a time",
     run_body<eq19_concurrent_claimers>},
    {"EQ-20", "keys are canonical: aliases fold together, look-alikes stay apart",
     run_body<eq20_canonical_keys>},
    {"EQ-21", "inputs up to the limits are kept byte for byte, one over is refused",
     run_body<eq21_large_and_adversarial_inputs>},
    {"EQ-22", "the idempotency record outlives the child", run_body<eq22_record_outlives_child>},
    {"EQ-23", "an acknowledged enqueue survives a crash and a restart",
     run_body<eq23_crash_and_restart>},
    {"EQ-24", "capabilities match behaviour", run_body<eq24_capabilities_match_behaviour>},
    {"EQ-25", "random command sequences agree with the model queue", run_body<eq25_model_based>},
    {"EQ-26", "a lease's token is refused once the lease has ended",
     run_body<eq26_stale_tokens_refused>},
    {"EQ-27", "claims respect a row another transaction holds",
     run_body<eq27_claims_respect_a_held_row>},
    {"EQ-28", "no acknowledged enqueue is lost when the leader is killed",
     run_body<eq28_leader_killed>},
    {"EQ-29", "no acknowledged enqueue is lost when a follower is killed",
     run_body<eq29_follower_killed>},
    {"EQ-30", "no acknowledged enqueue is lost when the leader is paused past its election timeout",
     run_body<eq30_leader_paused>},
    {"EQ-31", "a replay while the child is claimed, runs, failed or was reclaimed answers Already",
     run_body<eq31_replay_while_leased>},
    {"EQ-32", "renew, complete and fail stamp and judge leases on the store's clock",
     run_body<eq32_lease_operations_on_the_store_clock>},
    {"EQ-33", "an error's kind agrees with what the store holds",
     run_body<eq33_error_kinds_match_the_store>},
    {"EQ-34", "keys and compared values exact across their range (u64 extremes, long values)",
     run_body<eq34_input_domain>},
    {"EQ-35", "concurrent enqueues, claims and settlements agree with one order in real time",
     run_body<eq35_concurrent_calls_linearizable>},
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
CheckRun run_body(Harness& harness, const Options& options) {
  // The id is filled in by run_check; the body only needs the seed derived from it.
  CheckRun report;
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
    if (Clocks* clocks = harness.clocks()) clocks->set_client_clock({});
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

std::string_view name(HistoryEvent::Kind kind) noexcept {
  switch (kind) {
    case HistoryEvent::Kind::Call:
      return "call";
    case HistoryEvent::Kind::Pause:
      return "pause";
    case HistoryEvent::Kind::Harness:
      return "harness";
  }
  return "call";
}

std::span<const Check> checks() noexcept { return kChecks; }

CheckRun run_check(std::string_view id, Harness& harness, const Options& options) {
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
  CheckRun report;
  Recording recording(harness);
  {
    const Watchdog watchdog(*check, options, watch);
    report = check->run(recording, seeded);
  }
  // The calls must be linearizable too: a check whose own assertions held fails when no
  // order of its calls explains their answers (queue-conformance.md §9).
  const auto& violation = recording.violation();
  if (violation && report.verdict != Verdict::Fail) {
    report.verdict = Verdict::Fail;
    report.reason = violation->reason;
    report.history = violation->events;
  } else {
    report.history = recording.history().events();
    report.history_dropped = recording.history().dropped();
  }
  if (const std::string note = recording.unjudged();
      !note.empty() && report.verdict == Verdict::Pass) {
    report.reason += (report.reason.empty() ? "" : "; ") + note;
  }
  t_watch = outer;
  report.id = std::string(check->id);
  report.title = std::string(check->title);
  report.seed = options.seed;
  return report;
}

bool left_unproven(const CheckRun& report) noexcept {
  return report.verdict == Verdict::Skip ||
         (report.verdict == Verdict::Pass && !report.reason.empty());
}

bool passed(std::span<const CheckRun> reports) noexcept {
  return std::none_of(reports.begin(), reports.end(),
                      [](const CheckRun& r) { return r.verdict == Verdict::Fail; });
}

}  // namespace thm::conformance
