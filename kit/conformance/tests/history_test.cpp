// The history every check's report carries (adr/0020, adr/0023): what `run_check` records
// through its `Recording` of the harness, as words and as data, how much it keeps, what the
// linearizability checker makes of it, and its export. That the recording forwards
// every member is tested beside the protocol that names them (kit/protocol/tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "broken_queue.hpp"
#include "thm/conformance/checks/recording.hpp"
#include "thm/conformance/report.hpp"
#include "thm/conformance/suite.hpp"
#include "thm/memory/harness.hpp"

namespace thm::conformance {
namespace {

using checking::History;
using checking::Recording;

const Options kOptions{.seed = 7, .repeat = 3, .short_mode = true};

std::vector<HistoryEvent> calls_of(const CheckRun& report, std::uint32_t lane) {
  std::vector<HistoryEvent> out;
  for (const HistoryEvent& e : report.history) {
    if (e.kind == HistoryEvent::Kind::Call && e.lane == lane) out.push_back(e);
  }
  return out;
}

TEST(HistoryTest, AFailureShowsTheInterleavingThatBrokeIt) {
  // M1 checks for the key, lets go of it, and inserts at commit: EQ-02 pauses the first
  // caller before its commit, and the second caller is admitted meanwhile.
  const auto harness = mutants::broken_harness(mutants::Flaw::CheckThenInsert);
  const CheckRun report = run_check("EQ-02", *harness, kOptions);
  ASSERT_EQ(report.verdict, Verdict::Fail) << report.reason;
  EXPECT_EQ(report.history_dropped, 0U);

  const auto first = calls_of(report, 0);
  const auto second = calls_of(report, 1);
  ASSERT_EQ(first.size(), 1U);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_EQ(first[0].what, "enqueue_once");
  EXPECT_EQ(first[0].subject, "alice -> bob, eng, seq 1");
  EXPECT_EQ(first[0].answer, "Enqueued");
  EXPECT_EQ(second[0].answer, "Enqueued");

  const auto pause =
      std::ranges::find(report.history, HistoryEvent::Kind::Pause, &HistoryEvent::kind);
  ASSERT_NE(pause, report.history.end());
  EXPECT_EQ(pause->what, "before_commit");
  EXPECT_EQ(pause->lane, 0U);
  EXPECT_EQ(pause->answer, "continued");
  // The second call ran inside the first one's pause, which ran inside the first call.
  EXPECT_LE(first[0].start_us, pause->start_us);
  EXPECT_LE(pause->start_us, second[0].start_us);
  EXPECT_LE(second[0].end_us, pause->end_us);
  EXPECT_LE(pause->end_us, first[0].end_us);

  // The host's writes since the last reset come first: the policy, the target, the reply.
  std::vector<std::string> writes;
  for (const HistoryEvent& e : report.history) {
    if (e.kind == HistoryEvent::Kind::Harness) writes.push_back(e.what);
  }
  EXPECT_EQ(std::vector<std::string>(writes.begin(), writes.begin() + 3),
            (std::vector<std::string>{"set_policy", "set_available", "commit_reply"}));
  EXPECT_TRUE(std::ranges::is_sorted(report.history, {}, &HistoryEvent::start_us));
}

TEST(HistoryTest, APassKeepsItsCallsAsDataAndASkipHasNone) {
  memory::MemoryHarness harness;
  const CheckRun passed = run_check("EQ-05", harness, kOptions);
  ASSERT_EQ(passed.verdict, Verdict::Pass) << passed.reason;
  std::vector<Operation::Answer> answers;
  for (const HistoryEvent& e : calls_of(passed, 0)) {
    ASSERT_TRUE(e.operation.has_value()) << e.what;
    EXPECT_EQ(e.operation->kind, Operation::Kind::Enqueue);
    EXPECT_EQ(e.operation->key, turn_key(DispatchConversation{.desk_id = "eng"}, {1}).encoded());
    EXPECT_EQ(e.operation->invoke, e.start_us);
    EXPECT_EQ(e.operation->complete, e.end_us);
    answers.push_back(e.operation->answer);
  }
  EXPECT_EQ(answers, (std::vector<Operation::Answer>{
                         Operation::Answer::Enqueued, Operation::Answer::Already,
                         Operation::Answer::Already, Operation::Answer::Already}));
  const CheckRun skipped = run_check("EQ-04", harness, kOptions);
  ASSERT_EQ(skipped.verdict, Verdict::Skip);
  EXPECT_TRUE(std::ranges::none_of(
      skipped.history, [](const HistoryEvent& e) { return e.kind == HistoryEvent::Kind::Call; }));
}

TEST(HistoryTest, LeaseCallsCarryTheirKeyTokenAndTheStoreClockAroundThem) {
  memory::MemoryHarness harness;
  const CheckRun report = run_check("EQ-26", harness, kOptions);
  ASSERT_EQ(report.verdict, Verdict::Pass) << report.reason;
  const std::string key = turn_key(DispatchConversation{.desk_id = "eng"}, {1}).encoded();
  std::size_t leased = 0;
  std::size_t stale = 0;
  std::size_t reads = 0;
  for (const HistoryEvent& e : report.history) {
    if (e.store_time_ms) ++reads;
    if (!e.operation) continue;
    const Operation& op = *e.operation;
    if (op.answer == Operation::Answer::Leased) {
      ++leased;
      EXPECT_EQ(op.key, key);
      EXPECT_FALSE(op.token.empty());
      EXPECT_EQ(op.duration_ms, 30'000);  // the lease the suite asks for on a clock it moves
    }
    if (op.answer == Operation::Answer::Stale) {
      ++stale;
      EXPECT_EQ(op.key, key) << "a token's key comes from the claim that issued it";
    }
  }
  EXPECT_EQ(leased, 2U);  // the last part: the first claim and the reclaim
  EXPECT_EQ(stale, 2U);   // the expired token, twice
  EXPECT_GT(reads, 0U);   // the waits for expiry read the store's clock
}

TEST(HistoryTest, TheCheckerFailsACheckWhoseOwnAssertionsHeldAndShowsTheKeysCalls) {
  // M27's claim reads a snapshot older than an enqueue that returned before it began: no
  // child is lost or doubled, and EQ-35 asserts nothing call by call.
  const auto harness = mutants::broken_harness(mutants::Flaw::StaleClaimSnapshot);
  const CheckRun report = run_check("EQ-35", *harness, kOptions);
  ASSERT_EQ(report.verdict, Verdict::Fail) << report.reason;
  EXPECT_TRUE(report.reason.starts_with("the calls on key v1/3:eng/c/")) << report.reason;
  EXPECT_NE(report.reason.find("could not place claim"), std::string::npos) << report.reason;
  EXPECT_EQ(report.counts.lost + report.counts.duplicated + report.counts.unexpected, 0U);
  ASSERT_FALSE(report.history.empty());
  for (const HistoryEvent& e : report.history) {
    ASSERT_TRUE(e.operation.has_value()) << e.what;
    EXPECT_TRUE(e.operation->key.empty() ||
                report.reason.find(e.operation->key) != std::string::npos)
        << "only the failing key's calls, and claims that found nothing";
  }
}

TEST(HistoryTest, EveryRunsHistoryIsExportedInJepsensShape) {
  memory::MemoryHarness harness;
  const CheckRun passed = run_check("EQ-05", harness, kOptions);
  const RunDescription run{.tool = "thm", .harness = "memory", .queue = "memory"};
  const std::vector<CheckResult> results{{.total = passed, .runs = {passed}, .run_ms = {1}}};
  const auto document = nlohmann::json::parse(to_history(run, results));
  const auto& history = document.at("checks").at(0).at("runs").at(0).at("history");
  ASSERT_FALSE(history.empty());
  std::size_t invokes = 0;
  std::size_t oks = 0;
  for (std::size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i].at("index"), i);
    if (i > 0) {
      EXPECT_LE(history[i - 1].at("time"), history[i].at("time"));
    }
    if (history[i].at("f") != "enqueue") continue;
    if (history[i].at("type") == "invoke") {
      ++invokes;
      EXPECT_EQ(history[i].at("value").at("key"), "v1/3:eng/c/1");
    } else {
      ++oks;
      EXPECT_EQ(history[i].at("type"), "ok");
      EXPECT_TRUE(history[i].at("value").at("answer") == "enqueued" ||
                  history[i].at("value").at("answer") == "already");
    }
    EXPECT_EQ(history[i].at("process"), 0);
  }
  EXPECT_EQ(invokes, 4U);
  EXPECT_EQ(oks, 4U);
}

TEST(HistoryTest, KeepsTheLastEventsAndCountsTheOthers) {
  History history;
  const std::size_t extra = 904;
  for (std::size_t i = 0; i < kHistoryLimit + extra; ++i) {
    history.add({.what = std::to_string(i), .start_us = i, .end_us = i});
  }
  const auto events = history.events();
  ASSERT_EQ(events.size(), kHistoryLimit);
  EXPECT_EQ(history.dropped(), extra);
  EXPECT_EQ(events.front().what, std::to_string(extra));
  EXPECT_EQ(events.back().what, std::to_string(kHistoryLimit + extra - 1));
}

TEST(HistoryTest, AResetStartsTheHistoryAndTheSessionNumbersAgain) {
  memory::MemoryHarness harness;
  Recording recording(harness);
  recording.reset();
  recording.set_policy({.enabled = true, .max_hops = 5});
  {
    const auto a = recording.open_session();
    const auto b = recording.open_session();
    (void)b->claim(std::chrono::milliseconds(100));
  }
  auto events = recording.history().events();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].what, "set_policy");
  EXPECT_EQ(events[0].subject, "enabled, max_hops 5");
  EXPECT_EQ(events[1].what, "claim");
  EXPECT_EQ(events[1].lane, 1U);
  EXPECT_EQ(events[1].answer, "nothing to claim");

  recording.reset();
  EXPECT_TRUE(recording.history().events().empty());
  const auto c = recording.open_session();
  (void)c->claim(std::chrono::milliseconds(100));
  events = recording.history().events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].lane, 0U);
}

TEST(HistoryTest, IdsShowTheirBytesAndBothEndsOfALongOne) {
  MentionTurnRequest request{.key = {9},
                             .source_id = "caf\xC3\xA9",
                             .target_id = std::string(255, 'd') + "b",
                             .conversation = {.desk_id = "e\\g", .thread_root = 4}};
  EXPECT_EQ(checking::describe_request(request),
            "caf\\xc3\\xa9 -> dddddddddddd...dddddddddddb (256 bytes), e\\x5cg thread 4, seq 9");
}

TEST(HistoryTest, HookInstallsAndClaimsTokensAreRecorded) {
  memory::MemoryHarness harness;
  Recording recording(harness);
  recording.set_hook([](HookPoint, const MentionTurnRequest&) { return true; });
  recording.set_hook({});
  const auto events = recording.history().events();
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].what, "set_hook");
  EXPECT_EQ(events[0].subject, "installed");
  EXPECT_EQ(events[1].subject, "removed");

  // A claim names the token it was given (M17's flaw is a token given twice).
  recording.reset();
  recording.set_policy({.enabled = true, .max_hops = 5});
  recording.set_available("bob", true);
  const CommittedReply reply{.conversation = {.desk_id = "eng"},
                             .sequence = 1,
                             .author_id = "alice",
                             .content = "@bob go",
                             .hop = 0};
  recording.commit_reply(reply);
  const auto session = recording.open_session();
  ASSERT_TRUE(session->enqueue_once({.key = {1},
                                     .source_id = "alice",
                                     .target_id = "bob",
                                     .content = "@bob go",
                                     .conversation = {.desk_id = "eng"},
                                     .child_hop = 1}));
  const auto lease = session->claim(std::chrono::seconds(10));
  ASSERT_TRUE(lease && *lease);
  const auto claimed = recording.history().events().back();
  EXPECT_EQ(claimed.what, "claim");
  EXPECT_TRUE(
      claimed.answer.starts_with("leased child " + std::to_string((*lease)->child_id) + ", token "))
      << claimed.answer;
  EXPECT_NE(claimed.answer.find((*lease)->token.substr(0, 12)), std::string::npos)
      << claimed.answer;
}

TEST(HistoryTest, AMemberThatThrowsIsRecordedAndStillThrows) {
  memory::MemoryHarness harness;
  Recording recording(harness);
  ASSERT_FALSE(harness.capabilities().hold_child);
  EXPECT_THROW((void)recording.hold_child(3), Unsupported);
  const auto events = recording.history().events();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].what, "hold_child");
  EXPECT_EQ(events[0].subject, "child 3");
  EXPECT_EQ(events[0].answer, "threw: hold_child");
}

}  // namespace
}  // namespace thm::conformance
