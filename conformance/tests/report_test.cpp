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

// Two runs of each check: the first as the total, the second with its own seed.
std::vector<CheckRecord> records() {
  std::vector<CheckRecord> out;
  for (const CheckReport& report : kReports) {
    CheckReport second = report;
    second.seed = 6;
    second.verdict = Verdict::Pass;
    if (report.verdict == Verdict::Skip) second.verdict = Verdict::Skip;
    second.reason = report.verdict == Verdict::Skip ? report.reason : "";
    out.push_back({.total = report, .runs = {report, second}, .run_ms = {1200, 300}});
  }
  return out;
}

const RunDescription kRun{.tool = "thm 0.1.0",
                          .harness = "memory",
                          .queue = "memory",
                          .seed = 5,
                          .runs = 2,
                          .repeat = 3,
                          .short_mode = true,
                          .checks = {},
                          .require = {"hooks"},
                          .capabilities = {.hooks = true, .max_attempts = 3},
                          .replay = "thm conformance --queue memory --short",
                          .duration_ms = 4500};

TEST(ReportTest, JsonHasEveryCheckWithItsCounts) {
  const auto json = nlohmann::json::parse(to_json(kRun, records()));
  EXPECT_EQ(json["harness"], "memory");
  EXPECT_EQ(json["passed"], false);
  ASSERT_EQ(json["checks"].size(), 3U);
  EXPECT_EQ(json["checks"][0]["result"], "pass");
  EXPECT_EQ(json["checks"][0]["counts"]["already"], 9);
  EXPECT_EQ(json["checks"][1]["result"], "skip");
  EXPECT_EQ(json["checks"][2]["counts"]["lost"], 1);
  EXPECT_EQ(json["checks"][2]["seed"], 5);
}

TEST(ReportTest, JsonSaysWhatRanHowAndForHowLong) {
  const auto json = nlohmann::json::parse(to_json(kRun, records()));
  EXPECT_EQ(json["tool"], "thm 0.1.0");
  EXPECT_EQ(json["options"]["seed"], 5);
  EXPECT_EQ(json["options"]["runs"], 2);
  EXPECT_EQ(json["options"]["short"], true);
  EXPECT_EQ(json["options"]["require"], nlohmann::json::array({"hooks"}));
  EXPECT_EQ(json["capabilities"]["hooks"], true);
  EXPECT_EQ(json["capabilities"]["leases"], false);
  EXPECT_EQ(json["capabilities"]["max_attempts"], 3);
  EXPECT_TRUE(json["capabilities"]["max_sessions"].is_null());
  EXPECT_EQ(json["duration_ms"], 4500);
  const auto& failed = json["checks"][2];
  EXPECT_EQ(failed["duration_ms"], 1500);
  EXPECT_EQ(failed["replay"], "thm conformance --queue memory --short --seed 5 --check EQ-05");
  EXPECT_TRUE(json["checks"][0]["replay"].is_null());
  ASSERT_EQ(failed["runs"].size(), 2U);
  EXPECT_EQ(failed["runs"][0]["result"], "fail");
  EXPECT_EQ(failed["runs"][1]["result"], "pass");
  EXPECT_EQ(failed["runs"][1]["seed"], 6);
  EXPECT_EQ(failed["runs"][1]["duration_ms"], 300);
}

TEST(ReportTest, JUnitHasATestcasePerCheckWithItsVerdict) {
  const std::string xml = to_junit(kRun, records());
  EXPECT_TRUE(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ")) << xml;
  EXPECT_NE(
      xml.find(
          R"(<testsuite name="thm conformance memory" tests="3" failures="1" errors="0" skipped="1" time="4.500">)"),
      std::string::npos)
      << xml;
  EXPECT_NE(
      xml.find(R"(<testcase classname="conformance.memory" name="EQ-01 race" time="1.500"/>)"),
      std::string::npos)
      << xml;
  EXPECT_NE(xml.find(R"(<skipped message="no SQL schema"/>)"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"bad \xef\xbf\xbd byte\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("replay: thm conformance --queue memory --short --seed 5 --check EQ-05"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find(R"(<property name="capabilities" value="hooks"/>)"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<property name="checks" value="all"/>)"), std::string::npos) << xml;
  EXPECT_NE(xml.find(R"(<property name="require" value="hooks"/>)"), std::string::npos) << xml;
}

TEST(ReportTest, JUnitEscapesWhatXmlCannotCarry) {
  std::vector<CheckRecord> odd = records();
  odd[2].total.reason = "<tag attr=\"x\"> & 'q' \x01";
  const std::string xml = to_junit(kRun, odd);
  EXPECT_NE(xml.find("&lt;tag attr=&quot;x&quot;&gt; &amp; &apos;q&apos; \xEF\xBF\xBD"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
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
