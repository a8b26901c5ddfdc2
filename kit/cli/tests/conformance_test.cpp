#include "thm/cli/conformance.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace thm::cli {
namespace {

TEST(ConformanceCommandTest, RunsTheMemoryQueueAndWritesTheReport) {
  const auto path = std::filesystem::temp_directory_path() / "thm_conformance_report_test.json";
  std::ostringstream out;
  std::ostringstream progress;
  const int code = run_conformance({.queue = "memory",
                                    .seed = 4,
                                    .repeat = 2,
                                    .runs = 2,
                                    .short_mode = true,
                                    .only = {"EQ-01", "EQ-04", "EQ-11"},
                                    .report_path = path.string()},
                                   out, progress);
  EXPECT_EQ(code, 0) << out.str() << progress.str();
  EXPECT_NE(progress.str().find("run 2/2  EQ-11  pass"), std::string::npos) << progress.str();
  EXPECT_NE(out.str().find("2 passed, 0 failed, 1 skipped"), std::string::npos) << out.str();
  std::ifstream file(path);
  const auto report = nlohmann::json::parse(file);
  EXPECT_EQ(report["harness"], "memory");
  ASSERT_EQ(report["checks"].size(), 3U);
  EXPECT_EQ(report["checks"][0]["id"], "EQ-01");
  // Two runs of a race of 2 and a race of 8, each repeated twice.
  EXPECT_EQ(report["checks"][0]["counts"]["attempts"], 2 * 2 * (2 + 8));
  EXPECT_EQ(report["checks"][1]["result"], "skip");
  std::filesystem::remove(path);
}

// --junit writes one testcase per check beside a JSON report that says how the run was made
// and how long each run of each check took (report_test.cpp covers a failure's testcase).
TEST(ConformanceCommandTest, JUnitAndTheJsonReportSayWhatRanAndHow) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto junit = dir / "thm_conformance_junit_test.xml";
  const auto json = dir / "thm_conformance_junit_test.json";
  std::ostringstream out;
  std::ostringstream progress;
  const int code = run_conformance({.runs = 2,
                                    .short_mode = true,
                                    .only = {"EQ-05", "EQ-23"},
                                    .report_path = json.string(),
                                    .junit_path = junit.string(),
                                    .tool = "thm 9.9.9"},
                                   out, progress);
  EXPECT_EQ(code, 0) << out.str() << progress.str();
  std::ifstream xml_file(junit);
  const std::string xml((std::istreambuf_iterator<char>(xml_file)), {});
  EXPECT_NE(xml.find(R"(tests="2" failures="0" errors="0" skipped="1")"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<property name="tool" value="thm 9.9.9"/>)"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<testcase classname="conformance.memory" name="EQ-05 )"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\""), std::string::npos) << xml;
  std::ifstream json_file(json);
  const auto report = nlohmann::json::parse(json_file);
  EXPECT_EQ(report["tool"], "thm 9.9.9");
  EXPECT_EQ(report["options"]["runs"], 2);
  EXPECT_EQ(report["options"]["checks"], nlohmann::json::array({"EQ-05", "EQ-23"}));
  EXPECT_EQ(report["capabilities"]["hooks"], true);
  EXPECT_EQ(report["capabilities"]["persistent"], false);
  ASSERT_EQ(report["checks"].size(), 2U);
  ASSERT_EQ(report["checks"][0]["runs"].size(), 2U);
  EXPECT_EQ(report["checks"][0]["runs"][1]["seed"], 2);
  EXPECT_TRUE(report["checks"][0]["replay"].is_null());
  std::filesystem::remove(junit);
  std::filesystem::remove(json);
}

TEST(ConformanceCommandTest, AJUnitPathThatCannotBeWrittenStopsTheRunBeforeItStarts) {
  // An earlier run's report at --report stays as it was: nothing is put in place before the
  // run has finished.
  const auto report = std::filesystem::temp_directory_path() / "thm_conformance_kept.json";
  std::ofstream(report) << "an earlier run's report\n";
  std::ostringstream kept_out;
  std::ostringstream kept_progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"},
                             .report_path = report.string(),
                             .junit_path = "/nonexistent/dir/junit.xml"},
                            kept_out, kept_progress),
            2);
  std::ifstream kept(report);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(kept)), {}), "an earlier run's report\n");
  EXPECT_FALSE(std::filesystem::exists(report.string() + ".partial"));
  std::filesystem::remove(report);

  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .junit_path = "/nonexistent/dir/junit.xml"}, out,
                            progress),
            2);
  EXPECT_NE(progress.str().find("cannot write the JUnit report to '/nonexistent/dir/junit.xml'"),
            std::string::npos)
      << progress.str();
  EXPECT_EQ(progress.str().find("EQ-05  start"), std::string::npos) << "a check was run";
}

TEST(ConformanceCommandTest, ReportAndJUnitNamingOneFileIsABadUsage) {
  const auto path = (std::filesystem::temp_directory_path() / "thm_conformance_one.out").string();
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(
      run_conformance({.only = {"EQ-05"}, .report_path = path, .junit_path = path}, out, progress),
      2);
  EXPECT_NE(progress.str().find("--report and --junit name the same file"), std::string::npos)
      << progress.str();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ConformanceCommandTest, HtmlSharesNoFileWithTheOtherReports) {
  const auto path = (std::filesystem::temp_directory_path() / "thm_conformance_one.page").string();
  for (const auto& request :
       {ConformanceRequest{.only = {"EQ-05"}, .report_path = path, .html_path = path},
        ConformanceRequest{.only = {"EQ-05"}, .junit_path = path, .html_path = path}}) {
    std::ostringstream out;
    std::ostringstream progress;
    EXPECT_EQ(run_conformance(request, out, progress), 2);
    EXPECT_NE(progress.str().find("and --html name the same file"), std::string::npos)
        << progress.str();
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .html_path = "-"}, out, progress), 2);
  EXPECT_NE(progress.str().find("--html needs a file path"), std::string::npos) << progress.str();
}

TEST(ConformanceCommandTest, HtmlWritesThePageOfTheRun) {
  const auto page = std::filesystem::temp_directory_path() / "thm_conformance_page.html";
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(
      run_conformance({.only = {"EQ-05", "EQ-23"}, .html_path = page.string(), .tool = "thm 9.9.9"},
                      out, progress),
      0)
      << progress.str();
  std::ifstream file(page);
  const std::string html((std::istreambuf_iterator<char>(file)), {});
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>")) << html;
  EXPECT_NE(html.find("No check failed (1 passed, 0 failed, 1 skipped)"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<b>EQ-23</b></a> an acknowledged enqueue survives a crash and a restart: "
                      "<span class=\"result "
                      "skip\">not tested</span>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("thm 9.9.9"), std::string::npos);
  std::filesystem::remove(page);
}

TEST(ConformanceCommandTest, HistoryWritesEveryRunsCallsAndSharesNoFile) {
  const auto path = std::filesystem::temp_directory_path() / "thm_conformance_history.json";
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.runs = 2, .only = {"EQ-05", "EQ-26"}, .history_path = path.string()},
                            out, progress),
            0)
      << progress.str();
  std::ifstream file(path);
  const auto document = nlohmann::json::parse(file);
  ASSERT_EQ(document.at("checks").size(), 2U);
  for (const auto& check : document.at("checks")) {
    ASSERT_EQ(check.at("runs").size(), 2U) << check.at("id");
    for (const auto& run : check.at("runs")) {
      EXPECT_EQ(run.at("result"), "pass");
      EXPECT_FALSE(run.at("history").empty()) << "a passing run's history is kept";
    }
  }
  std::filesystem::remove(path);
  std::ostringstream refused;
  EXPECT_EQ(run_conformance(
                {.only = {"EQ-05"}, .html_path = path.string(), .history_path = path.string()}, out,
                refused),
            2);
  EXPECT_NE(refused.str().find("--html and --history name the same file"), std::string::npos)
      << refused.str();
  std::ostringstream dash;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .history_path = "-"}, out, dash), 2);
  EXPECT_NE(dash.str().find("--history needs a file path"), std::string::npos) << dash.str();
}

// The replay command names what shapes a run, quotes what the shell would split, and never
// shows a password.
TEST(ConformanceCommandTest, TheReplayCommandRerunsTheRunAndHidesPasswords) {
  EXPECT_EQ(replay_command({}), "thm conformance --queue memory");
  EXPECT_EQ(replay_command({.queue = "exec:python3 a.py /tmp/q.db",
                            .exec_timeout = std::chrono::seconds(5),
                            .repeat = 3,
                            .short_mode = true,
                            .require = {"hooks", "leases"}}),
            "thm conformance --queue 'exec:python3 a.py /tmp/q.db' --short --repeat 3 "
            "--exec-timeout 5 --require hooks,leases");
  EXPECT_EQ(replay_command({.queue = "postgres:host=/tmp dbname=x password=s3cret"}),
            "thm conformance --queue 'postgres:host=/tmp dbname=x password=...'");
  EXPECT_EQ(replay_command({.queue = "postgres:postgresql://ann:s3cret@db/x"}),
            "thm conformance --queue postgres:postgresql://ann:...@db/x");
  const std::string exec = replay_command({.queue = "exec:PGPASSWORD=x node a.mjs 'password = y'"});
  EXPECT_EQ(exec.find("PGPASSWORD=x"), std::string::npos) << exec;
  EXPECT_EQ(exec.find("= y"), std::string::npos) << exec;
  EXPECT_EQ(replay_command({.queue = "exec:it's"}), "thm conformance --queue 'exec:it'\\''s'");
}

// A check named twice runs once.
TEST(ConformanceCommandTest, ACheckNamedTwiceRunsOnce) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.short_mode = true, .only = {"EQ-05", "EQ-05"}}, out, progress), 0);
  EXPECT_NE(out.str().find("1 passed, 0 failed, 0 skipped"), std::string::npos) << out.str();
}

// Each check says when it starts, before it says how it ended.
TEST(ConformanceCommandTest, EveryCheckSaysWhenItStarts) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.short_mode = true, .only = {"EQ-05", "EQ-04"}}, out, progress), 0);
  const std::string said = progress.str();
  EXPECT_TRUE(said.starts_with("EQ-05  start\nEQ-05  pass")) << said;
  EXPECT_NE(said.find("\nEQ-04  start\nEQ-04  skip"), std::string::npos) << said;
}

// --require: a capability the queue does not declare fails the run before any check; a
// check skipped for a required capability fails; others stand.
TEST(ConformanceCommandTest, RequiredCapabilitiesFailWhatCannotProveThem) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .require = {"hooks", "sql_schema"}}, out, progress),
            1);
  EXPECT_NE(progress.str().find("--require names `sql_schema`, which queue memory does not "
                                "declare"),
            std::string::npos)
      << progress.str();
  EXPECT_EQ(progress.str().find("EQ-05  start"), std::string::npos) << "a check was run";
  EXPECT_EQ(out.str(), "");

  progress.str("");
  EXPECT_EQ(run_conformance({.short_mode = true, .only = {"EQ-05", "EQ-23"}, .require = {"hooks"}},
                            out, progress),
            0)
      << progress.str();  // EQ-23 is skipped for `persistent`, which is not required
}

TEST(ConformanceCommandTest, ADashReportIsTheJsonOnOutAndTheTableMovesToProgress) {
  std::filesystem::remove("-");
  std::ostringstream out;
  std::ostringstream progress;
  const int code = run_conformance(
      {.queue = "memory", .short_mode = true, .only = {"EQ-05"}, .report_path = "-"}, out,
      progress);
  EXPECT_EQ(code, 0) << progress.str();
  EXPECT_FALSE(std::filesystem::exists("-"));
  const auto report = nlohmann::json::parse(out.str());  // nothing else on out
  EXPECT_EQ(report["harness"], "memory");
  EXPECT_EQ(report["checks"][0]["id"], "EQ-05");
  EXPECT_NE(progress.str().find("1 passed, 0 failed, 0 skipped"), std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("queue memory, 1 run from seed 1"), std::string::npos)
      << progress.str();
}

TEST(ConformanceCommandTest, UnknownQueueOrCheckIsAUsageError) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.queue = "redis"}, out, progress), 2);
  EXPECT_NE(progress.str().find("unknown queue 'redis'"), std::string::npos);
  EXPECT_EQ(run_conformance({.only = {"EQ-99"}}, out, progress), 2);
  EXPECT_NE(progress.str().find("no check 'EQ-99'"), std::string::npos);
}

TEST(ConformanceCommandTest, UsageErrorsSayWhatIsAccepted) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.queue = "redis"}, out, progress), 2);
  EXPECT_EQ(progress.str(),
            "thm conformance: unknown queue 'redis'; --queue takes memory, sqlite:PATH (e.g. "
            "sqlite:/tmp/thm-conformance.db), postgres:CONNINFO (e.g. "
            "postgres:dbname=thm_scratch; postgres: alone uses the PG* variables) or exec:COMMAND "
            "(e.g. 'exec:python3 adapter.py /tmp/queue.db')\n");
  progress.str("");
  EXPECT_EQ(run_conformance({.queue = "sqlite:"}, out, progress), 2);
  EXPECT_EQ(progress.str(),
            "thm conformance: --queue sqlite: needs a file path, e.g. "
            "sqlite:/tmp/thm-conformance.db\n");
  progress.str("");
  EXPECT_EQ(run_conformance({.queue = "exec:"}, out, progress), 2);
  EXPECT_EQ(progress.str(),
            "thm conformance: --queue exec: needs the adapter's command, e.g. "
            "'exec:python3 adapter.py /tmp/queue.db'\n");
  progress.str("");
  EXPECT_EQ(run_conformance({.queue = "exec:echo 'no such database' >&2; exit 3"}, out, progress),
            2);
  EXPECT_TRUE(progress.str().starts_with("thm conformance: cannot open the exec queue: "))
      << progress.str();
  EXPECT_NE(progress.str().find("status 3"), std::string::npos) << progress.str();
  EXPECT_NE(progress.str().find("no such database"), std::string::npos) << progress.str();
  progress.str("");
  EXPECT_EQ(run_conformance({.only = {"eq-01"}}, out, progress), 2);
  EXPECT_TRUE(
      progress.str().starts_with("thm conformance: no check 'eq-01' (did you mean "
                                 "'EQ-01'?); --check takes one of EQ-01, EQ-02,"))
      << progress.str();
  EXPECT_TRUE(progress.str().ends_with(", EQ-35\n")) << progress.str();
  progress.str("");
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .report_path = ""}, out, progress), 2);
  EXPECT_EQ(progress.str(), "thm conformance: --report needs a file path\n");
  EXPECT_EQ(out.str(), "");
}

TEST(ConformanceCommandTest, ASqlitePathThatIsNotARegularFileIsRefusedBeforeItIsOpened) {
  // A named pipe would block the open for good; a directory cannot be a database.
  const auto fifo = std::filesystem::temp_directory_path() / "thm_conformance_fifo.db";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.queue = "sqlite:" + fifo.string(), .only = {"EQ-05"}}, out, progress),
            2);
  EXPECT_EQ(progress.str(),
            "thm conformance: cannot use '" + fifo.string() +
                "' as the SQLite database: it is a named pipe, not a regular "
                "file; --queue sqlite:PATH takes a regular file: a new one, an empty "
                "one, or one an earlier run made\n");
  std::filesystem::remove(fifo);
  progress.str("");
  const auto dir = std::filesystem::temp_directory_path();
  EXPECT_EQ(run_conformance({.queue = "sqlite:" + dir.string(), .only = {"EQ-05"}}, out, progress),
            2);
  EXPECT_NE(progress.str().find("it is a directory, not a regular file"), std::string::npos)
      << progress.str();
  EXPECT_EQ(out.str(), "");
}

TEST(ConformanceCommandTest, AnUnwritableReportIsAUsageError) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .report_path = "/nonexistent-dir/report.json"}, out,
                            progress),
            2);
  EXPECT_EQ(progress.str(),
            "thm conformance: cannot write the report to '/nonexistent-dir/report.json': no such "
            "file or directory; --report takes a file in a directory that exists and is "
            "writable\n");
}

}  // namespace
}  // namespace thm::cli
