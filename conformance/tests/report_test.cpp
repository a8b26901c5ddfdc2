#include "thm/conformance/report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace thm::conformance {
namespace {

const std::vector<CheckReport> kReports{
    {.id = "EQ-01",
     .title = "race",
     .verdict = Verdict::Pass,
     .counts = {.attempts = 10, .enqueued = 1, .already = 9},
     .seed = 5},
    {.id = "EQ-04",
     .title = "index",
     .verdict = Verdict::Skip,
     .reason = "no SQL schema",
     .seed = 5},
    {.id = "EQ-05",
     .title = "replay",
     .verdict = Verdict::Fail,
     .reason = "bad \xff byte",
     .counts = {.lost = 1},
     .seed = 5},
};

TEST(ReportTest, JsonHasEveryCheckWithItsCounts) {
  const auto json = nlohmann::json::parse(to_json("memory", kReports));
  EXPECT_EQ(json["harness"], "memory");
  EXPECT_EQ(json["passed"], false);
  ASSERT_EQ(json["checks"].size(), 3U);
  EXPECT_EQ(json["checks"][0]["result"], "pass");
  EXPECT_EQ(json["checks"][0]["counts"]["already"], 9);
  EXPECT_EQ(json["checks"][1]["result"], "skip");
  EXPECT_EQ(json["checks"][2]["counts"]["lost"], 1);
  EXPECT_EQ(json["checks"][2]["seed"], 5);
}

TEST(ReportTest, TableEndsWithTheTally) {
  std::ostringstream out;
  print_table(out, kReports);
  EXPECT_NE(out.str().find("EQ-05  fail"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("1 passed, 1 failed, 1 skipped\n"), std::string::npos) << out.str();
}

// Every line of the table fits 100 columns, a reason's own lines stay indented, a failure
// has its replay command, and the checks left unproven are listed above the tally.
TEST(ReportTest, TheTableFitsAHundredColumnsAndListsWhatWasLeftUnproven) {
  std::vector<CheckReport> reports = kReports;
  reports[2].reason = std::string(150, 'x') + " and then the adapter's stderr:\nline one\nline two";
  std::ostringstream out;
  print_table(out, reports, "thm conformance --queue memory");
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("       replay: ")) {
      EXPECT_LE(line.size(), 100U) << line;
    }
  }
  EXPECT_NE(out.str().find("\n       line one\n       line two\n"), std::string::npos) << out.str();
  EXPECT_NE(
      out.str().find("\n       replay: thm conformance --queue memory --seed 5 --check EQ-05\n"),
      std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("\nleft unproven: EQ-04 (skipped)\n1 passed, 1 failed, 1 skipped\n"),
            std::string::npos)
      << out.str();
}

TEST(ReportTest, SkipsDoNotFailASuite) {
  EXPECT_TRUE(passed(std::span(kReports).first(2)));
  EXPECT_FALSE(passed(kReports));
}

}  // namespace
}  // namespace thm::conformance
