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
#include "thm/conformance/suite.hpp"

namespace thm::cli {
namespace {

using json::Value;

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

// `thm ARGS` with `input` on stdin; `args` is shell text. `stdout_to` replaces the file
// that catches stdout (e.g. /dev/full); `out` is then empty. `in_dir` is the directory it
// runs in (default: the test's own).
Outcome thm(const std::string& args, const std::string& input = "",
            const std::string& stdout_to = "", const std::string& in_dir = "") {
  const std::string base = testing::TempDir() + "thm_cli_" +
                           testing::UnitTest::GetInstance()->current_test_info()->name();
  std::ofstream(base + ".in", std::ios::binary) << input;
  std::ofstream(base + ".out", std::ios::trunc).close();
  const std::string out = stdout_to.empty() ? base + ".out" : stdout_to;
  const std::string command = (in_dir.empty() ? "" : "cd '" + in_dir + "' && ") + "'" + THM_EXE +
                              "' " + args + " <'" + base + ".in' >'" + out + "' 2>'" + base +
                              ".err'";
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
  EXPECT_TRUE(has(none.err, "check, eval, explain, conformance or adapter")) << none.err;
  EXPECT_TRUE(has(none.err, "thm --help")) << none.err;
  const Outcome unknown = thm("frobnicate");
  expect_usage_error(unknown, "thm: unknown command 'frobnicate'");
  EXPECT_TRUE(has(unknown.err, "check, eval, explain, conformance or adapter")) << unknown.err;
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

TEST(CheckCommandTest, AFileWithNoCasesFailsTheRun) {
  const std::string path = testing::TempDir() + "thm_cli_no_cases.json";
  std::ofstream(path) << "[]";
  const Outcome run = thm("check '" + path + "'");
  expect_usage_error(run, "thm check: '" + path + "' holds no cases");
  EXPECT_EQ(run.out, "0 passed, 0 failed\n");
}

TEST(CheckCommandTest, ACaseFileFollowedByANulByteIsNotJson) {
  const std::string path = testing::TempDir() + "thm_cli_nul.json";
  std::ofstream(path, std::ios::binary)
      << R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])"
      << '\0' << R"([{"name":"x"}])";
  const Outcome run = thm("check '" + path + "'");
  expect_usage_error(run, "thm check: '" + path + "' is not JSON");
  EXPECT_TRUE(has(run.err, "trailing bytes")) << run.err;
  EXPECT_EQ(run.out, "0 passed, 0 failed\n");
}

TEST(ConformanceCommandLineTest, ASeedIsADecimalU64AndNothingElse) {
  for (const char* seed : {"-1", "18446744073709551616", "+5", "0x10", "1e3", "' 7'", "''", "7s"}) {
    SCOPED_TRACE(seed);
    const Outcome run = thm(std::string("conformance --short --check EQ-05 --seed ") + seed);
    expect_usage_error(run, "thm conformance: --seed");
    EXPECT_TRUE(has(run.err, "a decimal number from 0 to 18446744073709551615")) << run.err;
    EXPECT_EQ(run.out, "");
  }
  const Outcome largest = thm("conformance --short --check EQ-05 --seed 18446744073709551615");
  EXPECT_EQ(largest.code, 0) << largest.err;
  EXPECT_TRUE(has(largest.out, "from seed 18446744073709551615,")) << largest.out;
}

TEST(ConformanceCommandLineTest, ReportDashMeansStdoutAndStdoutStaysJson) {
  const std::string dir = testing::TempDir() + "thm_cli_report_dash";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/-");
  const Outcome in_dir = thm("conformance --short --check EQ-05 --report -", "", "", dir);
  EXPECT_EQ(in_dir.code, 0) << in_dir.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/-"));
  const auto report = nlohmann::json::parse(in_dir.out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << in_dir.out;
  EXPECT_EQ(report["checks"][0]["id"], "EQ-05");
  EXPECT_TRUE(has(in_dir.err, "1 passed, 0 failed, 0 skipped")) << in_dir.err;
  const Outcome help = thm("conformance --help");
  EXPECT_TRUE(has(help.out, "--report -")) << help.out;
}

// ---- signals -----------------------------------------------------------------------------------

// Whether process `pid` still runs (a zombie does not: it only waits to be reaped).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const std::size_t name_end = text.rfind(')');
  return name_end != std::string::npos && name_end + 2 < text.size() && text[name_end + 2] != 'Z';
}

// The process ids listed in `path`, one a line.
std::vector<pid_t> pids_in(const std::string& path) {
  std::vector<pid_t> pids;
  std::ifstream file(path);
  for (pid_t pid = 0; file >> pid;) pids.push_back(pid);
  return pids;
}

TEST(ConformanceSignalTest, AnInterruptKillsTheAdapterPrintsThePartialTableAndExits128PlusIt) {
  for (const int signal : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(signal);
    const std::string base = testing::TempDir() + "thm_cli_signal_" + std::to_string(signal);
    const std::string pids = base + ".pids";
    std::filesystem::remove(pids);
    // An adapter that fails its first reset at once (EQ-05 finishes) and then hangs in its
    // second (EQ-08), in a `sleep` of its process group; it lists both processes' ids.
    const std::string script = base + ".sh";
    std::ofstream(script)
        << "echo $$ >> '" << pids << "'\n"
        << "read line\n"
        << R"(echo '{"id":1,"result":{"protocol":1,"name":"slow","sessions":"processes","capabilities":{"hooks":true}}}')"
        << "\nresets=0\n"
        << "while read line; do\n"
        << R"(  id=$(echo "$line" | sed 's/^.*"id":\([0-9][0-9]*\).*$/\1/'))"
        << "\n"
        << R"(  case "$line" in *'"op":"reset"'*) resets=$((resets + 1));; esac)"
        << "\n"
        << "  if [ $resets -ge 2 ]; then sleep 300 & echo $! >> '" << pids << "'; wait $!; fi\n"
        << R"(  echo "{\"id\":$id,\"failure\":\"this adapter fails on purpose\"}")"
        << "\n"
        << "done\n";
    const std::string queue = "exec:sh '" + script + "'";
    const std::string out_path = base + ".out";
    const std::string err_path = base + ".err";
    // A report from an earlier run stays as it was; the JUnit report is never made.
    const std::string report = base + ".json";
    const std::string junit = base + ".xml";
    std::ofstream(report) << "an earlier run's report\n";
    std::filesystem::remove(junit);
    const pid_t tool = ::fork();
    ASSERT_GE(tool, 0);
    if (tool == 0) {  // only async-signal-safe calls until exec
      const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execl(THM_EXE, THM_EXE, "conformance", "--exec-timeout", "300", "--check", "EQ-05",
              "--check", "EQ-08", "--queue", queue.c_str(), "--report", report.c_str(), "--junit",
              junit.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait until the adapter hangs in EQ-08: both its processes are listed.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pids_in(pids).size() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::vector<pid_t> adapter = pids_in(pids);
    EXPECT_EQ(adapter.size(), 2U) << slurp(err_path);
    ::kill(tool, signal);
    int status = 0;
    pid_t waited = 0;
    const auto exit_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while ((waited = ::waitpid(tool, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < exit_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (waited == 0) {
      ::kill(tool, SIGKILL);
      ::waitpid(tool, &status, 0);
      ADD_FAILURE() << "the tool did not end after the signal";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the group's reaper
    for (const pid_t pid : adapter) {
      EXPECT_FALSE(running(pid)) << "adapter process " << pid << " still runs";
      if (running(pid)) ::kill(pid, SIGKILL);
    }
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    const std::string out = slurp(out_path);
    const std::string err = slurp(err_path);
    const std::string name = signal == SIGTERM ? "SIGTERM" : "SIGINT";
    EXPECT_TRUE(has(out, "EQ-05")) << out;
    // The check the signal cut short is a failed row, so no summary reads as a green run.
    EXPECT_TRUE(has(out, "\nEQ-08  fail")) << out;
    EXPECT_TRUE(has(out, "interrupted by " + name + " before it finished")) << out;
    EXPECT_TRUE(has(out, "0 passed, 2 failed, 0 skipped")) << out;
    EXPECT_TRUE(has(err, "thm conformance: stopping: ")) << err;
    EXPECT_TRUE(has(err, "\nthm conformance: interrupted by " + name + " during EQ-08")) << err;
    EXPECT_TRUE(err.ends_with("\n")) << err;
    EXPECT_EQ(slurp(report), "an earlier run's report\n");
    EXPECT_FALSE(std::filesystem::exists(junit));
    EXPECT_FALSE(std::filesystem::exists(report + ".partial"));
    EXPECT_FALSE(std::filesystem::exists(junit + ".partial"));
  }
}

// ---- stdout that cannot be written -----------------------------------------------------------

TEST(UnwritableStdoutTest, EvalCheckAndConformanceFailWithOneLine) {
  // Output that was lost is no success: each command flushes stdout and checks it.
  const Outcome eval = thm("eval is_general_chat", R"({"chat":"MAIN"})", "/dev/full");
  expect_usage_error(eval, "thm eval: cannot write to standard output");
  EXPECT_TRUE(has(eval.err, "no space left on device")) << eval.err;

  const std::string path = testing::TempDir() + "thm_cli_pass_full.json";
  std::ofstream(path)
      << R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])";
  expect_usage_error(thm("check '" + path + "'", "", "/dev/full"),
                     "thm check: cannot write to standard output");

  const Outcome conformance = thm("conformance --short --check EQ-05", "", "/dev/full");
  EXPECT_EQ(conformance.code, 2) << conformance.err;
  EXPECT_TRUE(has(conformance.err, "\nthm conformance: cannot write to standard output"))
      << conformance.err;
  EXPECT_TRUE(conformance.err.ends_with("\n")) << conformance.err;

  for (const char* printing : {"--help", "--version", "conformance --help"}) {
    expect_usage_error(thm(printing, "", "/dev/full"), "thm: cannot write to standard output");
  }
  expect_usage_error(thm("adapter memory",
                         R"({"id":1,"op":"hello","protocol":1})"
                         "\n",
                         "/dev/full"),
                     "thm adapter: cannot write to standard output");
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
