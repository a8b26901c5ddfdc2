// The `thm` command-line tool: run case files, evaluate one operation from JSON, run the
// queue conformance suite.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "thm/cli/cases.hpp"
#include "thm/cli/conformance.hpp"
#include "thm/cli/explain.hpp"
#include "thm/conformance/requirements.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"
#include "thm/protocol/serve.hpp"

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

// The example input every `thm eval` message and help shows.
constexpr const char* kEvalExample = R"(echo '{"chat": "MAIN"}' | thm eval is_general_chat)";
// The example `thm explain` messages show: the README's, from a checkout's root.
constexpr const char* kExplainExample =
    "thm explain --text responder_plan < examples/explain/responder_plan.json";

// `words` joined by `separator`, wrapped into lines of at most `width` characters that
// start with `indent`.
std::string wrapped(const std::vector<std::string>& words, const std::string& separator,
                    const std::string& indent, std::size_t width = 100) {
  std::string out = indent;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = words[i] + (i + 1 < words.size() ? separator : "");
    const std::string trimmed_word = word.substr(0, word.find_last_not_of(' ') + 1);
    if (out.size() - line_start + trimmed_word.size() > width &&
        out.size() > line_start + indent.size()) {
      while (out.ends_with(' ')) out.pop_back();
      out += "\n";
      line_start = out.size();
      out += indent;
    }
    out += word;
  }
  return out;
}

// `text` padded with spaces to `width`, and at least one space.
std::string padded(const std::string& text, std::size_t width) {
  return text + std::string(text.size() < width ? width - text.size() : 1, ' ');
}

std::string exit_codes(const std::string& ok, const std::string& failed, const std::string& usage) {
  std::string out = "Exit codes:\n  0  " + ok + "\n";
  if (!failed.empty()) out += "  1  " + failed + "\n";
  return out + "  2  " + usage;
}

std::string main_footer() {
  return "Run `thm COMMAND --help` for a command's arguments, input, output and exit codes.\n"
         "Results, reports and case failures go to stdout; errors go to stderr, one line each,\n"
         "starting with `thm COMMAND: `.\n\n" +
         exit_codes(
             "success: every case passed (check), the result was printed (eval, explain),\n"
             "     every check passed or was skipped (conformance), or help or the version was\n"
             "     printed",
             "a case failed (check) or a conformance check failed (conformance)",
             "bad usage or unreadable input: an unknown command, option, op, queue or check; a\n"
             "     case file or stdin that cannot be read or is not JSON; a queue that cannot be\n"
             "     opened; a report or stdout that cannot be written");
}

std::string check_footer() {
  return "Reads the case files (format: spec/cases.md, installed in share/thm/spec) and runs\n"
         "every case with --impl.\n"
         "Writes to stdout, for each case that fails, `FAIL FILE #INDEX NAME` and then its op,\n"
         "expected and actual JSON (or the problem that kept it from running: an unknown op, a\n"
         "malformed case), and at the end always the line `N passed, N failed`. With --impl\n"
         "prepared, the ops that take snapshots prepare a team from them; a case whose\n"
         "snapshots no team holds (a malformed roster or desk set) runs on views, and the line\n"
         "then adds `; N of them on snapshots no team holds, run on views`. Writes to\n"
         "stderr why a file could not be run (the other files still run).\n\n" +
         exit_codes("every case passed",
                    "a case failed or could not run (and every file could be read)",
                    "bad usage, or a file cannot be read, is not a JSON array of cases or\n"
                    "     holds no cases, or stdout cannot be written");
}

std::string eval_footer() {
  std::vector<thm::cli::OperationInfo> ops = thm::cli::operations();
  std::size_t width = 0;
  for (const auto& op : ops) width = std::max(width, op.name.size());
  std::string out =
      "Operations (OP, then the keys of its input object; spec/cases.md, \"Operations\",\n"
      "gives each key's wire form and each result):\n";
  bool core_only = false;
  for (const auto& op : ops) {
    out += "  " + padded(op.name, width + 2) + op.input;
    if (!op.in_model) {
      out += "  [core only]";
      core_only = true;
    }
    if (!op.in_core) out += "  [model only]";
    out += "\n";
  }
  if (core_only) out += "  [core only]: not with --impl model\n";
  out += "\nThe wire types `decode` takes as its `type`:\n" +
         wrapped(thm::cli::wire_type_names(), ", ", "  ") + "\n\n";
  out += std::string(
             "Reads one JSON object on stdin: the op's input, in the wire forms of SPEC.md §6, "
             "e.g.\n  ") +
         kEvalExample +
         "\n"
         "Writes the op's result object as one line of JSON to stdout, e.g. {\"result\":true}. "
         "A typed\nerror is a result too, e.g. {\"error\":{\"variant\":\"Decode\",\"path\":"
         "\"/input/chat\",...}} when the input\nis refused. Errors go to stderr.\n\n" +
         exit_codes("the result was printed (typed errors included)", "",
                    "bad usage: an unknown OP, stdin that cannot be read or is not JSON, or\n"
                    "     stdout that cannot be written");
  return out;
}

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
      "failure a timeline of the calls that produced it and the command that replays it).\n"
      "With --report - the JSON is all of stdout, and\n"
      "the line and the table go to stderr after the progress lines. Each check says when it\n"
      "starts, and every 10 s while it runs; under the table, each failure has the command\n"
      "that replays it. A check that makes no progress for 2 minutes (a stuck store) ends the\n"
      "run with the table so far and exit code 1.\n"
      "SIGINT (Ctrl-C) or SIGTERM stops the run: an exec: adapter's process group is killed,\n"
      "the table of the checks that finished is printed, no report is written, and the exit\n"
      "code is 130 or 143 (128 + the signal); a second signal ends the tool at once.\n\n"
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

// The first letter of `text` in lower case, unless it starts a word in capitals (`FILE`).
std::string lower_first(std::string text) {
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) != 0 &&
      std::isupper(static_cast<unsigned char>(text[1])) == 0) {
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '.')) text.pop_back();
  return text;
}

// A parse error as one `thm COMMAND: ` line that points at that command's help.
std::string failure_message(const CLI::App* app, const CLI::Error& error) {
  std::string command = "thm";
  for (const CLI::App* sub : app->get_subcommands()) command += " " + sub->get_name();
  if (command == "thm") {
    std::vector<std::string> names;
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(sub->get_name());
    }
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    }
    const std::vector<std::string> extras = app->remaining();
    if (!extras.empty()) {
      return std::string("thm: unknown ") +
             (extras.front().starts_with("-") ? "option '" : "command '") + extras.front() +
             "'; name one of " + list + ", or see 'thm --help'\n";
    }
    if (error.get_name() == "RequiredError") {
      return "thm: name a command: " + list + ", or see 'thm --help'\n";
    }
  }
  return command + ": " + lower_first(error.what()) + "; see '" + command + " --help'\n";
}

// `code`, once stdout is flushed: output that could not be written (a full disk, a closed
// file) is no success, so that is an error on stderr and exit 2. A failure the command
// already reported (a failed case or check, an interrupted run) outranks it, as a failed
// check outranks a report that cannot be written.
int flushed(const std::string& command, int code) {
  errno = 0;
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return code;
  const int error = errno;
  std::cerr << "thm" << (command.empty() ? "" : " " + command)
            << ": cannot write to standard output";
  if (error != 0) {
    std::string reason = std::generic_category().message(error);
    if (!reason.empty()) {
      reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    }
    std::cerr << " (" << reason << ")";
  }
  std::cerr << "; send it to a file or pipe that can be written\n";
  return code == kOk ? kUsage : code;
}

int check(const std::vector<std::string>& files, thm::cli::Implementation impl) {
  const thm::cli::CheckSummary summary = thm::cli::check_files(files, std::cout, std::cerr, impl);
  std::cout << thm::cli::summary_line(summary) << std::endl;
  if (summary.unreadable) return kUsage;
  return summary.failed == 0 ? kOk : kFailed;
}

// What `eval` and `explain` print.
enum class Printed : std::uint8_t { Result, Explanation, ExplanationText };

// `thm eval OP` and `thm explain OP`: reads the op's input on stdin, prints its result, or
// (explain) its result and trace, as JSON or as text.
int eval(const std::string& command, const std::string& op, thm::cli::Implementation impl,
         Printed printed) {
  const std::string prefix = "thm " + command + ": ";
  // The op is checked before stdin is read: a mistyped op should not wait for input.
  const auto ops = thm::cli::operations();
  const auto known =
      std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return o.name == op; });
  if (printed == Printed::Result && known == ops.end()) {
    std::cerr << prefix << "unknown op \"" << op << "\"; the ops are";
    for (std::size_t i = 0; i < ops.size(); ++i) std::cerr << (i == 0 ? " " : ", ") << ops[i].name;
    std::cerr << " (thm eval --help gives the input of each)\n";
    return kUsage;
  }
  if (printed != Printed::Result &&
      std::ranges::find(thm::cli::kExplainedOps, op) == thm::cli::kExplainedOps.end()) {
    std::cerr << prefix << (known == ops.end() ? "unknown op \"" : "op \"") << op
              << (known == ops.end() ? "\"" : "\" has no trace") << "; the ops it explains are";
    for (std::size_t i = 0; i < thm::cli::kExplainedOps.size(); ++i) {
      std::cerr << (i == 0 ? " " : ", ") << thm::cli::kExplainedOps[i];
    }
    std::cerr << " (thm eval --help gives the input of each)\n";
    return kUsage;
  }
  std::string text(std::istreambuf_iterator<char>(std::cin), {});
  if (std::cin.bad()) {
    std::cerr << prefix << "cannot read standard input; pipe the op's input object to it, e.g. "
              << (printed == Printed::Result ? kEvalExample : kExplainExample) << "\n";
    return kUsage;
  }
  const std::string example =
      printed == Printed::Result ? std::string(kEvalExample) : std::string(kExplainExample);
  const std::string expected = "; expected one JSON object, the input of " + op +
                               " (thm eval --help lists its keys), e.g. " + example;
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; })) {
    std::cerr << prefix << "standard input is empty" << expected << "\n";
    return kUsage;
  }
  std::vector<std::string> repeated_keys;
  const auto input = thm::json::parse(text, &repeated_keys);
  if (!input.has_value()) {
    std::cerr << prefix << "standard input is not JSON (" << input.error().reason << ")" << expected
              << "\n";
    return kUsage;
  }
  std::optional<thm::json::DecodeError> refused;
  if (!repeated_keys.empty()) {
    refused = thm::json::DecodeError{.path = "/input" + repeated_keys.front(),
                                     .reason = "a key is repeated within one object"};
  }
  const auto result = printed == Printed::Result
                          ? thm::cli::run_op(op, *input, std::move(refused), impl)
                          : thm::cli::explain_op(op, *input, std::move(refused), impl);
  if (!result.has_value()) {
    std::cerr << prefix << result.error() << "\n";
    return kUsage;
  }
  if (printed == Printed::ExplanationText) {
    std::cout << thm::cli::explanation_text(op, *result);
  } else {
    std::cout << result->dump() << "\n";
  }
  return kOk;
}

// What the options of `thm conformance` hold once the command line is parsed; the request
// they make is `conformance_request`.
struct ConformanceArguments {
  thm::cli::ConformanceRequest suite{};
  int exec_timeout_seconds = 30;
  std::string seed_text = std::to_string(suite.seed);
  std::string required_text{};
  std::string report_path{};
  const CLI::Option* report_option = nullptr;
  std::string junit_path{};
  const CLI::Option* junit_option = nullptr;
  std::string html_path{};
  const CLI::Option* html_option = nullptr;
};

// What each command's options and arguments hold once the command line is parsed.
struct Arguments {
  std::string impl_name = "core";      // check, eval: --impl
  std::vector<std::string> files{};    // check: FILE...
  std::string op{};                    // eval, explain: OP
  bool text = false;                   // explain: --text
  ConformanceArguments conformance{};  // conformance
  std::string served = "memory";       // adapter: QUEUE
};

// The commands of `thm`, made in the order its help lists them.
struct Commands {
  CLI::App* check = nullptr;
  CLI::App* eval = nullptr;
  CLI::App* explain = nullptr;
  CLI::App* conformance = nullptr;
  CLI::App* adapter = nullptr;
};

// Why `value` is no --impl: empty when it is one.
std::string impl_error(const std::string& value) {
  if (value == "core" || value == "prepared" || value == "model") return "";
  return "'" + value + "' is not an implementation: --impl takes core, prepared or model";
}

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

// --impl, the option `check` and `eval` share.
void add_impl_option(CLI::App* command, std::string& impl_name) {
  command
      ->add_option("--impl", impl_name,
                   "Who answers: core (the library, on snapshot views), prepared (the library, "
                   "on a thm::Team prepared from the snapshots) or model (the reference model); "
                   "default: core")
      ->type_name("core|prepared|model")
      ->check(CLI::Validator(impl_error, ""));
}

CLI::App* add_check_command(CLI::App& app, Arguments& arguments) {
  CLI::App* command =
      app.add_subcommand("check", "Run case files (spec/cases.md); ends with 'N passed, N failed'");
  command
      ->add_option("FILE", arguments.files,
                   "Case files, run in order (at least one): each a JSON array of cases "
                   "{\"name\", \"op\", \"input\", \"expected\"}")
      ->required();
  add_impl_option(command, arguments.impl_name);
  command->footer(check_footer());
  return command;
}

CLI::App* add_eval_command(CLI::App& app, Arguments& arguments) {
  CLI::App* command = app.add_subcommand(
      "eval", "Read one input object on stdin, print the result of OP on stdout");
  command->add_option("OP", arguments.op, "The operation to run: one of those listed below")
      ->required();
  add_impl_option(command, arguments.impl_name);
  command->footer(eval_footer());
  return command;
}

std::string explain_footer() {
  std::string ops;
  for (const std::string_view op : thm::cli::kExplainedOps) {
    ops += (ops.empty() ? "" : ", ") + std::string(op);
  }
  return "Explains one decision (SPEC §8): reads OP's input on stdin, as `thm eval` does (thm\n"
         "eval --help lists its keys), and prints its result object with three more keys:\n"
         "  trace     the steps the decision took, in order: {rule, outcome, why, subject,\n"
         "            offset, count} (spec/SPEC.md §8.2)\n"
         "  operator  one line per step, for logs and operators: it names agents and desks\n"
         "  agent     the sentences an agent may be shown (§8.4): never another agent's id\n"
         "With --text, prints them as text instead of JSON. The ops it explains: " +
         ops + ".\n\n" +
         exit_codes("the explanation was printed (typed errors included)", "",
                    "bad usage: an OP with no trace, stdin that cannot be read or is not JSON,\n"
                    "     or stdout that cannot be written");
}

CLI::App* add_explain_command(CLI::App& app, Arguments& arguments) {
  CLI::App* command = app.add_subcommand(
      "explain", "Read one input object on stdin, print OP's result and the steps that made it");
  command
      ->add_option(
          "OP", arguments.op,
          "The decision to explain: " +
              [] {
                std::string ops;
                for (const std::string_view op : thm::cli::kExplainedOps) {
                  ops += (ops.empty() ? "" : ", ") + std::string(op);
                }
                return ops;
              }())
      ->required();
  add_impl_option(command, arguments.impl_name);
  command->add_flag("--text", arguments.text,
                    "Print the explanation as text (the result, numbered steps, the agent's "
                    "sentences); default: JSON");
  command->footer(explain_footer());
  return command;
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

CLI::App* add_adapter_command(CLI::App& app, Arguments& arguments) {
  CLI::App* command = app.add_subcommand(
      "adapter",
      "Serve a queue over the conformance adapter protocol on stdin and stdout, for "
      "thm conformance --queue 'exec:thm adapter memory'");
  command
      ->add_option("QUEUE", arguments.served,
                   "The queue to serve: memory (the in-memory reference)")
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

// The request the options of `thm conformance` make; their validators accepted them.
thm::cli::ConformanceRequest conformance_request(const ConformanceArguments& arguments) {
  thm::cli::ConformanceRequest suite = arguments.suite;
  suite.seed = *decimal_u64(arguments.seed_text);
  suite.require = *thm::conformance::parse_requirements(arguments.required_text, "--require");
  if (arguments.report_option->count() > 0) suite.report_path = arguments.report_path;
  if (arguments.junit_option->count() > 0) suite.junit_path = arguments.junit_path;
  if (arguments.html_option->count() > 0) suite.html_path = arguments.html_path;
  suite.tool = std::string("thm ") + THM_VERSION;
  suite.exec_timeout = std::chrono::seconds(arguments.exec_timeout_seconds);
  return suite;
}

// `thm adapter memory`: serves the in-memory reference queue on stdin and stdout.
int serve_memory_queue() {
  thm::memory::MemoryHarness harness;
  return thm::protocol::serve(harness, std::cin, std::cout, std::cerr) == 0 ? kOk : kUsage;
}

// Runs the command the parsed command line names; its exit code.
int run_command(const Commands& commands, const Arguments& arguments) {
  const auto impl = arguments.impl_name == "model"      ? thm::cli::Implementation::Model
                    : arguments.impl_name == "prepared" ? thm::cli::Implementation::Prepared
                                                        : thm::cli::Implementation::Core;
  if (commands.check->parsed()) return flushed("check", check(arguments.files, impl));
  if (commands.adapter->parsed()) return flushed("adapter", serve_memory_queue());
  if (commands.conformance->parsed()) {
    return flushed("conformance",
                   thm::cli::run_conformance(conformance_request(arguments.conformance), std::cout,
                                             std::cerr));
  }
  if (commands.explain->parsed()) {
    return flushed("explain",
                   eval("explain", arguments.op, impl,
                        arguments.text ? Printed::ExplanationText : Printed::Explanation));
  }
  return flushed("eval", eval("eval", arguments.op, impl, Printed::Result));
}

int run(int argc, char** argv) {
  CLI::App app{"thm: decide who answers a message, and whether a reply may start one more turn",
               "thm"};
  app.set_version_flag("--version", std::string("thm ") + THM_VERSION,
                       "Print the version (the project's, from CMakeLists.txt) and exit");
  app.require_subcommand(1);
  app.failure_message(failure_message);

  Arguments arguments;
  // The elements of a braced list are made in order, so the help lists the commands so.
  const Commands commands{.check = add_check_command(app, arguments),
                          .eval = add_eval_command(app, arguments),
                          .explain = add_explain_command(app, arguments),
                          .conformance = add_conformance_command(app, arguments.conformance),
                          .adapter = add_adapter_command(app, arguments)};
  // Set last: a subcommand copies its parent's footer when it is made.
  app.footer(main_footer());

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);  // --help and --version print here, to stdout
    return code == 0 ? flushed("", kOk) : kUsage;
  }
  return run_command(commands, arguments);
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing throws out of main: whatever escapes is an internal error, exit 2.
  try {
    return run(argc, argv);
  } catch (const std::exception& failure) {
    std::cerr << "thm: internal error: " << failure.what() << "\n";
  } catch (...) {
    std::cerr << "thm: internal error\n";
  }
  return kUsage;
}
