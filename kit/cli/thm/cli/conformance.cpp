#include "thm/cli/conformance.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <regex>
#include <stop_token>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "thm/cli/scratch.hpp"
#include "thm/conformance/report.hpp"
#include "thm/conformance/requirements.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"
#include "thm/protocol/exec_harness.hpp"

namespace thm::cli {
namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

// The harness for `queue`; nothing for an unknown name. Throws `std::runtime_error` when
// the named store cannot be used (the message says why).
std::unique_ptr<conformance::Harness> open_queue(const std::string& queue,
                                                 std::chrono::milliseconds exec_timeout) {
  if (queue == "memory") return std::make_unique<memory::MemoryHarness>();
  if (queue.starts_with("exec:") && queue.size() > 5) {
    return std::make_unique<protocol::ExecHarness>(queue.substr(5), exec_timeout);
  }
  if (queue.starts_with("sqlite:") && queue.size() > 7)
    return sqlite_scratch_harness(queue.substr(7));
  if (queue.starts_with("postgres:")) return postgres_scratch_harness(queue.substr(9));
  return nullptr;
}

constexpr const char* kSqliteExample = "sqlite:/tmp/thm-conformance.db";
constexpr const char* kExecExample = "'exec:python3 adapter.py /tmp/queue.db'";

// `text` on one line, without trailing white space or a trailing period (libpq's messages
// end with a newline and may span lines).
std::string trimmed(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && std::isspace(static_cast<unsigned char>(text[i + 1])) != 0) ++i;
    out += "; ";
  }
  while (!out.empty() && (std::isspace(static_cast<unsigned char>(out.back())) != 0 ||
                          out.back() == '.' || out.back() == ';')) {
    out.pop_back();
  }
  return out;
}

// Why a file could not be opened, from `errno`, in lower case (e.g. `permission denied`).
std::string reason_of(int error) {
  if (error == 0) return "it cannot be opened";
  std::string reason = std::generic_category().message(error);
  if (!reason.empty()) {
    reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  }
  return reason;
}

// What kind of file `status` is when it exists and is not a regular file (e.g. `a named
// pipe`); nothing for a regular file, for none at all, or when it could not be looked at.
std::optional<std::string> not_regular(const std::filesystem::file_status& status) {
  using std::filesystem::file_type;
  switch (status.type()) {
    case file_type::none:  // it could not be looked at: SQLite says why when it opens it
    case file_type::not_found:
    case file_type::regular:
      return std::nullopt;
    case file_type::directory:
      return "a directory";
    case file_type::fifo:
      return "a named pipe";
    case file_type::socket:
      return "a socket";
    case file_type::character:
      return "a character device";
    case file_type::block:
      return "a block device";
    default:
      return "a special file";
  }
}

// SIGINT and SIGTERM while a run lasts. Both are blocked in the thread that makes this
// guard, and so in every thread started after it (the harness's own), and taken by
// `sigtimedwait` on a thread of its own: nothing runs in a signal handler. The first one
// ends every exec: adapter's process group (`interrupt_adapters`), so that the check in
// progress fails at once and the run stops after it; a second one ends the process at once.
class Interruption {
 public:
  Interruption() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
    watcher_ = std::jthread([this](const std::stop_token& stop) { watch(stop); });
  }
  ~Interruption() {
    watcher_.request_stop();
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  Interruption(const Interruption&) = delete;
  Interruption& operator=(const Interruption&) = delete;

  // The signal that came, or 0.
  [[nodiscard]] int signal() const { return signal_.load(); }

 private:
  void watch(const std::stop_token& stop) {
    const timespec tick{.tv_sec = 0, .tv_nsec = 50'000'000};
    while (!stop.stop_requested()) {
      const int got = ::sigtimedwait(&signals_, nullptr, &tick);
      if (got <= 0) continue;
      if (signal_.exchange(got) != 0) std::_Exit(128 + got);  // the second one
      protocol::interrupt_adapters();
      // Said at once: an in-process queue's check cannot be cut short, and may run a while.
      constexpr std::string_view kStopping =
          "thm conformance: stopping: the run ends when the check in progress does (an exec: "
          "adapter's, at once); a second signal ends it now\n";
      (void)!::write(STDERR_FILENO, kStopping.data(), kStopping.size());
    }
  }

  sigset_t signals_{};
  sigset_t previous_{};
  std::atomic<int> signal_{0};
  std::jthread watcher_;
};

// What `thm conformance` says when `signal` interrupted the run during `check`, one line.
void say_interrupted(std::ostream& progress, int signal, const std::string& check,
                     const ConformanceRequest& request) {
  progress << "thm conformance: interrupted by " << (signal == SIGINT ? "SIGINT" : "SIGTERM");
  if (check.empty()) {
    progress << " while the queue was opened";
  } else {
    progress << " during " << check
             << "; the table shows it failed, after the checks that "
                "finished before it";
  }
  progress << (request.report_path ? "; the report was not written" : "")
           << (request.queue.starts_with("exec:") ? "; the adapter was killed" : "")
           << "; run it again to finish\n";
}

// Says, every `interval` while a check runs, that it is still running: a long check (EQ-25,
// or any check through a slow adapter) is never silent. Writes under `lock`.
class Heartbeat {
 public:
  Heartbeat(std::ostream& progress, std::mutex& lock, std::string label,
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
            progress << label << "  still running after " << elapsed.count() << " s" << std::endl;
          }
        }) {}

 private:
  std::jthread thread_;
};

// `text` as one shell word: in single quotes unless it needs none.
std::string shell_word(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::strchr("/._-:=,@+", c);
  });
  if (plain) return text;
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The queue as a replay command may show it: a password (`password=…` in a conninfo, or
// `user:…@` in a URI), in a postgres: queue or an exec: command alike, is left out.
std::string shown_queue(const std::string& queue) {
  static const std::regex keyword(R"((password\s*=\s*)('[^']*'|\S+))", std::regex::icase);
  static const std::regex uri(R"((://[^:/@]*:)[^@/]*@)");
  return std::regex_replace(std::regex_replace(queue, keyword, "$1..."), uri, "$1...@");
}

}  // namespace

std::string replay_command(const ConformanceRequest& request) {
  std::string command = "thm conformance --queue " + shell_word(shown_queue(request.queue));
  if (request.short_mode) command += " --short";
  if (request.repeat != ConformanceRequest{}.repeat) {
    command += " --repeat " + std::to_string(request.repeat);
  }
  if (request.exec_timeout != ConformanceRequest{}.exec_timeout) {
    command += " --exec-timeout " +
               std::to_string(
                   std::chrono::duration_cast<std::chrono::seconds>(request.exec_timeout).count());
  }
  if (!request.require.empty()) {
    std::string list;
    for (const auto& capability : request.require) list += (list.empty() ? "" : ",") + capability;
    command += " --require " + list;
  }
  return command;
}

namespace {

// A report file, put in place only when the run completes: the text goes to `PATH.partial`
// beside it and is renamed over PATH at the end, so a run that is interrupted, stalls or
// fails to open another report leaves PATH as it was. A PATH that exists and is no regular
// file (`/dev/null`, a pipe) is written in place and never removed.
class ReportFile {
 public:
  // Opens it before the run, so that an unwritable path is known before a long run; false,
  // with errno set, when it cannot be written.
  bool open(const std::string& path) {
    // A symlink's target is what is replaced, not the link.
    std::error_code resolved;
    const auto target = std::filesystem::weakly_canonical(path, resolved);
    path_ = resolved ? path : target.string();
    std::error_code ignored;
    const auto status = std::filesystem::status(path_, ignored);
    in_place_ = std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
    written_ = in_place_ ? path_ : path_ + ".partial";
    errno = 0;
    file_.open(written_, in_place_ ? std::ios::binary | std::ios::out
                                   : std::ios::binary | std::ios::out | std::ios::trunc);
    return file_.is_open();
  }
  // Drops what was written; PATH stays as it was.
  void abandon() {
    if (!file_.is_open()) return;
    file_.close();
    if (in_place_) return;
    std::error_code ignored;
    std::filesystem::remove(written_, ignored);
  }
  // Writes `text` and puts it in place; false when the write, its flush or the rename failed.
  bool commit(const std::string& text) {
    file_ << text;
    file_.close();  // flushes: a full disk shows up here, not never
    if (!file_) {
      if (!in_place_) {
        std::error_code ignored;
        std::filesystem::remove(written_, ignored);
      }
      return false;
    }
    if (in_place_) return true;
    std::error_code error;
    std::filesystem::rename(written_, path_, error);
    return !error;
  }
  ~ReportFile() { abandon(); }

 private:
  std::string path_;
  std::string written_;
  bool in_place_ = false;
  std::ofstream file_;
};

// Marks check `i` of the table failed with `reason` (a stall, an interruption): a row that
// says so, so that no summary below reads as a finished, green run.
void cut_short(std::vector<conformance::CheckReport>& totals, std::size_t i, const std::string& id,
               const std::string& reason, std::uint64_t seed) {
  if (i >= totals.size()) {
    std::string title;
    for (const auto& check : conformance::checks()) {
      if (check.id == id) title = std::string(check.title);
    }
    totals.push_back({.id = id, .title = title, .seed = seed});
  }
  totals[i].verdict = conformance::Verdict::Fail;
  totals[i].reason = reason;
  totals[i].seed = seed;
}

bool known_check(const std::string& id) {
  for (const auto& check : conformance::checks()) {
    if (check.id == id) return true;
  }
  return false;
}

// Folds one more run's entry into the running total of its check.
void accumulate(conformance::CheckReport& total, const conformance::CheckReport& run) {
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
  if (run.verdict == conformance::Verdict::Fail && total.verdict != conformance::Verdict::Fail) {
    total.verdict = conformance::Verdict::Fail;
    total.reason = run.reason;
    total.seed = run.seed;
  }
}

}  // namespace

int run_conformance(const ConformanceRequest& request, std::ostream& out, std::ostream& progress) {
  // The request is checked before the queue is opened: opening one wipes its thm tables.
  std::vector<std::string> ids = request.only;
  for (const auto& id : ids) {
    if (!known_check(id)) {
      progress << "thm conformance: no check '" << id << "'";
      std::string upper = id;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (upper != id && known_check(upper)) progress << " (did you mean '" << upper << "'?)";
      progress << "; --check takes one of ";
      const auto all = conformance::checks();
      for (std::size_t i = 0; i < all.size(); ++i) progress << (i == 0 ? "" : ", ") << all[i].id;
      progress << "\n";
      return kUsage;
    }
  }
  if (ids.empty()) {
    for (const auto& check : conformance::checks()) ids.emplace_back(check.id);
  }
  // A check named twice runs once: the table and the report hold one row per check.
  std::vector<std::string> once;
  for (auto& id : ids) {
    if (std::find(once.begin(), once.end(), id) == once.end()) once.push_back(std::move(id));
  }
  ids = std::move(once);
  if (request.runs < 1 || request.repeat < 1) {
    progress << "thm conformance: --runs and --repeat must be at least 1\n";
    return kUsage;
  }
  if (request.report_path && request.report_path->empty()) {
    progress << "thm conformance: --report needs a file path\n";
    return kUsage;
  }
  if (request.junit_path && (request.junit_path->empty() || *request.junit_path == "-")) {
    progress << "thm conformance: --junit needs a file path\n";
    return kUsage;
  }
  if (request.html_path && (request.html_path->empty() || *request.html_path == "-")) {
    progress << "thm conformance: --html needs a file path\n";
    return kUsage;
  }
  {
    // Two reports in one file would be neither.
    const std::vector<std::pair<std::string_view, const std::optional<std::string>*>> paths{
        {"--report", &request.report_path},
        {"--junit", &request.junit_path},
        {"--html", &request.html_path}};
    const auto same = [](const std::string& a, const std::string& b) {
      std::error_code a_error;
      std::error_code b_error;
      const auto a_path = std::filesystem::weakly_canonical(a, a_error);
      const auto b_path = std::filesystem::weakly_canonical(b, b_error);
      return a_error || b_error ? a == b : a_path == b_path;
    };
    for (std::size_t i = 0; i < paths.size(); ++i) {
      for (std::size_t j = i + 1; j < paths.size(); ++j) {
        const auto& a = *paths[i].second;
        const auto& b = *paths[j].second;
        if (a && b && *a != "-" && same(*a, *b)) {
          progress << "thm conformance: " << paths[i].first << " and " << paths[j].first
                   << " name the same file; give each its own\n";
          return kUsage;
        }
      }
    }
  }
  if (request.queue == "exec:") {
    progress << "thm conformance: --queue exec: needs the adapter's command, e.g. " << kExecExample
             << "\n";
    return kUsage;
  }
  if (request.queue == "sqlite:") {
    progress << "thm conformance: --queue sqlite: needs a file path, e.g. " << kSqliteExample
             << "\n";
    return kUsage;
  }

  if (request.queue.starts_with("sqlite:")) {
    // Opening a named pipe would block for good: refuse what is not a regular file first.
    const std::string path = request.queue.substr(7);
    std::error_code ignored;
    if (const auto kind = not_regular(std::filesystem::status(path, ignored))) {
      progress << "thm conformance: cannot use '" << path << "' as the SQLite database: it is "
               << *kind
               << ", not a regular file; --queue sqlite:PATH takes a regular file: a new one, an "
                  "empty one, or one an earlier run made\n";
      return kUsage;
    }
  }

  // Made before the harness, so that its threads inherit the blocked signals, and ended
  // after it.
  const Interruption interruption;
  std::unique_ptr<conformance::Harness> harness;
  try {
    harness = open_queue(request.queue, request.exec_timeout);
  } catch (const std::exception& e) {
    if (const int signal = interruption.signal(); signal != 0) {
      say_interrupted(progress, signal, "", request);
      return 128 + signal;
    }
    // The message never quotes a conninfo: it may hold a password.
    const std::string kind = request.queue.substr(0, request.queue.find(':'));
    progress << "thm conformance: cannot open the " << kind << " queue: " << trimmed(e.what())
             << "\n";
    return kUsage;
  }
  if (!harness) {
    progress << "thm conformance: unknown queue '" << request.queue
             << "'; --queue takes memory, sqlite:PATH (e.g. " << kSqliteExample
             << "), postgres:CONNINFO (e.g. postgres:dbname=thm_scratch; postgres: alone uses "
                "the PG* variables) or exec:COMMAND (e.g. "
             << kExecExample << ")\n";
    return kUsage;
  }

  if (!request.require.empty()) {
    std::string missing;
    try {
      missing = conformance::undeclared(harness->capabilities(), request.require);
    } catch (const std::exception& e) {
      progress << "thm conformance: the queue's capabilities cannot be read: " << trimmed(e.what())
               << "\n";
      return kUsage;
    }
    if (!missing.empty()) {
      progress << "thm conformance: --require names " << missing << ", which queue "
               << harness->name() << " does not declare, so it cannot prove it; no check was run ("
               << (request.queue.starts_with("exec:") &&
                           missing.find("`hold_child`") != std::string::npos
                       ? "protocol v1 cannot carry `hold_child`, so no exec: adapter declares it; "
                       : "")
               << "declare it in the queue's capabilities, or drop it from --require)\n";
      return kFailed;
    }
  }

  // `--report -` is stdout: the JSON goes to `out` alone, so that it stays parseable, and
  // the table moves to `progress`.
  const bool report_to_out = request.report_path == "-";
  std::ostream& table = report_to_out ? progress : out;

  const auto opened = [&](ReportFile& file, const std::string& path, std::string_view what,
                          std::string_view option) {
    if (file.open(path)) return true;
    progress << "thm conformance: cannot write the " << what << " to '" << path
             << "': " << reason_of(errno) << "; " << option
             << " takes a file in a directory that exists and is writable\n";
    return false;
  };
  ReportFile report_file;
  if (request.report_path && !report_to_out &&
      !opened(report_file, *request.report_path, "report", "--report")) {
    return kUsage;
  }
  ReportFile junit_file;
  if (request.junit_path && !opened(junit_file, *request.junit_path, "JUnit report", "--junit")) {
    return kUsage;  // the report file opened above is dropped: its path stays as it was
  }
  ReportFile html_file;
  if (request.html_path && !opened(html_file, *request.html_path, "HTML report", "--html")) {
    return kUsage;  // as above
  }
  // A partial report would read as a whole one: what was written is dropped.
  const auto remove_reports = [&] {
    report_file.abandon();
    junit_file.abandon();
    html_file.abandon();
  };

  std::vector<conformance::CheckReport> totals;
  std::vector<conformance::CheckRecord> records;  // each check's runs, beside its total
  std::string interrupted_in;  // the check a signal cut short: a failed row in the table
  std::size_t running = 0;     // the index in `ids` of the check that runs
  std::mutex writing;          // progress lines come from the heartbeat and watchdog threads too
  const std::string replay = replay_command(request);
  const auto started = std::chrono::steady_clock::now();
  for (int k = 0; k < request.runs && interrupted_in.empty(); ++k) {
    conformance::Options options{.seed = request.seed + static_cast<std::uint64_t>(k),
                                 .repeat = request.repeat,
                                 .short_mode = request.short_mode};
    // A stuck check ends the process: the table so far comes first, and no half report stays.
    options.on_stall = [&](const std::string& message) {
      const std::scoped_lock write(writing);
      table << "queue " << harness->name() << ", stopped in run " << k + 1 << " from seed "
            << request.seed << ", repeat " << request.repeat
            << (request.short_mode ? ", short" : "") << "\n";
      cut_short(totals, running, ids[running], "stalled: " + message, options.seed);
      conformance::print_table(table, totals, replay);
      table.flush();
      progress << "thm conformance: " << message << "\n";
      progress.flush();
      remove_reports();
    };
    for (std::size_t i = 0; i < ids.size(); ++i) {
      running = i;
      const auto check_started = std::chrono::steady_clock::now();
      const std::string label = (request.runs > 1 ? "run " + std::to_string(k + 1) + "/" +
                                                        std::to_string(request.runs) + "  "
                                                  : "") +
                                ids[i];
      {
        const std::scoped_lock write(writing);
        progress << label << "  start" << std::endl;
      }
      auto report = [&] {
        const Heartbeat heartbeat(progress, writing, label);
        return conformance::run_check(ids[i], *harness, options);
      }();
      if (const int signal = interruption.signal(); signal != 0) {
        interrupted_in = ids[i];
        cut_short(totals, i, ids[i],
                  std::string("interrupted by ") + (signal == SIGINT ? "SIGINT" : "SIGTERM") +
                      " before it finished; the checks after it did not run",
                  options.seed);
        break;
      }
      if (auto unmet = conformance::unmet_requirement(report, request.require, "--require")) {
        report.verdict = conformance::Verdict::Fail;
        report.reason = *std::move(unmet);
      }
      const std::scoped_lock write(writing);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - check_started;
      if (request.runs > 1) progress << "run " << k + 1 << "/" << request.runs << "  ";
      progress << report.id << "  " << name(report.verdict) << "  " << std::fixed
               << std::setprecision(2) << took.count() << " s"
               << (report.reason.empty() ? "" : "  " + report.reason) << "\n";
      if (k == 0) {
        totals.push_back(report);
        records.emplace_back();
      } else {
        accumulate(totals[i], report);
      }
      records[i].runs.push_back(report);
      records[i].run_ms.push_back(static_cast<std::uint64_t>(took.count() * 1000.0));
    }
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;

  table << "queue " << harness->name() << ", " << request.runs
        << (request.runs == 1 ? " run" : " runs") << " from seed " << request.seed << ", repeat "
        << request.repeat << (request.short_mode ? ", short" : "") << ", " << std::fixed
        << std::setprecision(1) << took.count() << " s\n";
  conformance::print_table(table, totals, replay);

  if (const int signal = interruption.signal(); signal != 0) {
    remove_reports();
    say_interrupted(progress, signal, interrupted_in, request);
    return 128 + signal;
  }
  const int verdict = conformance::passed(totals) ? kOk : kFailed;
  for (std::size_t i = 0; i < records.size() && i < totals.size(); ++i)
    records[i].total = totals[i];
  const conformance::RunDescription run{
      .tool = request.tool,
      .harness = harness->name(),
      .queue = shown_queue(request.queue),
      .seed = request.seed,
      .runs = request.runs,
      .repeat = request.repeat,
      .short_mode = request.short_mode,
      .checks = request.only.empty() ? std::vector<std::string>{} : ids,
      .require = request.require,
      .capabilities = harness->capabilities(),
      .replay = replay,
      .duration_ms = static_cast<std::uint64_t>(took.count() * 1000.0)};
  const auto lost = [&](ReportFile& file, const std::string& text, const std::string& path,
                        std::string_view what) {
    if (file.commit(text)) return false;
    progress << "thm conformance: cannot write the " << what << " to '" << path
             << "' (is the disk full?)\n";
    return true;
  };
  bool written = true;
  if (report_to_out) {
    out << conformance::to_json(run, records);  // main checks that stdout took it
  } else if (request.report_path) {
    written =
        !lost(report_file, conformance::to_json(run, records), *request.report_path, "report") &&
        written;
  }
  if (request.junit_path) {
    written = !lost(junit_file, conformance::to_junit(run, records), *request.junit_path,
                    "JUnit report") &&
              written;
  }
  if (request.html_path) {
    written =
        !lost(html_file, conformance::to_html(run, records), *request.html_path, "HTML report") &&
        written;
  }
  if (!written) return verdict == kFailed ? kFailed : kUsage;  // a failed check outranks it
  return verdict;
}

}  // namespace thm::cli
