#include "thm/conformance/report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
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

TEST(ReportTest, SkipsDoNotFailASuite) {
  EXPECT_TRUE(passed(std::span(kReports).first(2)));
  EXPECT_FALSE(passed(kReports));
}

}  // namespace
}  // namespace thm::conformance
