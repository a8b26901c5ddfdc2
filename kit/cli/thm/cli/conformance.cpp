#include "thm/cli/conformance.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <optional>
#include <ostream>
#include <regex>
#include <string>
#include <string_view>
#include <system_error>

#include "thm/cli/scratch.hpp"
#include "thm/cli/tool.hpp"
#include "thm/conformance/invocation.hpp"
#include "thm/conformance/report.hpp"
#include "thm/conformance/requirements.hpp"
#include "thm/memory/harness.hpp"
#include "thm/protocol/exec_harness.hpp"

namespace thm::cli {
namespace {

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

// What `thm conformance` refuses before opening the queue (opening one wipes its thm tables):
// the message, or nothing.
std::optional<std::string> refused(const ConformanceRequest& request) {
  const conformance::Invocation checks{
      .checks = request.only, .runs = request.runs, .repeat = request.repeat};
  if (auto why = conformance::invalid(checks)) {
    const std::string list = "; the checks are ";
    if (why->starts_with("no check"))
      return why->replace(why->find(list), list.size(), "; --check takes one of ");
    return "--runs and --repeat must be at least 1";
  }
  if (request.report_path && request.report_path->empty()) return "--report needs a file path";
  if (request.junit_path && (request.junit_path->empty() || *request.junit_path == "-")) {
    return "--junit needs a file path";
  }
  if (request.html_path && (request.html_path->empty() || *request.html_path == "-")) {
    return "--html needs a file path";
  }
  if (request.history_path && (request.history_path->empty() || *request.history_path == "-")) {
    return "--history needs a file path";
  }
  return std::nullopt;
}

// Two reports in one file would be neither: the message naming the two options, or nothing.
std::optional<std::string> shared_report_path(const ConformanceRequest& request) {
  const std::vector<std::pair<std::string_view, const std::optional<std::string>*>> paths{
      {"--report", &request.report_path},
      {"--junit", &request.junit_path},
      {"--html", &request.html_path},
      {"--history", &request.history_path}};
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
        return std::string(paths[i].first) + " and " + std::string(paths[j].first) +
               " name the same file; give each its own";
      }
    }
  }
  return std::nullopt;
}

// What is wrong with the queue as named, before it is opened, or nothing.
std::optional<std::string> bad_queue_name(const ConformanceRequest& request) {
  if (request.queue == "exec:") {
    return std::string("--queue exec: needs the adapter's command, e.g. ") + kExecExample;
  }
  if (request.queue == "sqlite:") {
    return std::string("--queue sqlite: needs a file path, e.g. ") + kSqliteExample;
  }
  if (request.queue.starts_with("sqlite:")) {
    // Opening a named pipe would block for good: refuse what is not a regular file first.
    const std::string path = request.queue.substr(7);
    std::error_code ignored;
    if (const auto kind = not_regular(std::filesystem::status(path, ignored))) {
      return "cannot use '" + path + "' as the SQLite database: it is " + *kind +
             ", not a regular file; --queue sqlite:PATH takes a regular file: a new one, an "
             "empty one, or one an earlier run made";
    }
  }
  return std::nullopt;
}

// Opens the queue the request names; null, after saying why on `progress`, when it cannot.
std::unique_ptr<conformance::Harness> open_named_queue(const ConformanceRequest& request,
                                                       const conformance::SignalStop& stop,
                                                       std::ostream& progress, int& code) {
  code = kUsage;
  std::unique_ptr<conformance::Harness> harness;
  try {
    harness = open_queue(request.queue, request.exec_timeout);
  } catch (const std::exception& e) {
    if (const int signal = stop.signal(); signal != 0) {
      say_interrupted(progress, signal, "", request);
      code = 128 + signal;
      return nullptr;
    }
    // The message never quotes a conninfo: it may hold a password.
    const std::string kind = request.queue.substr(0, request.queue.find(':'));
    progress << "thm conformance: cannot open the " << kind << " queue: " << trimmed(e.what())
             << "\n";
    return nullptr;
  }
  if (!harness) {
    progress << "thm conformance: unknown queue '" << request.queue
             << "'; --queue takes memory, sqlite:PATH (e.g. " << kSqliteExample
             << "), postgres:CONNINFO (e.g. postgres:dbname=thm_scratch; postgres: alone uses "
                "the PG* variables) or exec:COMMAND (e.g. "
             << kExecExample << ")\n";
  }
  return harness;
}

// Whether the queue declares every capability --require names; says why not on `progress`
// (and sets `code`) when it does not, or when its capabilities cannot be read.
bool declares_required(conformance::Harness& harness, const ConformanceRequest& request,
                       std::ostream& progress, int& code) {
  if (request.require.empty()) return true;
  std::string missing;
  try {
    missing = conformance::undeclared(harness.capabilities(), request.require);
  } catch (const std::exception& e) {
    progress << "thm conformance: the queue's capabilities cannot be read: " << trimmed(e.what())
             << "\n";
    code = kUsage;
    return false;
  }
  if (missing.empty()) return true;
  progress << "thm conformance: --require names " << missing << ", which queue "
           << harness.queue_name() << " does not declare, so it cannot prove it; no check was run ("
           << (request.queue.starts_with("exec:") &&
                       missing.find("`hold_child`") != std::string::npos
                   ? "protocol v1 cannot carry `hold_child`, so no exec: adapter declares it; "
                   : "")
           << "declare it in the queue's capabilities, or drop it from --require)\n";
  code = kFailed;
  return false;
}

// The reports the request asks for, opened before the run: `--report` (JSON, unless it is
// `-`), `--junit`, `--html` and `--history`.
class Reports {
 public:
  // Opens each; false, after saying why on `progress`, when one cannot be written (those
  // opened before it are dropped).
  bool open(const ConformanceRequest& request, std::ostream& progress) {
    return (!request.report_path || *request.report_path == "-" ||
            opened(json_, *request.report_path, "report", "--report", progress)) &&
           (!request.junit_path ||
            opened(junit_, *request.junit_path, "JUnit report", "--junit", progress)) &&
           (!request.html_path ||
            opened(html_, *request.html_path, "HTML report", "--html", progress)) &&
           (!request.history_path ||
            opened(history_, *request.history_path, "history", "--history", progress));
  }
  // Drops what was written: a partial report would read as a whole one.
  void abandon() {
    json_.abandon();
    junit_.abandon();
    html_.abandon();
    history_.abandon();
  }
  // Writes each report asked for; false when one could not be written (said on `progress`).
  bool write(const ConformanceRequest& request, const conformance::RunDescription& run,
             std::span<const conformance::CheckResult> results, std::ostream& out,
             std::ostream& progress) {
    bool written = true;
    if (request.report_path == "-") {
      out << conformance::to_json(run, results);  // main checks that stdout took it
    } else if (request.report_path) {
      written = commit(json_, conformance::to_json(run, results), *request.report_path, "report",
                       progress) &&
                written;
    }
    if (request.junit_path) {
      written = commit(junit_, conformance::to_junit(run, results), *request.junit_path,
                       "JUnit report", progress) &&
                written;
    }
    if (request.html_path) {
      written = commit(html_, conformance::to_html(run, results), *request.html_path, "HTML report",
                       progress) &&
                written;
    }
    if (request.history_path) {
      written = commit(history_, conformance::to_history(run, results), *request.history_path,
                       "history", progress) &&
                written;
    }
    return written;
  }

 private:
  static bool opened(conformance::ReportFile& file, const std::string& path, std::string_view what,
                     std::string_view option, std::ostream& progress) {
    if (file.open(path)) return true;
    progress << "thm conformance: cannot write the " << what << " to '" << path
             << "': " << reason_of(errno) << "; " << option
             << " takes a file in a directory that exists and is writable\n";
    return false;
  }
  static bool commit(conformance::ReportFile& file, const std::string& text,
                     const std::string& path, std::string_view what, std::ostream& progress) {
    if (file.commit(text)) return true;
    progress << "thm conformance: cannot write the " << what << " to '" << path
             << "' (is the disk full?)\n";
    return false;
  }

  conformance::ReportFile json_;
  conformance::ReportFile junit_;
  conformance::ReportFile html_;
  conformance::ReportFile history_;
};

// The table's first line: the queue, the runs, the seed and the repeat.
std::string header(const ConformanceRequest& request, const std::string& queue) {
  return "queue " + queue + ", " + std::to_string(request.runs) +
         (request.runs == 1 ? " run" : " runs") + " from seed " + std::to_string(request.seed) +
         ", repeat " + std::to_string(request.repeat) + (request.short_mode ? ", short" : "");
}

// What `thm conformance` prints while the suite runs, on `progress`: a line when each check
// starts, one every 10 s while it runs, one with its verdict and time. When a check stalls,
// the table so far goes to `table` and the reports are dropped before the process ends.
class Printed final : public conformance::Progress {
 public:
  Printed(const ConformanceRequest& request, const std::string& queue, std::ostream& table,
          std::ostream& progress, Reports& reports)
      : request_(request), queue_(queue), table_(table), progress_(progress), reports_(reports) {}

  void started(const std::string& label) override { progress_ << label << "  start" << std::endl; }
  void still_running(const std::string& label, std::chrono::seconds elapsed) override {
    progress_ << label << "  still running after " << elapsed.count() << " s" << std::endl;
  }
  void finished(const std::string& label, const conformance::CheckRun& run,
                double seconds) override {
    if (request_.runs > 1) progress_ << label.substr(0, label.find("  ")) << "  ";
    progress_ << run.id << "  " << name(run.verdict) << "  " << std::fixed << std::setprecision(2)
              << seconds << " s" << (run.reason.empty() ? "" : "  " + run.reason) << "\n";
  }
  void stalled(const std::string& message, const conformance::InvocationResult& so_far) override {
    table_ << "queue " << queue_ << ", stopped in run " << so_far.results.back().runs.size() + 1
           << " from seed " << request_.seed << ", repeat " << request_.repeat
           << (request_.short_mode ? ", short" : "") << "\n";
    conformance::print_table(table_, so_far.totals(), replay_command(request_));
    table_.flush();
    progress_ << "thm conformance: " << message << "\n";
    progress_.flush();
    reports_.abandon();
  }

 private:
  const ConformanceRequest& request_;
  const std::string& queue_;
  std::ostream& table_;
  std::ostream& progress_;
  Reports& reports_;
};

// What the reports say of this invocation.
conformance::RunDescription description(const ConformanceRequest& request,
                                        conformance::Harness& harness,
                                        const conformance::InvocationResult& result) {
  const conformance::Invocation invocation{.checks = request.only};
  return {.tool = request.tool,
          .harness = harness.queue_name(),
          .queue = shown_queue(request.queue),
          .seed = request.seed,
          .runs = request.runs,
          .repeat = request.repeat,
          .short_mode = request.short_mode,
          .checks = request.only.empty() ? std::vector<std::string>{}
                                         : conformance::checks_of(invocation),
          .require = request.require,
          .capabilities = harness.capabilities(),
          .replay = replay_command(request),
          .duration_ms = result.duration_ms};
}

// Why the request cannot run, said on `progress`, or nothing.
bool said_refusal(const ConformanceRequest& request, std::ostream& progress) {
  for (const auto& why : {refused(request), shared_report_path(request), bad_queue_name(request)}) {
    if (why) {
      progress << "thm conformance: " << *why << "\n";
      return true;
    }
  }
  return false;
}

}  // namespace

int run_conformance(const ConformanceRequest& request, std::ostream& out, std::ostream& progress) {
  if (said_refusal(request, progress)) return kUsage;
  // Made before the harness, so that its threads inherit the blocked signals, and ended
  // after it. The first signal ends every exec: adapter, so that the check in progress fails.
  const conformance::SignalStop stop(
      [] { protocol::interrupt_adapters(); },
      "thm conformance: stopping: the run ends when the check in progress does (an exec: "
      "adapter's, at once); a second signal ends it now\n");
  int code = kUsage;
  const auto harness = open_named_queue(request, stop, progress, code);
  if (!harness || !declares_required(*harness, request, progress, code)) return code;

  // `--report -` is stdout: the JSON goes to `out` alone, so that it stays parseable, and
  // the table moves to `progress`.
  std::ostream& table = request.report_path == "-" ? progress : out;
  Reports reports;
  if (!reports.open(request, progress)) return kUsage;
  const std::string queue = harness->queue_name();
  Printed printed(request, queue, table, progress, reports);
  const auto result = conformance::run_invocation(*harness,
                                                  {.checks = request.only,
                                                   .seed = request.seed,
                                                   .runs = request.runs,
                                                   .repeat = request.repeat,
                                                   .short_mode = request.short_mode,
                                                   .require = request.require},
                                                  printed, &stop);

  table << header(request, queue) << ", " << std::fixed << std::setprecision(1)
        << static_cast<double>(result.duration_ms) / 1000.0 << " s\n";
  conformance::print_table(table, result.totals(), replay_command(request));
  if (result.signal != 0) {
    reports.abandon();
    say_interrupted(progress, result.signal, result.interrupted_in, request);
    return 128 + result.signal;
  }
  const int verdict = result.passed() ? kOk : kFailed;
  if (!reports.write(request, description(request, *harness, result), result.results, out,
                     progress)) {
    return verdict == kFailed ? kFailed : kUsage;  // a failed check outranks it
  }
  return verdict;
}

}  // namespace thm::cli
