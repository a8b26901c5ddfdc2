// Runs the `thm` tool built with the kit (THM_EXE): the kit's commands, `conformance` and
// `adapter`, as a user sees them, and the tool's frame with them in it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "thm/conformance/suite.hpp"
#include "thm/testing/tool_runner.hpp"

namespace thm::cli {
namespace {

using thm::testing::expect_usage_error;
using thm::testing::has;
using thm::testing::Outcome;
using thm::testing::slurp;
using thm::testing::thm;

TEST(HelpTest, TopLevelHelpNamesTheKitsCommandsAndTheirExitCodes) {
  const Outcome run = thm("--help");
  EXPECT_EQ(run.code, 0);
  for (const char* part :
       {"check", "eval", "explain", "conformance", "adapter",
        "every check passed or was skipped (conformance)", "a check failed (conformance)"}) {
    EXPECT_TRUE(has(run.out, part)) << part << "\n" << run.out;
  }
}

TEST(UsageErrorTest, NoOrAnUnknownCommandNamesEveryCommand) {
  const Outcome none = thm("");
  expect_usage_error(none, "thm: ");
  EXPECT_TRUE(has(none.err, "check, eval, explain, conformance or adapter")) << none.err;
  const Outcome unknown = thm("frobnicate");
  expect_usage_error(unknown, "thm: unknown command 'frobnicate'");
  EXPECT_TRUE(has(unknown.err, "check, eval, explain, conformance or adapter")) << unknown.err;
  const Outcome runs = thm("conformance --runs 0");
  expect_usage_error(runs, "thm conformance: ");
  EXPECT_TRUE(has(runs.err, "thm conformance --help")) << runs.err;
}

TEST(UnwritableStdoutTest, ConformanceAndAdapterFailWithOneLine) {
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

TEST(ConformanceCommandLineTest, ListChecksPrintsEachIdAndTitleAndRunsNothing) {
  const Outcome run = thm("conformance --list-checks --queue exec:false");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  std::string expected;
  for (const auto& check : conformance::checks()) {
    expected += std::string(check.id) + "\t" + std::string(check.title) + "\n";
  }
  EXPECT_EQ(run.out, expected);
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
  const std::string dir = ::testing::TempDir() + "thm_cli_report_dash";
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

// An adapter at `base`.sh that fails its first reset at once (EQ-05 finishes) and then hangs
// in its second (EQ-08), in a `sleep` of its process group; it lists both processes' ids in
// `pids`. Its queue.
std::string hanging_adapter(const std::string& base, const std::string& pids) {
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
  return "exec:sh '" + script + "'";
}

// The tool started on EQ-05 and EQ-08 of `queue`, with its stdout and stderr in `base`.out
// and .err, and a JSON and a JUnit report asked for; its pid.
pid_t start_tool(const std::string& base, const std::string& queue) {
  const std::string out_path = base + ".out";
  const std::string err_path = base + ".err";
  const std::string report = base + ".json";
  const std::string junit = base + ".xml";
  const pid_t tool = ::fork();
  if (tool == 0) {  // only async-signal-safe calls until exec
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execl(THM_EXE, THM_EXE, "conformance", "--exec-timeout", "300", "--check", "EQ-05", "--check",
            "EQ-08", "--queue", queue.c_str(), "--report", report.c_str(), "--junit", junit.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return tool;
}

// How `tool` ended, waiting at most 20 s for it (then it is killed, and the test fails).
int wait_for_exit(pid_t tool) {
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
  return status;
}

TEST(ConformanceSignalTest, AnInterruptKillsTheAdapterPrintsThePartialTableAndExits128PlusIt) {
  for (const int signal : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(signal);
    const std::string base = ::testing::TempDir() + "thm_cli_signal_" + std::to_string(signal);
    const std::string pids = base + ".pids";
    std::filesystem::remove(pids);
    const std::string queue = hanging_adapter(base, pids);
    // A report from an earlier run stays as it was; the JUnit report is never made.
    const std::string report = base + ".json";
    const std::string junit = base + ".xml";
    std::ofstream(report) << "an earlier run's report\n";
    std::filesystem::remove(junit);
    const pid_t tool = start_tool(base, queue);
    ASSERT_GE(tool, 0);
    // Wait until the adapter hangs in EQ-08: both its processes are listed.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pids_in(pids).size() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const std::vector<pid_t> adapter = pids_in(pids);
    EXPECT_EQ(adapter.size(), 2U) << slurp(base + ".err");
    ::kill(tool, signal);
    const int status = wait_for_exit(tool);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the group's reaper
    for (const pid_t pid : adapter) {
      EXPECT_FALSE(running(pid)) << "adapter process " << pid << " still runs";
      if (running(pid)) ::kill(pid, SIGKILL);
    }
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 128 + signal);
    const std::string out = slurp(base + ".out");
    const std::string err = slurp(base + ".err");
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
