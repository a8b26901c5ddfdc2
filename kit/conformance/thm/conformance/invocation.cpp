#include "thm/conformance/invocation.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "thm/conformance/requirements.hpp"

namespace thm::conformance {
namespace {

// Says, every `interval` while a check runs, that it is still running: a long check (EQ-25,
// or any check through a slow adapter) is never silent.
class Heartbeat {
 public:
  Heartbeat(Progress& progress, std::mutex& lock, std::string label,
            std::chrono::seconds interval = std::chrono::seconds(10))
      : thread_([&progress, &lock, label = std::move(label),
                 interval](const std::stop_token& stop) {
          std::mutex mutex;
          std::condition_variable_any never;
          std::unique_lock wait(mutex);
          for (auto elapsed = interval; !never.wait_for(wait, stop, interval, [] { return false; });
               elapsed += interval) {
            if (stop.stop_requested()) return;
            const std::scoped_lock write(lock);
            progress.still_running(label, elapsed);
          }
        }) {}

 private:
  std::jthread thread_;
};

bool known_check(std::string_view id) {
  return std::ranges::any_of(checks(), [&](const Check& check) { return check.id == id; });
}

std::string title_of(std::string_view id) {
  for (const Check& check : checks()) {
    if (check.id == id) return std::string(check.title);
  }
  return {};
}

// Folds one more run of a check into its total.
void accumulate(CheckRun& total, const CheckRun& run) {
  auto& t = total.counts;
  const auto& r = run.counts;
  t.attempts += r.attempts;
  t.enqueued += r.enqueued;
  t.already += r.already;
  t.refused += r.refused;
  t.errors += r.errors;
  t.indeterminate += r.indeterminate;
  t.children += r.children;
  t.lost += r.lost;
  t.duplicated += r.duplicated;
  t.unexpected += r.unexpected;
  t.faults += r.faults;
  t.outage_ms = std::max(t.outage_ms, r.outage_ms);
  if (run.verdict == Verdict::Fail && total.verdict != Verdict::Fail) {
    total.verdict = Verdict::Fail;
    total.reason = run.reason;
    total.seed = run.seed;
  }
}

// Marks check `id`, the `i`th, failed with `reason` (a stall, a signal): a row that says so,
// so that no summary reads as a finished, green run.
void cut_short(std::vector<CheckResult>& results, std::size_t i, const std::string& id,
               const std::string& reason, std::uint64_t seed) {
  if (i >= results.size()) results.push_back({.total = {.id = id, .title = title_of(id)}});
  CheckRun& total = results[i].total;
  total.verdict = Verdict::Fail;
  total.reason = reason;
  total.seed = seed;
}

std::uint64_t millis_since(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now() - start)
                                        .count());
}

// The invocation's state while it runs: what the watchdog's stall handler needs as well.
struct Running {
  Running(const Invocation& what, Progress& told)
      : invocation(what), ids(checks_of(what)), progress(told) {}

  const Invocation& invocation;
  const std::vector<std::string> ids;
  Progress& progress;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  InvocationResult result{};
  std::atomic<std::size_t> check = 0;  // the index in `ids` of the check that runs
  std::mutex lock;  // progress is told from the heartbeat and watchdog threads too
};

// The label of check `i` in run `k`: its id, after `run k/n` when there are several runs.
std::string label_of(const Running& state, int k, std::size_t i) {
  const int runs = state.invocation.runs;
  return (runs > 1 ? "run " + std::to_string(k + 1) + "/" + std::to_string(runs) + "  " : "") +
         state.ids[i];
}

// One run of check `i`, told to `progress` as it starts; the run and how long it took.
std::pair<CheckRun, std::uint64_t> run_one(Harness& harness, Running& state, const Options& options,
                                           const std::string& label, std::size_t i) {
  {
    const std::scoped_lock write(state.lock);
    state.progress.started(label);
  }
  const auto started = std::chrono::steady_clock::now();
  CheckRun run = [&] {
    const Heartbeat heartbeat(state.progress, state.lock, label);
    return run_check(state.ids[i], harness, options);
  }();
  if (auto unmet = unmet_requirement(run, state.invocation.require, state.invocation.require_by)) {
    run.verdict = Verdict::Fail;
    run.reason = *std::move(unmet);
  }
  return {std::move(run), millis_since(started)};
}

// Run `k` of check `i`, told to `progress` as finished and folded into its result.
void record(Running& state, int k, std::size_t i, const std::string& label, CheckRun run,
            std::uint64_t took_ms) {
  const std::scoped_lock write(state.lock);
  state.progress.finished(label, run, static_cast<double>(took_ms) / 1000.0);
  auto& results = state.result.results;
  if (k == 0) {
    results.push_back({.total = run});
  } else {
    accumulate(results[i].total, run);
  }
  results[i].runs.push_back(std::move(run));
  results[i].run_ms.push_back(took_ms);
}

// Whether `stop` took a signal; the check `i` it cut short then fails, saying so.
bool interrupted(Running& state, const SignalStop* stop, std::size_t i, std::uint64_t seed) {
  if (stop == nullptr || stop->signal() == 0) return false;
  state.result.signal = stop->signal();
  state.result.interrupted_in = state.ids[i];
  cut_short(state.result.results, i, state.ids[i],
            std::string("interrupted by ") +
                (state.result.signal == SIGINT ? "SIGINT" : "SIGTERM") +
                " before it finished; the checks after it did not run",
            seed);
  return true;
}

}  // namespace

std::optional<std::string> invalid(const Invocation& invocation) {
  for (const auto& id : invocation.checks) {
    if (known_check(id)) continue;
    std::string message = "no check '" + id + "'";
    std::string upper = id;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper != id && known_check(upper)) message += " (did you mean '" + upper + "'?)";
    message += "; the checks are ";
    const auto all = checks();
    for (std::size_t i = 0; i < all.size(); ++i) {
      message += (i == 0 ? "" : ", ") + std::string(all[i].id);
    }
    return message;
  }
  if (invocation.runs < 1 || invocation.repeat < 1) {
    return std::string("runs and repeat must be at least 1");
  }
  return std::nullopt;
}

std::vector<std::string> checks_of(const Invocation& invocation) {
  std::vector<std::string> ids;
  if (invocation.checks.empty()) {
    for (const Check& check : checks()) ids.emplace_back(check.id);
    return ids;
  }
  // A check named twice runs once: the table and the reports hold one row per check.
  for (const auto& id : invocation.checks) {
    if (std::ranges::find(ids, id) == ids.end()) ids.push_back(id);
  }
  return ids;
}

SignalStop::SignalStop(std::function<void()> on_first, std::string stopping)
    : on_first_(std::move(on_first)), stopping_(std::move(stopping)) {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  watcher_ = std::jthread([this](const std::stop_token& stop) { watch(stop); });
}

SignalStop::~SignalStop() {
  watcher_.request_stop();
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int SignalStop::signal() const { return signal_.load(); }

void SignalStop::watch(const std::stop_token& stop) {
  const timespec tick{.tv_sec = 0, .tv_nsec = 50'000'000};
  while (!stop.stop_requested()) {
    const int got = ::sigtimedwait(&signals_, nullptr, &tick);
    if (got <= 0) continue;
    if (signal_.exchange(got) != 0) std::_Exit(128 + got);  // the second one
    if (on_first_) on_first_();
    // Said at once: an in-process queue's check cannot be cut short, and may run a while.
    (void)!::write(STDERR_FILENO, stopping_.data(), stopping_.size());
  }
}

std::vector<CheckRun> InvocationResult::totals() const {
  std::vector<CheckRun> out;
  out.reserve(results.size());
  for (const auto& result : results) out.push_back(result.total);
  return out;
}

bool InvocationResult::passed() const {
  return std::ranges::none_of(
      results, [](const CheckResult& result) { return result.total.verdict == Verdict::Fail; });
}

InvocationResult run_invocation(Harness& harness, const Invocation& invocation, Progress& progress,
                                const SignalStop* stop) {
  Running state(invocation, progress);
  for (int k = 0; k < invocation.runs && state.result.signal == 0; ++k) {
    Options options{.seed = invocation.seed + static_cast<std::uint64_t>(k),
                    .repeat = invocation.repeat,
                    .short_mode = invocation.short_mode,
                    .stall = invocation.stall};
    // A stuck check ends the process: what finished comes first, and the stalled check says so.
    options.on_stall = [&state, seed = options.seed](const std::string& message) {
      const std::scoped_lock write(state.lock);
      const std::size_t check = state.check.load();
      cut_short(state.result.results, check, state.ids[check], "stalled: " + message, seed);
      state.result.duration_ms = millis_since(state.started);
      state.progress.stalled(message, state.result);
    };
    for (std::size_t i = 0; i < state.ids.size(); ++i) {
      state.check = i;
      const std::string label = label_of(state, k, i);
      auto [run, took_ms] = run_one(harness, state, options, label, i);
      if (interrupted(state, stop, i, options.seed)) break;
      record(state, k, i, label, std::move(run), took_ms);
    }
  }
  state.result.duration_ms = millis_since(state.started);
  return std::move(state.result);
}

}  // namespace thm::conformance
