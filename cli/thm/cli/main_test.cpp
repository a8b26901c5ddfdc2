// Runs the `thm` binary itself (THM_EXE): its help, exit codes and error messages as a user
// sees them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "thm/cli/cases.hpp"
#include "thm/testing/tool_runner.hpp"

namespace thm::cli {
namespace {

using json::Value;

using thm::testing::expect_usage_error;
using thm::testing::has;
using thm::testing::Outcome;
using thm::testing::slurp;
using thm::testing::thm;

// ---- help ------------------------------------------------------------------------------------

TEST(HelpTest, TopLevelHelpNamesEveryCommandStreamAndExitCode) {
  const Outcome run = thm("--help");
  EXPECT_EQ(run.code, 0);
  EXPECT_EQ(run.err, "");
  for (const char* part : {"check", "eval", "explain", "--version", "thm COMMAND --help", "stdout",
                           "stderr", "Exit codes:", "\n  0  ", "\n  1  ", "\n  2  "}) {
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

// ---- usage errors ----------------------------------------------------------------------------

TEST(UsageErrorTest, NoOrAnUnknownCommandNamesTheCommands) {
  const Outcome none = thm("");
  expect_usage_error(none, "thm: ");
  EXPECT_TRUE(has(none.err, "check, eval or explain")) << none.err;
  EXPECT_TRUE(has(none.err, "thm --help")) << none.err;
  const Outcome unknown = thm("frobnicate");
  expect_usage_error(unknown, "thm: unknown command 'frobnicate'");
  EXPECT_TRUE(has(unknown.err, "check, eval or explain")) << unknown.err;
  EXPECT_FALSE(has(unknown.err, "queue kit")) << unknown.err;
}

// The library's tool has no kit commands: asking for one says where they come from.
TEST(UsageErrorTest, AKitCommandSaysItComesWithTheKit) {
  for (const char* command : {"conformance --short", "adapter"}) {
    const Outcome kit = thm(command);
    expect_usage_error(kit, "thm: unknown command '");
    EXPECT_TRUE(has(kit.err, "comes with the queue kit's build of thm (kit/README.md)")) << kit.err;
  }
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
  EXPECT_TRUE(has(impl.err, "core, prepared or model")) << impl.err;
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

// `thm eval OP < some/folder`: the shell opens a directory for reading; the tool says so.
TEST(EvalCommandTest, ADirectoryOnStandardInputIsNamed) {
  const std::string err = ::testing::TempDir() + "thm_cli_directory_stdin.err";
  const std::string command = "'" + std::string(THM_EXE) + "' eval is_general_chat <'" +
                              ::testing::TempDir() + "' >/dev/null 2>'" + err + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_TRUE(has(slurp(err), "thm eval: standard input is a directory")) << slurp(err);
}

TEST(EvalCommandTest, ANulByteAndWhatFollowsItAreRefusedNotIgnored) {
  // SPEC §0.5: a document that says two things is refused, not read up to the NUL.
  const Outcome run =
      thm("eval is_general_chat", std::string(R"({"chat":"main"})") + '\0' + R"({"chat":"x"})");
  expect_usage_error(run, "thm eval: standard input is not JSON");
  EXPECT_TRUE(has(run.err, "trailing bytes")) << run.err;
  EXPECT_EQ(run.out, "");
}

// ---- thm explain -----------------------------------------------------------------------------

// A reply from alice whose first direct agent mention is a retired agent (SPEC §3.2 step 7).
constexpr const char* kRetiredTarget =
    R"({"policy":{"enabled":true,"max_hops":2},"roster":{"members":[{"id":"alice","name":null},)"
    R"({"id":"bob","name":null}],"people":[],"retired":["bob"],"tombstoned":[]},)"
    R"("input":{"key":{"trigger_sequence":7},"conversation":{"desk_id":"General","thread_root":null},)"
    R"("author_id":"alice","content":"@bob over to you","mentions":[{"target":{"kind":"agent",)"
    R"("id":"bob"},"text":"@bob","offset":0}],"hop":0}})";

TEST(ExplainCommandTest, PrintsTheDecisionItsStepsAndTheAgentsSentences) {
  const Outcome run = thm("explain mention_dispatch", kRetiredTarget);
  ASSERT_EQ(run.code, 0) << run.err;
  const Value out = Value::parse(run.out);
  EXPECT_EQ(out.at("decision").at("reason"), "target_inactive");
  EXPECT_EQ(out.at("trace").back().at("rule"), "target_active");
  EXPECT_EQ(out.at("operator").size(), out.at("trace").size());
  EXPECT_EQ(out.at("agent").back(), std::string(kNoAvailableTarget));
  EXPECT_FALSE(has(out.at("agent").dump(), "bob")) << run.out;
  EXPECT_TRUE(has(out.at("operator").dump(), "bob")) << run.out;
}

TEST(ExplainCommandTest, TextNumbersTheStepsAndEndsWithTheAgentsForm) {
  const Outcome run = thm("explain --text mention_dispatch", kRetiredTarget);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_TRUE(has(run.out, "mention_dispatch: no child turn (target_inactive)\n")) << run.out;
  EXPECT_TRUE(has(run.out, "  1. enabled: dispatch is on\n")) << run.out;
  EXPECT_TRUE(has(run.out, "target active: bob is not an active member")) << run.out;
  EXPECT_TRUE(has(run.out, "for the agent:\n")) << run.out;
}

TEST(ExplainCommandTest, AnOpWithoutATraceIsABadUsageBeforeStdinIsRead) {
  const Outcome run = thm("explain is_general_chat", "");
  expect_usage_error(run, "thm explain: op \"is_general_chat\" has no trace");
  EXPECT_TRUE(has(run.err, "responder_plan")) << run.err;
}

// ---- thm check -------------------------------------------------------------------------------

TEST(CheckCommandTest, ExitCodesSayPassedFailedOrUnreadable) {
  const std::string dir = ::testing::TempDir();
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

TEST(CheckCommandTest, AFileWithNoCasesFailsTheRun) {
  const std::string path = ::testing::TempDir() + "thm_cli_no_cases.json";
  std::ofstream(path) << "[]";
  const Outcome run = thm("check '" + path + "'");
  expect_usage_error(run, "thm check: '" + path + "' holds no cases");
  EXPECT_EQ(run.out, "0 passed, 0 failed\n");
}

TEST(CheckCommandTest, ACaseFileFollowedByANulByteIsNotJson) {
  const std::string path = ::testing::TempDir() + "thm_cli_nul.json";
  std::ofstream(path, std::ios::binary)
      << R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])"
      << '\0' << R"([{"name":"x"}])";
  const Outcome run = thm("check '" + path + "'");
  expect_usage_error(run, "thm check: '" + path + "' is not JSON");
  EXPECT_TRUE(has(run.err, "trailing bytes")) << run.err;
  EXPECT_EQ(run.out, "0 passed, 0 failed\n");
}

// ---- stdout that cannot be written -----------------------------------------------------------

TEST(UnwritableStdoutTest, EvalAndCheckFailWithOneLine) {
  // Output that was lost is no success: each command flushes stdout and checks it.
  const Outcome eval = thm("eval is_general_chat", R"({"chat":"MAIN"})", "/dev/full");
  expect_usage_error(eval, "thm eval: cannot write to standard output");
  EXPECT_TRUE(has(eval.err, "no space left on device")) << eval.err;

  const std::string path = ::testing::TempDir() + "thm_cli_pass_full.json";
  std::ofstream(path)
      << R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])";
  expect_usage_error(thm("check '" + path + "'", "", "/dev/full"),
                     "thm check: cannot write to standard output");

  for (const char* printing : {"--help", "--version", "check --help"}) {
    expect_usage_error(thm(printing, "", "/dev/full"), "thm: cannot write to standard output");
  }
}

}  // namespace
}  // namespace thm::cli
