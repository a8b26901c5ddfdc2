// The `thm` command-line tool: run case files, evaluate one operation from JSON, run the
// queue conformance suite.
#include <CLI/CLI.hpp>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "thm/cli/cases.hpp"
#include "thm/cli/conformance.hpp"

namespace {

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

int check(const std::vector<std::string>& files, thm::cli::Implementation impl) {
  const thm::cli::CheckSummary summary = thm::cli::check_files(files, std::cout, impl);
  std::cout << thm::cli::summary_line(summary) << std::endl;
  if (summary.unreadable) return kUsage;
  return summary.failed == 0 ? kOk : kFailed;
}

int eval(const std::string& op, thm::cli::Implementation impl) {
  std::string text(std::istreambuf_iterator<char>(std::cin), {});
  if (std::cin.bad()) {
    std::cerr << "thm eval: cannot read standard input\n";
    return kUsage;
  }
  std::vector<std::string> repeated_keys;
  const auto input = thm::json::parse(text, &repeated_keys);
  if (!input.has_value()) {
    std::cerr << "thm eval: standard input is not JSON: " << input.error().reason << "\n";
    return kUsage;
  }
  std::optional<thm::json::DecodeError> refused;
  if (!repeated_keys.empty()) {
    refused = thm::json::DecodeError{.path = "/input" + repeated_keys.front(),
                                     .reason = "a key is repeated within one object"};
  }
  const auto result = thm::cli::run_op(op, *input, std::move(refused), impl);
  if (!result.has_value()) {
    std::cerr << "thm eval: " << result.error() << "\n";
    return kUsage;
  }
  std::cout << result->dump() << "\n";
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"thm: decide who answers a message, and whether a reply may start one more turn"};
  app.set_version_flag("--version", std::string("thm ") + THM_VERSION,
                       "Print the version (the project's, from CMakeLists.txt) and exit");
  app.require_subcommand(1);

  const std::map<std::string, thm::cli::Implementation> implementations{
      {"core", thm::cli::Implementation::Core}, {"model", thm::cli::Implementation::Model}};
  auto impl = thm::cli::Implementation::Core;
  const auto add_impl = [&](CLI::App* command) {
    command
        ->add_option("--impl", impl,
                     "Who answers: core (the library, default) or model (the reference model)")
        ->transform(CLI::CheckedTransformer(implementations));
  };

  std::vector<std::string> files;
  CLI::App* check_command = app.add_subcommand(
      "check", "Run case files (shared/spec/cases.md); ends with 'N passed, N failed'");
  check_command->add_option("FILE", files, "Case files: JSON arrays of cases")->required();
  add_impl(check_command);

  std::string op;
  CLI::App* eval_command = app.add_subcommand(
      "eval", "Read one input object on stdin, print the result of OP on stdout");
  eval_command->add_option("OP", op, "Operation name, e.g. mention_dispatch")->required();
  add_impl(eval_command);

  thm::cli::ConformanceRequest suite;
  std::string report_path;
  CLI::App* conformance_command =
      app.add_subcommand("conformance",
                         "Run the host queue conformance suite against a queue; a table by EQ id, "
                         "exit 1 on any failure");
  conformance_command
      ->add_option("--queue", suite.queue,
                   "The queue under test: memory (the in-memory reference); sqlite:PATH (a new "
                   "or empty SQLite file, or one an earlier run made); postgres:CONNINFO (libpq "
                   "conninfo of a database with no tables, or one an earlier run made; empty "
                   "CONNINFO means the PG* variables). The suite wipes the thm tables.")
      ->capture_default_str();
  conformance_command
      ->add_option("--seed", suite.seed, "Seed of the first run; run k uses seed + k")
      ->capture_default_str();
  conformance_command
      ->add_option("--repeat", suite.repeat, "How often each race repeats within a run")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  conformance_command
      ->add_option("--runs", suite.runs,
                   "How many times the whole suite runs, each with its own seed")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  conformance_command->add_flag("--short", suite.short_mode,
                                "Smaller races and schedules, for a quick look");
  conformance_command->add_option("--check", suite.only,
                                  "Run only this check (repeatable), e.g. --check EQ-01");
  const CLI::Option* report_option = conformance_command->add_option(
      "--report", report_path, "Also write the report as JSON to this file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kOk : kUsage;
  }
  try {
    if (check_command->parsed()) return check(files, impl);
    if (conformance_command->parsed()) {
      if (report_option->count() > 0) suite.report_path = report_path;
      return thm::cli::run_conformance(suite, std::cout, std::cerr);
    }
    return eval(op, impl);
  } catch (const std::exception& failure) {
    std::cerr << "thm: internal error: " << failure.what() << "\n";
    return kUsage;
  }
}
