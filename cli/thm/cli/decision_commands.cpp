// The library's commands of the `thm` tool: `check` runs case files, `eval` one operation,
// `explain` one decision with its trace.
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/cli/cases.hpp"
#include "thm/cli/explain.hpp"
#include "thm/cli/tool.hpp"

namespace thm::cli {
namespace {

// The example input every `thm eval` message and help shows.
constexpr const char* kEvalExample = R"(echo '{"chat": "MAIN"}' | thm eval is_general_chat)";
// The example `thm explain` messages show: the README's, from a checkout's root.
constexpr const char* kExplainExample =
    "thm explain --text responder_plan < examples/explain/responder_plan.json";

// `text` padded with spaces to `width`, and at least one space.
std::string padded(const std::string& text, std::size_t width) {
  return text + std::string(text.size() < width ? width - text.size() : 1, ' ');
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
  std::vector<OperationInfo> ops = operations();
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
         wrapped(wire_type_names(), ", ", "  ") + "\n\n";
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

std::string explain_footer() {
  std::string ops;
  for (const std::string_view op : kExplainedOps) {
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

int check(const std::vector<std::string>& files, Implementation impl) {
  const CheckSummary summary = check_files(files, std::cout, std::cerr, impl);
  std::cout << summary_line(summary) << std::endl;
  if (summary.unreadable) return kUsage;
  return summary.failed == 0 ? kOk : kFailed;
}

// What `eval` and `explain` print.
enum class Printed : std::uint8_t { Result, Explanation, ExplanationText };

// `thm eval OP` and `thm explain OP`: reads the op's input on stdin, prints its result, or
// (explain) its result and trace, as JSON or as text.
int eval(const std::string& command, const std::string& op, Implementation impl, Printed printed) {
  const std::string prefix = "thm " + command + ": ";
  // The op is checked before stdin is read: a mistyped op should not wait for input.
  const auto ops = operations();
  const auto known =
      std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return o.name == op; });
  if (printed == Printed::Result && known == ops.end()) {
    std::cerr << prefix << "unknown op \"" << op << "\"; the ops are";
    for (std::size_t i = 0; i < ops.size(); ++i) std::cerr << (i == 0 ? " " : ", ") << ops[i].name;
    std::cerr << " (thm eval --help gives the input of each)\n";
    return kUsage;
  }
  if (printed != Printed::Result && std::ranges::find(kExplainedOps, op) == kExplainedOps.end()) {
    std::cerr << prefix << (known == ops.end() ? "unknown op \"" : "op \"") << op
              << (known == ops.end() ? "\"" : "\" has no trace") << "; the ops it explains are";
    for (std::size_t i = 0; i < kExplainedOps.size(); ++i) {
      std::cerr << (i == 0 ? " " : ", ") << kExplainedOps[i];
    }
    std::cerr << " (thm eval --help gives the input of each)\n";
    return kUsage;
  }
  struct stat input_file {};
  if (fstat(STDIN_FILENO, &input_file) == 0 && S_ISDIR(input_file.st_mode)) {
    std::cerr << prefix << "standard input is a directory; pipe the op's input object to it, e.g. "
              << (printed == Printed::Result ? kEvalExample : kExplainExample) << "\n";
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
  const auto result = printed == Printed::Result ? run_op(op, *input, std::move(refused), impl)
                                                 : explain_op(op, *input, std::move(refused), impl);
  if (!result.has_value()) {
    std::cerr << prefix << result.error() << "\n";
    return kUsage;
  }
  if (printed == Printed::ExplanationText) {
    std::cout << explanation_text(op, *result);
  } else {
    std::cout << result->dump() << "\n";
  }
  return kOk;
}

// Why `value` is no --impl: empty when it is one.
std::string impl_error(const std::string& value) {
  if (value == "core" || value == "prepared" || value == "model") return "";
  return "'" + value + "' is not an implementation: --impl takes core, prepared or model";
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

// The implementation --impl names; its validator accepted it.
Implementation implementation(const std::string& name) {
  return name == "model"      ? Implementation::Model
         : name == "prepared" ? Implementation::Prepared
                              : Implementation::Core;
}

// `thm check FILE...`.
class CheckCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    CLI::App* command = app.add_subcommand(
        "check", "Run case files (spec/cases.md); ends with 'N passed, N failed'");
    command
        ->add_option("FILE", files_,
                     "Case files, run in order (at least one): each a JSON array of cases "
                     "{\"name\", \"op\", \"input\", \"expected\"}")
        ->required();
    add_impl_option(command, impl_);
    command->footer(check_footer());
    return command;
  }
  int run() override { return check(files_, implementation(impl_)); }
  std::string succeeded() const override { return "every case passed"; }
  std::string failed() const override { return "a case failed"; }

 private:
  std::vector<std::string> files_;
  std::string impl_ = "core";
};

// `thm eval OP`.
class EvalCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    CLI::App* command = app.add_subcommand(
        "eval", "Read one input object on stdin, print the result of OP on stdout");
    command->add_option("OP", op_, "The operation to run: one of those listed below")->required();
    add_impl_option(command, impl_);
    command->footer(eval_footer());
    return command;
  }
  int run() override { return eval("eval", op_, implementation(impl_), Printed::Result); }
  std::string succeeded() const override { return "the result was printed"; }
  std::string failed() const override { return ""; }

 private:
  std::string op_;
  std::string impl_ = "core";
};

// `thm explain OP`.
class ExplainCommand final : public Command {
 public:
  CLI::App* add(CLI::App& app) override {
    std::string ops;
    for (const std::string_view op : kExplainedOps)
      ops += (ops.empty() ? "" : ", ") + std::string(op);
    CLI::App* command = app.add_subcommand(
        "explain", "Read one input object on stdin, print OP's result and the steps that made it");
    command->add_option("OP", op_, "The decision to explain: " + ops)->required();
    add_impl_option(command, impl_);
    command->add_flag("--text", text_,
                      "Print the explanation as text (the result, numbered steps, the agent's "
                      "sentences); default: JSON");
    command->footer(explain_footer());
    return command;
  }
  int run() override {
    return eval("explain", op_, implementation(impl_),
                text_ ? Printed::ExplanationText : Printed::Explanation);
  }
  std::string succeeded() const override { return "the explanation was printed"; }
  std::string failed() const override { return ""; }

 private:
  std::string op_;
  std::string impl_ = "core";
  bool text_ = false;
};

template <class C>
std::unique_ptr<Command> make() {
  return std::make_unique<C>();
}
[[maybe_unused]] const bool registered = register_command(10, make<CheckCommand>) &&
                                         register_command(20, make<EvalCommand>) &&
                                         register_command(30, make<ExplainCommand>);

}  // namespace
}  // namespace thm::cli
