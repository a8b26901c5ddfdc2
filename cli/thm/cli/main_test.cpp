// Runs the `thm` binary itself (THM_EXE): its help, exit codes and error messages as a user
// sees them.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "thm/cli/cases.hpp"
#include "thm/conformance/suite.hpp"

namespace thm::cli {
namespace {

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// `thm ARGS` with `input` on stdin; `args` is shell text.
Outcome thm(const std::string& args, const std::string& input = "") {
  const std::string base = testing::TempDir() + "thm_cli_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(base + ".in", std::ios::binary) << input;
  const std::string command = std::string("'") + THM_EXE + "' " + args + " <'" + base + ".in' >'" +
                              base + ".out' 2>'" + base + ".err'";
  const int status = std::system(command.c_str());
  return {.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          .out = slurp(base + ".out"),
          .err = slurp(base + ".err")};
}

// An error as the house style has it: exit 2, one line on stderr starting with `prefix`,
// lower case after the prefix (but for a name in capitals, like FILE), no trailing period.
void expect_usage_error(const Outcome& run, const std::string& prefix) {
  EXPECT_EQ(run.code, 2) << run.err;
  EXPECT_TRUE(run.err.starts_with(prefix)) << run.err;
  ASSERT_GT(run.err.size(), prefix.size() + 1) << run.err;
  EXPECT_FALSE(std::isupper(static_cast<unsigned char>(run.err[prefix.size()])) != 0 &&
               std::islower(static_cast<unsigned char>(run.err[prefix.size() + 1])) != 0)
      << run.err;
  EXPECT_TRUE(run.err.ends_with("\n")) << run.err;
  EXPECT_FALSE(run.err.ends_with(".\n")) << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- help ------------------------------------------------------------------------------------

TEST(HelpTest, TopLevelHelpNamesEveryCommandStreamAndExitCode) {
  const Outcome run = thm("--help");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.err, "");
  for (const char* part : {"check", "eval", "conformance", "--version", "thm COMMAND --help",
                           "stdout", "stderr", "Exit codes:", "\n  0  ", "\n  1  ", "\n  2  "}) {
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  }
}

TEST(HelpTest, EvalHelpListsEveryOperationOfTheDispatchTableWithItsInput) {
  const Outcome run = thm("eval --help");
  EXPECT_EQ(run.code, 0);
  ASSERT_FALSE(operations().empty());
  for (const OperationInfo& op : operations()) {
    EXPECT_TRUE(has(run.out, "\n  " + op.name + " ")) << op.name << "\n" << run.out;
    EXPECT_TRUE(has(run.out, op.input)) << op.name << "\n" << run.out;
  }
  for (const std::string& type : wire_type_names()) {
    EXPECT_TRUE(has(run.out, " " + type)) << type << "\n" << run.out;
  }
  for (const char* part : {"OP", "--impl", "default: core", "stdin", "stdout", "stderr",
                           "| thm eval is_general_chat", "Exit codes:", "\n  0  ", "\n  2  "}) {
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  }
}

TEST(HelpTest, CheckHelpSaysWhatItPrintsAndEveryExitCode) {
  const Outcome run = thm("check --help");
  EXPECT_EQ(run.code, 0);
  for (const char* part : {"FILE", "--impl", "default: core", "N passed, N failed", "FAIL",
                           "stdout", "stderr", "Exit codes:", "\n  0  ", "\n  1  ", "\n  2  "}) {
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  }
}

TEST(HelpTest, ConformanceHelpListsEveryOptionCheckAndExitCode) {
  const Outcome run = thm("conformance --help");
  EXPECT_EQ(run.code, 0);
  for (const char* part : {"--queue", "memory", "sqlite:PATH", "postgres:CONNINFO", "--seed",
                           "--repeat", "--runs", "--short", "--check", "--report", "stdout",
                           "stderr", "Exit codes:", "\n  0  ", "\n  1  ", "\n  2  "}) {
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  }
  for (const auto& check : conformance::checks()) {
    EXPECT_TRUE(has(run.out, std::string(check.id) + "  " + std::string(check.title)))
        << check.id << "\n"
        << run.out;
  }
}

// ---- usage errors ----------------------------------------------------------------------------

TEST(UsageErrorTest, NoOrAnUnknownCommandNamesTheCommands) {
  const Outcome none = thm("");
  expect_usage_error(none, "thm: ");
  EXPECT_TRUE(has(none.err, "check, eval, conformance or adapter")) << none.err;
  EXPECT_TRUE(has(none.err, "thm --help")) << none.err;
  const Outcome unknown = thm("frobnicate");
  expect_usage_error(unknown, "thm: unknown command 'frobnicate'");
  EXPECT_TRUE(has(unknown.err, "check, eval, conformance or adapter")) << unknown.err;
}

TEST(UsageErrorTest, ParseErrorsNameTheCommandAndPointAtItsHelp) {
  expect_usage_error(thm("check"), "thm check: ");
  EXPECT_TRUE(has(thm("check").err, "thm check --help"));
  const Outcome bogus = thm("eval --bogus is_general_chat");
  expect_usage_error(bogus, "thm eval: ");
  EXPECT_TRUE(has(bogus.err, "--bogus")) << bogus.err;
  EXPECT_TRUE(has(bogus.err, "thm eval --help")) << bogus.err;
  const Outcome impl = thm("check --impl rust x.json");
  expect_usage_error(impl, "thm check: ");
  EXPECT_TRUE(has(impl.err, "core or model")) << impl.err;
  const Outcome runs = thm("conformance --runs 0");
  expect_usage_error(runs, "thm conformance: ");
  EXPECT_TRUE(has(runs.err, "thm conformance --help")) << runs.err;
}

// ---- thm eval --------------------------------------------------------------------------------

TEST(EvalCommandTest, PrintsTheResultOnStdout) {
  const Outcome run = thm("eval is_general_chat", R"({"chat":"MAIN"})");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.out, "{\"result\":true}\n");
  EXPECT_EQ(run.err, "");
}

TEST(EvalCommandTest, AnUnknownOpListsTheOps) {
  const Outcome run = thm("eval frobnicate", "{}");
  expect_usage_error(run, "thm eval: unknown op \"frobnicate\"");
  EXPECT_EQ(run.out, "");
  for (const OperationInfo& op : operations()) EXPECT_TRUE(has(run.err, op.name)) << run.err;
}

TEST(EvalCommandTest, AnOpTheModelDoesNotRunSaysSo) {
  const Outcome run = thm("eval --impl model briefing_text", "{}");
  expect_usage_error(run, "thm eval: ");
  EXPECT_TRUE(has(run.err, "briefing_text")) << run.err;
  EXPECT_TRUE(has(run.err, "--impl core")) << run.err;
}

TEST(EvalCommandTest, StdinThatIsNotJsonGetsAnExample) {
  const Outcome run = thm("eval is_general_chat", "chat: MAIN");
  expect_usage_error(run, "thm eval: standard input is not JSON");
  EXPECT_TRUE(has(run.err, "expected one JSON object")) << run.err;
  EXPECT_TRUE(has(run.err, "| thm eval is_general_chat")) << run.err;
  const Outcome empty = thm("eval is_general_chat", " \n");
  expect_usage_error(empty, "thm eval: standard input is empty");
  EXPECT_TRUE(has(empty.err, "expected one JSON object")) << empty.err;
}

// ---- thm check -------------------------------------------------------------------------------

TEST(CheckCommandTest, ExitCodesSayPassedFailedOrUnreadable) {
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "thm_cli_pass.json")
      << R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])";
  std::ofstream(dir + "thm_cli_fail.json")
      << R"([{"name":"f","op":"is_general_chat","input":{"chat":"x"},"expected":{"result":true}}])";
  const Outcome passed = thm("check '" + dir + "thm_cli_pass.json'");
  EXPECT_EQ(passed.code, 0);
  EXPECT_EQ(passed.out, "1 passed, 0 failed\n");
  const Outcome failed = thm("check '" + dir + "thm_cli_fail.json'");
  EXPECT_EQ(failed.code, 1);
  EXPECT_TRUE(failed.out.ends_with("0 passed, 1 failed\n")) << failed.out;
  EXPECT_EQ(failed.err, "");
  const Outcome missing = thm("check '" + dir + "thm_cli_no_such_file.json'");
  expect_usage_error(missing, "thm check: cannot read '" + dir + "thm_cli_no_such_file.json'");
  EXPECT_TRUE(has(missing.err, "no such file")) << missing.err;
  EXPECT_EQ(missing.out, "0 passed, 0 failed\n");
}

// ---- thm conformance -------------------------------------------------------------------------

TEST(ConformanceCommandLineTest, BadQueueAndCheckAreUsageErrors) {
  const Outcome queue = thm("conformance --queue redis");
  expect_usage_error(queue, "thm conformance: unknown queue 'redis'");
  EXPECT_TRUE(has(queue.err, "sqlite:PATH")) << queue.err;
  const Outcome check = thm("conformance --check EQ-99");
  expect_usage_error(check, "thm conformance: no check 'EQ-99'");
  EXPECT_TRUE(has(check.err, "EQ-01")) << check.err;
}

}  // namespace
}  // namespace thm::cli
