// The kit's commands of the `thm` tool: `conformance` runs the suite against a queue,
// `adapter` serves the in-memory reference queue over the adapter protocol.
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "thm/cli/conformance.hpp"
#include "thm/cli/tool.hpp"
#include "thm/conformance/requirements.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"
#include "thm/protocol/serve.hpp"

namespace thm::cli {
namespace {

std::string conformance_footer() {
  std::string out =
      "Runs the host queue conformance suite (spec/queue-conformance.md) against the\n"
      "queue named by --queue. The suite deletes every row of the thm tables: name a scratch\n"
      "database, never one whose data you need. Writes progress lines for each check (and run)\n"
      "to stderr; then to stdout a line naming the queue, runs, seed and repeat, and a table by\n"
      "check id (counts summed over runs; a failed check with its seed and reason); with\n"
      "--report, the same as JSON to that file (with the tool's version, the options, the\n"
      "queue's capabilities, each check's duration and runs, and a failure's history); with\n"
      "--junit, as JUnit XML;\n"
      "with --html, as one page to open in a browser (what was not proven, and for each\n"
      "failure a timeline of the calls that produced it and the command that replays it);\n"
      "with --history, every run's recorded calls as JSON in Jepsen's shape, to recheck.\n"
      "With --report - the JSON is all of stdout, and\n"
      "the line and the table go to stderr after the progress lines. Each check says when it\n"
      "starts, and every 10 s while it runs; under the table, each failure has the command\n"
      "that replays it. A check that makes no progress for 2 minutes (a stuck store) ends the\n"
      "run with the table so far and exit code 1.\n"
      "SIGINT (Ctrl-C) or SIGTERM stops the run: an exec: adapter's process group is killed,\n"
      "the table shows the checks that finished and the one in progress as failed\n"
      "(interrupted), no report is written, and the exit code is 130 or 143 (128 + the\n"
      "signal); a second signal ends the tool at once. With THM_STOP_WITH_PARENT=1 in its\n"
      "environment (the Python and Node.js packages set it) it stops so, as on SIGTERM, when\n"
      "the process that started it dies.\n\n"
      "Checks (for --check):\n";
  for (const auto& check : thm::conformance::checks()) {
    out += "  " + std::string(check.id) + "  " + std::string(check.title) + "\n";
  }
  return out + "\n" +
         exit_codes("every check passed or was skipped",
                    "a check failed in some run, a --require'd capability is not declared or was\n"
                    "     left unproven, or a check stalled (no progress for 2 minutes)",
                    "bad usage: an unknown queue or check, a bad --seed or --require, a queue\n"
                    "     that cannot be opened, a report or stdout that cannot be written");
}

// `text` as a u64 when it is one in decimal digits and nothing else: no sign, no spaces,
// no base prefix, nothing past 2^64 - 1.
std::optional<std::uint64_t> decimal_u64(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// What the options of `thm conformance` hold once the command line is parsed; the request
// they make is `conformance_request`.
struct ConformanceArguments {
  ConformanceRequest suite{};
  int exec_timeout_seconds = 30;
  std::string seed_text = std::to_string(suite.seed);
  std::string required_text{};
  std::string report_path{};
  const CLI::Option* report_option = nullptr;
  std::string junit_path{};
  const CLI::Option* junit_option = nullptr;
  std::string html_path{};
  const CLI::Option* html_option = nullptr;
  std::string history_path{};
  const CLI::Option* history_option = nullptr;
  bool list_checks = false;
};

// Why `value` is no --seed: empty when it is one.
std::string seed_error(const std::string& value) {
  if (decimal_u64(value)) return "";
  return "'" + value +
         "' is not a decimal number from 0 to 18446744073709551615: give digits only, "
         "with no sign";
}

// Why `value` is no --require: empty when it is one.
std::string require_error(const std::string& value) {
  const auto parsed = thm::conformance::parse_requirements(value, "the list");
  return parsed ? "" : parsed.error();
}

// The options of `thm conformance` that say which queue, and how long its adapter may take.
void add_queue_options(CLI::App* command, ConformanceArguments& arguments) {
  command
      ->add_option("--queue", arguments.suite.queue,
                   "The queue under test: memory (the in-memory reference); sqlite:PATH (a new "
                   "or empty SQLite file, or one an earlier run made); postgres:CONNINFO (libpq "
                   "conninfo of a database with no tables, or one an earlier run made; empty "
                   "CONNINFO means the PG* variables); exec:COMMAND (an adapter program in any "
                   "language speaking protocol/PROTOCOL.md, run with /bin/sh -c). The suite "
                   "wipes the thm tables")
      ->capture_default_str();
  command
      ->add_option("--exec-timeout", arguments.exec_timeout_seconds,
                   "Seconds an exec: adapter may take to answer one request (not counting the "
                   "time a check holds one of its hooks)")
      ->capture_default_str()
      ->check(CLI::Range(1, 86'400));
}

// The options of `thm conformance` that say how often, and how hard, the suite runs.
void add_run_options(CLI::App* command, ConformanceArguments& arguments) {
  command
      ->add_option("--seed", arguments.seed_text,
                   "Seed of the first run, a decimal number from 0 to 18446744073709551615; run "
                   "k uses seed + k")
      ->capture_default_str()
      ->type_name("UINT64")
      ->check(CLI::Validator(seed_error, ""));
  command
      ->add_option("--repeat", arguments.suite.repeat,
                   "How often each race repeats within a run (1 or more)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  command
      ->add_option("--runs", arguments.suite.runs,
                   "How many times the whole suite runs, each with its own seed (1 or more)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  command->add_flag("--short", arguments.suite.short_mode,
                    "Smaller races and schedules, for a quick look; default: off");
}

// The options of `thm conformance` that say which checks run, what they must prove, and
// where the report goes.
void add_check_and_report_options(CLI::App* command, ConformanceArguments& arguments) {
  command->add_flag("--list-checks", arguments.list_checks,
                    "Print each check's id and title, tab-separated, one a line, and run "
                    "nothing (for a test runner that makes one test per check)");
  command->add_option(
      "--check", arguments.suite.only,
      "Run only this check (repeatable), e.g. --check EQ-01; default: every check (listed below)");
  command
      ->add_option("--require", arguments.required_text,
                   "Capabilities the queue must prove, comma-separated (e.g. hooks,leases): the "
                   "run fails when the queue does not declare one, and a check skipped or passed "
                   "only in part for one of them fails; default: none")
      ->type_name("CAPS")
      ->check(CLI::Validator(require_error, ""));
  arguments.report_option = command->add_option(
      "--report", arguments.report_path,
      "Also write the report as JSON to this file; --report - writes it to stdout instead of "
      "the table, which then goes to stderr; default: none");
  arguments.junit_option = command->add_option(
      "--junit", arguments.junit_path,
      "Also write the report as JUnit XML to this file, one testcase per check, for a CI "
      "system to show; default: none");
  arguments.html_option = command->add_option(
      "--html", arguments.html_path,
      "Also write the report as one self-contained HTML page to this file: the summary, what "
      "was not proven, and for each failure the timeline of its calls and its replay command; "
      "default: none");
  arguments.history_option = command->add_option(
      "--history", arguments.history_path,
      "Also write every run's recorded calls to this file as JSON in the shape Jepsen's tools "
      "read (invocations and completions, by session), passing runs too, so that a history "
      "can be checked again elsewhere; default: none");
}

CLI::App* add_conformance_command(CLI::App& app, ConformanceArguments& arguments) {
  CLI::App* command =
      app.add_subcommand("conformance",
                         "Run the host queue conformance suite against a queue; a table by EQ id, "
                         "exit 1 on any failure");
  add_queue_options(command, arguments);
  add_run_options(command, arguments);
  add_check_and_report_options(command, arguments);
  command->footer(conformance_footer());
  return command;
}

// The request the options of `thm conformance` make; their validators accepted them.
ConformanceRequest conformance_request(const ConformanceArguments& arguments) {
  ConformanceRequest suite = arguments.suite;
  suite.seed = *decimal_u64(arguments.seed_text);
  suite.require = *thm::conformance::parse_requirements(arguments.required_text, "--require");
  if (arguments.report_option->count() > 0) suite.report_path = arguments.report_path;
  if (arguments.junit_option->count() > 0) suite.junit_path = arguments.junit_path;
  if (arguments.html_option->count() > 0) suite.html_path = arguments.html_path;
  if (arguments.history_option->count() > 0) suite.history_path = arguments.history_path;
  suite.tool = tool_version();
  suite.exec_timeout = std::chrono::seconds(arguments.exec_timeout_seconds);
  return suite;
}

// With THM_STOP_WITH_PARENT=1 (the Python and Node.js packages set it), the run gets
// SIGTERM when the process that started it dies, and stops as it does on Ctrl-C, taking
// its adapter along: a test runner killed from an IDE leaves no suite emptying tables.
void stop_with_parent_when_asked() {
  const char* asked = std::getenv("THM_STOP_WITH_PARENT");
  if (asked == nullptr || std::string_view(asked) != "1") return;
  const pid_t parent = getppid();
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) {
    std::raise(SIGTERM);  // the parent died before the request took hold
  }
}

// `thm conformance`.
class ConformanceCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override { return add_conformance_command(app, arguments_); }
  int run() override {
    stop_with_parent_when_asked();
    if (arguments_.list_checks) {
      for (const auto& check : thm::conformance::checks()) {
        std::cout << check.id << '\t' << check.title << '\n';
      }
      return kOk;
    }
    return run_conformance(conformance_request(arguments_), std::cout, std::cerr);
  }
  std::string succeeded() const override { return "every check passed or was skipped"; }
  std::string failed() const override { return "a check failed"; }

 private:
  ConformanceArguments arguments_;
};

// `thm adapter QUEUE`.
class AdapterCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    CLI::App* command = app.add_subcommand(
        "adapter",
        "Serve a queue over the conformance adapter protocol on stdin and stdout, for "
        "thm conformance --queue 'exec:thm adapter memory'");
    command->add_option("QUEUE", served_, "The queue to serve: memory (the in-memory reference)")
        ->check(CLI::IsMember({"memory"}))
        ->capture_default_str();
    command->footer(
        "Speaks protocol/PROTOCOL.md version 1 in multiplexed mode: one request per line on\n"
        "stdin, one answer per line on stdout, until stdin ends. The queue lives in this process\n"
        "and starts empty; the suite drives it. This proves the protocol and the exec: harness\n"
        "against the reference queue, and is an example of an adapter.\n\n" +
        exit_codes("stdin ended; a line that is not JSON or has no id was logged on stderr and\n"
                   "     ignored, as PROTOCOL.md says",
                   "", "a line broke the protocol (reported on stderr), or bad usage"));
    return command;
  }
  int run() override {
    memory::MemoryHarness harness;
    return protocol::serve(harness, std::cin, std::cout, std::cerr) == 0 ? kOk : kUsage;
  }
  std::string succeeded() const override { return "stdin ended"; }
  std::string failed() const override { return ""; }

 private:
  std::string served_ = "memory";
};

template <class C>
std::unique_ptr<Command> make() {
  return std::make_unique<C>();
}
[[maybe_unused]] const bool registered =
    register_command(40, make<ConformanceCommand>) && register_command(50, make<AdapterCommand>);

}  // namespace
}  // namespace thm::cli
