#include "thm/conformance/report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace thm::conformance {
namespace {

const std::vector<CheckRun> kReports{
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
std::vector<CheckResult> records() {
  std::vector<CheckResult> out;
  for (const CheckRun& report : kReports) {
    CheckRun second = report;
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
  std::vector<CheckResult> odd = records();
  odd[2].total.reason = "<tag attr=\"x\"> & 'q' \x01";
  const std::string xml = to_junit(kRun, odd);
  EXPECT_NE(xml.find("&lt;tag attr=&quot;x&quot;&gt; &amp; &apos;q&apos; \xEF\xBF\xBD"),
            std::string::npos)
      << xml;
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
}

// A failing run's history: two sessions race one request while the first is paused.
std::vector<HistoryEvent> race_history() {
  using Kind = HistoryEvent::Kind;
  return {
      {.kind = Kind::Harness,
       .what = "commit_reply",
       .subject = "seq 1 by alice, hop 0",
       .start_us = 0,
       .end_us = 40},
      {.kind = Kind::Call,
       .lane = 0,
       .what = "enqueue_once",
       .subject = "alice -> bob, eng, seq 1",
       .answer = "Enqueued",
       .start_us = 100,
       .end_us = 9000},
      {.kind = Kind::Pause,
       .lane = 0,
       .what = "before_commit",
       .answer = "continued",
       .start_us = 300,
       .end_us = 8000},
      {.kind = Kind::Call,
       .lane = 1,
       .what = "enqueue_once",
       .subject = "alice -> bob, eng, seq 1",
       .answer = "Enqueued",
       .start_us = 500,
       .end_us = 700},
  };
}

std::vector<CheckResult> records_with_history() {
  std::vector<CheckResult> out = records();
  out[2].runs[0].history = race_history();
  out[2].runs[0].history_dropped = 3;
  return out;
}

std::size_t occurrences(const std::string& text, std::string_view what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportTest, JsonCarriesAFailingRunsHistory) {
  const auto json = nlohmann::json::parse(to_json(kRun, records_with_history()));
  const auto& run = json["checks"][2]["runs"][0];
  ASSERT_EQ(run["history"].size(), 4U);
  EXPECT_EQ(run["history_dropped"], 3);
  EXPECT_EQ(run["history"][0]["kind"], "harness");
  EXPECT_TRUE(run["history"][0]["lane"].is_null());
  EXPECT_EQ(run["history"][2]["kind"], "pause");
  EXPECT_EQ(run["history"][2]["what"], "before_commit");
  EXPECT_EQ(run["history"][3]["lane"], 1);
  EXPECT_EQ(run["history"][3]["answer"], "Enqueued");
  EXPECT_EQ(run["history"][3]["start_us"], 500);
  EXPECT_TRUE(json["checks"][0]["runs"][0]["history"].empty());
}

TEST(ReportTest, HtmlIsOnePageThatFetchesNothing) {
  const std::string html = to_html(kRun, records_with_history());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">")) << html;
  EXPECT_TRUE(html.ends_with("</html>\n"));
  for (const std::string_view outside : {"<script", "<link", "<img", "<iframe", "@import",
                                         "http:", "https:", "src=", "href=\"/", "href=\"."}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  // CSS may point at the page's own pattern, never at a file.
  EXPECT_EQ(occurrences(html, "url("), occurrences(html, "url(#hatch)"));
}

TEST(ReportTest, HtmlSaysWhatTheRunDidNotProve) {
  const std::string html = to_html(kRun, records());
  EXPECT_NE(html.find("<h2>What this run did not prove</h2>"), std::string::npos);
  EXPECT_NE(html.find("<b>EQ-04</b></a> index: <span class=\"result skip\">not tested</span>, "
                      "no SQL schema"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("1 of 3 checks failed"), std::string::npos);

  std::vector<CheckResult> all_passed = records();
  all_passed.erase(all_passed.begin() + 1, all_passed.end());
  const std::string passed = to_html(kRun, all_passed);
  EXPECT_NE(passed.find("<p>Nothing: every check ran in full.</p>"), std::string::npos);
  EXPECT_NE(passed.find(">No check failed (1 passed, 0 failed, 0 skipped)</p>"), std::string::npos);
  EXPECT_EQ(passed.find("<svg class=\"timeline\""), std::string::npos);

  all_passed[0].total.reason = "ran with 8 sessions, not 64";
  const std::string in_part = to_html(kRun, all_passed);
  EXPECT_NE(in_part.find("passed in part</span>, ran with 8 sessions, not 64"), std::string::npos);
}

TEST(ReportTest, HtmlDrawsAFailuresTimelineAndItsReplayCommand) {
  const std::string html = to_html(kRun, records_with_history());
  const auto failure = html.find("<section class=\"failure\" id=\"EQ-05\">");
  ASSERT_NE(failure, std::string::npos) << html;
  EXPECT_NE(html.find("<pre class=\"replay\"><code>thm conformance --queue memory --short "
                      "--seed 5 --check EQ-05</code></pre>",
                      failure),
            std::string::npos);
  EXPECT_NE(html.find("The 3 earliest events are not kept", failure), std::string::npos);
  const auto svg = html.find("<svg class=\"timeline\"", failure);
  ASSERT_NE(svg, std::string::npos);
  const std::string drawing = html.substr(svg, html.find("</svg>", svg) - svg);
  for (const std::string_view row : {">host&apos;s writes<", ">session 0<", ">session 1<"}) {
    EXPECT_NE(drawing.find(row), std::string::npos) << row;
  }
  EXPECT_EQ(drawing.find(">session 2<"), std::string::npos);
  EXPECT_EQ(occurrences(drawing, "<g class=\"event "), 4U);
  EXPECT_EQ(occurrences(drawing, "class=\"pause\""), 1U);
  // The second Enqueued for one request is marked.
  EXPECT_EQ(occurrences(drawing, "class=\"enqueued repeat\""), 1U);
  EXPECT_NE(drawing.find(
                "<title>session 1: enqueue_once (alice -&gt; bob, eng, seq 1) "
                "\xE2\x86\x92 Enqueued, 500 \xC2\xB5s to 700 \xC2\xB5s; a second Enqueued for this "
                "request (the first: session 0, from 100 \xC2\xB5s)</title>"),
            std::string::npos)
      << drawing;
  // The events, in words, open under the drawing.
  EXPECT_NE(html.find("<details open><summary>Every event of the timeline", svg),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"mono\">hook at before_commit</td>", svg), std::string::npos);
}

TEST(ReportTest, HtmlDrawsTheLastSessionsOfALongHistoryOnItsOwnClock) {
  // 100 sessions, each answered once, 1 ms apart from 3 s after the reset: the timeline
  // draws the last 40 and says so; its axis and the titles tell the same time.
  std::vector<CheckResult> long_run = records();
  auto& history = long_run[2].runs[0].history;
  for (std::uint32_t lane = 0; lane < 100; ++lane) {
    history.push_back({.kind = HistoryEvent::Kind::Call,
                       .lane = lane,
                       .what = "enqueue_once",
                       .subject = "alice -> bob, eng, seq " + std::to_string(lane),
                       .answer = "Enqueued",
                       .start_us = 3'000'000 + lane * 1000U,
                       .end_us = 3'000'500 + lane * 1000U});
  }
  history.push_back({.kind = HistoryEvent::Kind::Pause,
                     .what = "after_begin",
                     .answer = "failed the step",
                     .start_us = 3'099'000,
                     .end_us = 3'099'010});
  const std::string html = to_html(kRun, long_run);
  const auto svg = html.find("<svg class=\"timeline\"");
  const std::string drawing = html.substr(svg, html.find("</svg>", svg) - svg);
  EXPECT_EQ(occurrences(drawing, "<text class=\"lane-label\""), 41U);  // 40 and "unknown"
  EXPECT_EQ(drawing.find(">session 59<"), std::string::npos);
  EXPECT_NE(drawing.find(">session 60<"), std::string::npos);
  EXPECT_NE(drawing.find(">session 99<"), std::string::npos);
  EXPECT_NE(drawing.find(">hook, session unknown<"), std::string::npos);
  EXPECT_NE(html.find("The timeline draws the last 40 sessions; the 60 before them"),
            std::string::npos);
  // The first tick is at or after the first event drawn, 3.06 s after the reset.
  const auto tick = drawing.find("<text class=\"tick\"");
  ASSERT_NE(tick, std::string::npos);
  const auto label = drawing.substr(drawing.find('>', tick) + 1, 8);
  EXPECT_TRUE(label.starts_with("3.06 s") || label.starts_with("3.07 s")) << label;
  // A hook that failed the step is not drawn as a pause.
  EXPECT_EQ(occurrences(drawing, "class=\"pause\""), 0U);
  EXPECT_EQ(occurrences(drawing, "class=\"hook-failed\""), 1U);
  // The page defines its hatching once, whatever the number of timelines.
  EXPECT_EQ(occurrences(html, "<pattern id=\"hatch\""), 1U);
}

TEST(ReportTest, HtmlNamesEveryFailingSeedOfSeveralRuns) {
  std::vector<CheckResult> three = records_with_history();
  CheckRun third = three[2].runs[0];
  third.seed = 7;
  third.history.clear();
  three[2].runs.push_back(third);
  const std::string html = to_html(kRun, three);
  EXPECT_NE(html.find("it failed 2 of 3 runs, with seeds 5, 7. What follows is the first"),
            std::string::npos)
      << html;
}

TEST(ReportTest, HtmlEscapesHostText) {
  std::vector<CheckResult> odd = records_with_history();
  odd[2].runs[0].reason = "<script>alert(1)</script> \x01 \xff";
  odd[2].runs[0].history[1].subject = "<img src=x onerror=alert(1)>";
  odd[2].runs[0].history[1].answer = "error internal (\"quoted\" & 'single')";
  const std::string html = to_html(kRun, odd);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find('\x01'), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt; \xEF\xBF\xBD \xEF\xBF\xBD"),
            std::string::npos);
  EXPECT_NE(html.find("error internal (&quot;quoted&quot; &amp; &apos;single&apos;)"),
            std::string::npos);
  // A right-to-left override in a reason cannot reorder the page.
  odd[2].runs[0].reason = "pass\xE2\x80\xAEliaf \xE2\x81\xA6x";
  const std::string reordered = to_html(kRun, odd);
  EXPECT_EQ(reordered.find("\xE2\x80\xAE"), std::string::npos);
  EXPECT_EQ(reordered.find("\xE2\x81\xA6"), std::string::npos);
  EXPECT_NE(reordered.find("pass\xEF\xBF\xBDliaf \xEF\xBF\xBDx"), std::string::npos);
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
  std::vector<CheckRun> reports = kReports;
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
