#include "thm/cli/conformance.hpp"

#include <gtest/gtest.h>

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

TEST(ConformanceCommandTest, UnknownQueueOrCheckIsAUsageError) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.queue = "redis"}, out, progress), 2);
  EXPECT_NE(progress.str().find("unknown queue 'redis'"), std::string::npos);
  EXPECT_EQ(run_conformance({.only = {"EQ-26"}}, out, progress), 2);
  EXPECT_NE(progress.str().find("no check 'EQ-26'"), std::string::npos);
}

TEST(ConformanceCommandTest, AnUnwritableReportIsAUsageError) {
  std::ostringstream out;
  std::ostringstream progress;
  EXPECT_EQ(run_conformance({.only = {"EQ-05"}, .report_path = "/nonexistent-dir/report.json"}, out,
                            progress),
            2);
  EXPECT_NE(progress.str().find("cannot write the report"), std::string::npos);
}

}  // namespace
}  // namespace thm::cli
