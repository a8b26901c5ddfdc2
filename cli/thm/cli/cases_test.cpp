#include "thm/cli/cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "thm/cli/args.hpp"

namespace thm::cli {
namespace {

using json::Value;

Value parsed(const std::string& text) {
  auto tree = json::parse(text);
  EXPECT_TRUE(tree.has_value()) << text;
  return tree.has_value() ? *tree : Value{};
}

Value run(std::string_view op, const std::string& input) {
  auto result = run_op(op, parsed(input));
  EXPECT_TRUE(result.has_value()) << (result.has_value() ? "" : result.error());
  return result.has_value() ? *result : Value{};
}

TEST(MatchesTest, StructuralEqualityIgnoresKeyOrder) {
  EXPECT_TRUE(
      matches(parsed(R"({"a":1,"b":[1,{"c":null}]})"), parsed(R"({"b":[1,{"c":null}],"a":1})")));
  EXPECT_FALSE(matches(parsed(R"({"a":1})"), parsed(R"({"a":1,"b":2})")));
  EXPECT_FALSE(matches(parsed(R"({"a":[1,2]})"), parsed(R"({"a":[2,1]})")));
  EXPECT_FALSE(matches(parsed(R"({"a":1})"), parsed(R"({"a":"1"})")));
}

TEST(MatchesTest, OnlyTheExpectedKeysOfAnErrorAreCompared) {
  const Value actual = parsed(
      R"({"error":{"variant":"Core","core":{"variant":"DuplicateRosterMemberId","member_id":"x","message":"m"}},"queue_calls":0})");
  EXPECT_TRUE(matches(parsed(R"({"error":{"variant":"Core"},"queue_calls":0})"), actual));
  EXPECT_TRUE(matches(parsed(R"({"error":{"core":{"member_id":"x"}},"queue_calls":0})"), actual));
  EXPECT_FALSE(matches(parsed(R"({"error":{"variant":"Core"}})"), actual));
  EXPECT_FALSE(matches(parsed(R"({"error":{"variant":"Enqueue"},"queue_calls":0})"), actual));
  EXPECT_FALSE(matches(parsed(R"({"error":{"core":{"member_id":"y"}},"queue_calls":0})"), actual));
}

TEST(MatchesTest, IntegersCompareExactlyNeverThroughADouble) {
  EXPECT_TRUE(
      matches(parsed(R"({"v":18446744073709551615})"), parsed(R"({"v":18446744073709551615})")));
  EXPECT_FALSE(
      matches(parsed(R"({"v":18446744073709551615})"), parsed(R"({"v":18446744073709551614})")));
  EXPECT_FALSE(
      matches(parsed(R"({"v":18446744073709551615.0})"), parsed(R"({"v":18446744073709551614})")));
  EXPECT_FALSE(matches(parsed(R"({"v":2.0})"), parsed(R"({"v":2})")));
  EXPECT_FALSE(matches(parsed(R"({"v":-1})"), parsed(R"({"v":18446744073709551615})")));
  EXPECT_TRUE(matches(parsed(R"({"v":-0})"), parsed(R"({"v":0})")));
  EXPECT_TRUE(matches(parsed(R"({"v":0.5})"), parsed(R"({"v":0.5})")));
}

TEST(RunOpTest, UnknownOpsCannotRun) {
  const auto unknown = run_op("frobnicate", parsed("{}"));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().find("unknown op"), std::string::npos);
}

TEST(RunOpTest, AnUnknownOpSaysWhereTheOpsAreListed) {
  const auto unknown = run_op("frobnicate", parsed("{}"));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error(), "unknown op \"frobnicate\"; `thm eval --help` lists the ops");
  const auto core_only = run_op("briefing_text", parsed("{}"), std::nullopt, Implementation::Model);
  ASSERT_FALSE(core_only.has_value());
  EXPECT_EQ(core_only.error(),
            "op \"briefing_text\" has no reference-model version; run it with --impl core");
}

TEST(OperationsTest, ListsEveryOperationOfBothTablesWithTheKeyItReadsFirst) {
  const std::vector<OperationInfo> ops = operations();
  const auto listed = [&](const std::string& name) {
    return std::any_of(ops.begin(), ops.end(), [&](const auto& op) { return op.name == name; });
  };
  for (const auto& [name, run] : core_operations()) EXPECT_TRUE(listed(name)) << name;
  for (const auto& [name, run] : model_operations()) EXPECT_TRUE(listed(name)) << name;
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end(),
                             [](const auto& a, const auto& b) { return a.name < b.name; }));
  for (const OperationInfo& op : ops) {
    ASSERT_FALSE(op.input.empty()) << op.name;
    EXPECT_EQ(op.in_core, core_operations().contains(op.name)) << op.name;
    EXPECT_EQ(op.in_model, model_operations().contains(op.name)) << op.name;
    const std::string first = "/input/" + op.input.substr(0, op.input.find_first_of(" ,"));
    for (const Implementation impl : {Implementation::Core, Implementation::Model}) {
      if (!(impl == Implementation::Core ? op.in_core : op.in_model)) continue;
      const auto result = run_op(op.name, parsed("{}"), std::nullopt, impl);
      ASSERT_TRUE(result.has_value()) << op.name;
      EXPECT_EQ((*result)["error"]["path"], first) << op.name;
    }
  }
}

TEST(RunOpTest, EveryOperationOfTheCaseFormatRuns) {
  for (const char* op : {"resolve_mentions",
                         "direct_responder",
                         "mentioned_members",
                         "is_general_chat",
                         "same_conversation",
                         "dispatch_conversation",
                         "validate_desks",
                         "desk_members",
                         "responder_plan",
                         "accept_selection",
                         "accept_evaluation",
                         "settle_selection",
                         "mention_dispatch",
                         "dispatch_mention",
                         "display",
                         "display_equal",
                         "may_dispatch",
                         "briefing_text",
                         "briefing_offers_dispatch",
                         "decode"}) {
    const auto result = run_op(op, parsed("{}"));
    ASSERT_TRUE(result.has_value()) << op;
    EXPECT_EQ((*result)["error"]["variant"], "Decode") << op;  // every op needs some key
  }
}

TEST(RunOpTest, AnInputRefusedBeforehandStillNeedsAKnownOpAndKeepsTheOpsShape) {
  const json::DecodeError repeated{.path = "/input/policy/max_hops", .reason = "repeated"};
  EXPECT_FALSE(run_op("no_such_op", parsed("{}"), repeated).has_value());
  const auto result = run_op("dispatch_mention", parsed("{}"), repeated);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(
      *result,
      parsed(
          R"({"error":{"variant":"Decode","path":"/input/policy/max_hops","reason":"repeated"},"queue_calls":0})"));
}

TEST(RunOpTest, EveryWireTypeCanBeDecodedByName) {
  EXPECT_EQ(wire_type_names().size(), std::tuple_size_v<json::WireTypes>);
  for (const std::string& type : wire_type_names()) {
    const auto result = run_op("decode", parsed(R"({"type":")" + type + R"(","json":[]})"));
    ASSERT_TRUE(result.has_value());
    EXPECT_NE((*result)["error"]["path"], "/input/type") << type;  // the name is known
  }
}

TEST(RunOpTest, InputsAreDecodedFirstWithPathsFromInput) {
  const Value result = run("mention_dispatch", R"({"policy":{"enabled":true,"max_hops":-1}})");
  EXPECT_EQ(result["error"]["variant"], "Decode");
  EXPECT_EQ(result["error"]["path"], "/input/policy/max_hops");
  EXPECT_EQ(run("is_general_chat", "{}")["error"]["path"], "/input/chat");
  EXPECT_EQ(run("is_general_chat", "[]")["error"]["path"], "/input");
  EXPECT_EQ(
      run("decode", R"({"type":"DispatchKey","json":{"trigger_sequence":1.0}})")["error"]["path"],
      "/input/json/trigger_sequence");
  EXPECT_EQ(run("decode", R"({"type":"Nope","json":{}})")["error"]["path"], "/input/type");
}

TEST(RunOpTest, DispatchMentionCountsScriptedQueueCalls) {
  const std::string base =
      R"("policy":{"enabled":true,"max_hops":2},"input":{"key":{"trigger_sequence":9},"conversation":{"desk_id":"eng","thread_root":4},"author_id":"alice","content":"@bob","mentions":[{"target":{"kind":"agent","id":"bob"},"text":"@bob","offset":0}],"hop":0},"roster":{"members":[{"id":"alice","name":null},{"id":"bob","name":null}],"people":[],"retired":[],"tombstoned":[]})";
  EXPECT_EQ(run("dispatch_mention", "{" + base + R"(,"queue":{"status":"already"}})"),
            parsed(R"({"outcome":{"status":"already"},"queue_calls":1})"));
  const Value failed =
      run("dispatch_mention", "{" + base + R"(,"queue":{"fail":"down","kind":"indeterminate"}})");
  EXPECT_EQ(
      failed,
      parsed(
          R"({"error":{"variant":"Enqueue","kind":"indeterminate","message":"down"},"queue_calls":1})"));
  const Value bad_kind =
      run("dispatch_mention", "{" + base + R"(,"queue":{"fail":"down","kind":"odd"}})");
  EXPECT_EQ(bad_kind["error"]["path"], "/input/queue/kind");
  EXPECT_EQ(bad_kind["queue_calls"], 0);
}

TEST(RunOpTest, BothImplementationsKeepTheHostsMessageOfAFailedEnqueue) {
  // SPEC §4: the host's message is the error's message, whoever answers.
  const std::string base =
      R"("policy":{"enabled":true,"max_hops":2},"input":{"key":{"trigger_sequence":9},"conversation":{"desk_id":"eng","thread_root":4},"author_id":"alice","content":"@bob","mentions":[{"target":{"kind":"agent","id":"bob"},"text":"@bob","offset":0}],"hop":0},"roster":{"members":[{"id":"alice","name":null},{"id":"bob","name":null}],"people":[],"retired":[],"tombstoned":[]})";
  for (const char* queue :
       {R"({"fail":"disk full"})", R"({"fail":"disk full","kind":"indeterminate"})"}) {
    SCOPED_TRACE(queue);
    const Value input = parsed("{" + base + R"(,"queue":)" + queue + "}");
    const auto core = run_op("dispatch_mention", input, std::nullopt, Implementation::Core);
    const auto model = run_op("dispatch_mention", input, std::nullopt, Implementation::Model);
    ASSERT_TRUE(core.has_value() && model.has_value());
    EXPECT_EQ((*core)["error"]["message"], "disk full") << core->dump();
    EXPECT_EQ(model->dump(), core->dump());
  }
}

TEST(RunOpTest, PreparedRunsOnATeamAndNotesSnapshotsNoTeamHolds) {
  const std::string policy = R"("policy":{"enabled":false,"max_hops":2},)";
  const std::string input =
      R"("input":{"key":{"trigger_sequence":9},"conversation":{"desk_id":"eng","thread_root":4},"author_id":"alice","content":"@bob","mentions":[],"hop":0},)";
  const std::string good =
      R"("roster":{"members":[{"id":"alice","name":null}],"people":[],"retired":[],"tombstoned":[]})";
  const std::string twice =
      R"("roster":{"members":[{"id":"a","name":null},{"id":"a","name":null}],"people":[],"retired":[],"tombstoned":[]})";
  RunNotes notes;
  const auto prepared = run_op("mention_dispatch", parsed("{" + policy + input + good + "}"),
                               std::nullopt, Implementation::Prepared, &notes);
  ASSERT_TRUE(prepared.has_value());
  EXPECT_EQ((*prepared)["decision"]["reason"], "disabled");
  EXPECT_FALSE(notes.unprepared);
  // A malformed roster: no team holds it, so the view overload answers (disabled comes
  // before validation) and the case is noted.
  const auto fallback = run_op("mention_dispatch", parsed("{" + policy + input + twice + "}"),
                               std::nullopt, Implementation::Prepared, &notes);
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ((*fallback)["decision"]["reason"], "disabled");
  EXPECT_TRUE(notes.unprepared);
  // validate_desks on the prepared path is Team::prepare's own report.
  const auto desks = run_op(
      "validate_desks",
      parsed(
          R"({"desks":{"declared":[{"id":"x","name":"main","description":null,"members":[]}],"added":[],"member_additions":[],"orders":[],"retired":[],"tombstoned":[]}})"),
      std::nullopt, Implementation::Prepared);
  ASSERT_TRUE(desks.has_value());
  EXPECT_EQ((*desks)["error"]["variant"], "ReservedDeskIdentity");
}

TEST(RunOpTest, DisplayRendersBothForms) {
  const Value shown = run("display", R"({"type":"EnqueueRefusal","variant":"feature_disabled"})");
  EXPECT_EQ(shown["name"], "feature_disabled");
  EXPECT_EQ(shown["display"], std::string(to_string(NoDispatchReason::Disabled)));
  EXPECT_EQ(run("display", R"({"type":"EnqueueRefusal","variant":"disabled"})")["error"]["path"],
            "/input/variant");
  EXPECT_EQ(
      run("display_equal",
          R"({"a":{"type":"ResponderRung","variant":"orchestrator"},"b":{"type":"X","variant":"y"}})")
          ["error"]["path"],
      "/input/b/type");
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(CheckFilesTest, CountsPassesFailuresAndMalformedCases) {
  const std::string path = write_temp("thm_cases_mixed.json", R"([
    {"name":"pass","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}},
    {"name":"fail","op":"is_general_chat","input":{"chat":"eng"},"expected":{"result":true}},
    {"name":"unknown op","op":"nope","input":{},"expected":{}},
    {"op":"is_general_chat","input":{},"expected":{}},
    {"name":"repeated input key","op":"is_general_chat","input":{"chat":"a","chat":"b"},
     "expected":{"error":{"variant":"Decode","path":"/input/chat"}}}
  ])");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({path}, out, errors);
  EXPECT_EQ(errors.str(), "");
  EXPECT_EQ(summary.passed, 2U);
  EXPECT_EQ(summary.failed, 3U);
  EXPECT_FALSE(summary.unreadable);
  EXPECT_EQ(summary_line(summary), "2 passed, 3 failed");
  EXPECT_NE(out.str().find("FAIL " + path + " #1 fail"), std::string::npos);
  EXPECT_NE(out.str().find(R"(expected: {"result":true})"), std::string::npos);
  EXPECT_NE(out.str().find(R"(actual:   {"result":false})"), std::string::npos);
  EXPECT_NE(out.str().find("unknown op"), std::string::npos);
}

TEST(CheckFilesTest, RepeatedInputKeysWithAnUnknownOpFail) {
  const std::string path = write_temp(
      "thm_cases_unknown_repeated.json",
      R"([{"name":"u","op":"no_such_op","input":{"a":1,"a":2},"expected":{"error":{"variant":"Decode"}}}])");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({path}, out, errors);
  EXPECT_EQ(summary.failed, 1U);
  EXPECT_NE(out.str().find("unknown op"), std::string::npos);
}

TEST(CheckFilesTest, DeeplyNestedCasesAreRefusedWithoutCrashing) {
  const std::string path =
      write_temp("thm_cases_deep.json",
                 R"([{"name":"d","op":"is_general_chat","input":{"chat":null},"expected":)" +
                     std::string(100'000, '[') + std::string(100'000, ']') + "}]");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({path}, out, errors);
  EXPECT_TRUE(summary.unreadable);
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(errors.str().find("nested"), std::string::npos);
}

TEST(CheckFilesTest, ADirectoryCannotBeReadAndTheMessageSaysToNameFiles) {
  std::ostringstream out;
  std::ostringstream errors;
  const std::string dir = testing::TempDir();
  const CheckSummary summary = check_files({dir}, out, errors);
  EXPECT_TRUE(summary.unreadable);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(errors.str(), "thm check: cannot read '" + dir +
                              "': it is a directory; name the case files in it, e.g. '" + dir +
                              (dir.ends_with('/') ? "" : "/") + "*.json'\n");
}

TEST(CheckFilesTest, FileProblemsGoToErrorsWithThePathAndTheReason) {
  const std::string missing = testing::TempDir() + "thm_cases_no_such_file.json";
  const std::string not_json = write_temp("thm_cases_not_json.json", "name: x");
  const std::string object = write_temp("thm_cases_an_object.json", R"({"name":"x"})");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({missing, not_json, object}, out, errors);
  EXPECT_TRUE(summary.unreadable);
  EXPECT_EQ(out.str(), "");
  std::istringstream lines(errors.str());
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "thm check: cannot read '" + missing + "': no such file or directory");
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_TRUE(line.starts_with("thm check: '" + not_json + "' is not JSON (not valid json at byte"))
      << line;
  EXPECT_TRUE(line.ends_with(
      "); a case file is a JSON array of cases, e.g. "
      R"([{"name": "n", "op": "is_general_chat", "input": {"chat": "MAIN"}, "expected": {"result": true}}])"))
      << line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_TRUE(line.starts_with("thm check: '" + object +
                               "' is a JSON object, not an array of cases; a case file is a JSON "
                               "array of cases, e.g. [{"))
      << line;
  EXPECT_FALSE(std::getline(lines, line));
}

TEST(CheckFilesTest, AFileWithNoCasesIsRefusedAndTheRestStillRun) {
  // A run that checked nothing must not read as a pass.
  const std::string empty = write_temp("thm_cases_empty.json", " [ ]\n");
  const std::string good = write_temp(
      "thm_cases_good_after_empty.json",
      R"([{"name":"p","op":"is_general_chat","input":{"chat":"MAIN"},"expected":{"result":true}}])");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({empty, good}, out, errors);
  EXPECT_TRUE(summary.unreadable);
  EXPECT_EQ(summary.passed, 1U);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(
      errors.str(),
      "thm check: '" + empty +
          "' holds no cases; a case file is a JSON array of at least one "
          "case, e.g. "
          R"([{"name": "n", "op": "is_general_chat", "input": {"chat": "MAIN"}, "expected": {"result": true}}])"
          "\n");
}

TEST(CheckFilesTest, UnreadableOrNonArrayFilesAreReportedAndTheRestStillRun) {
  const std::string good = write_temp(
      "thm_cases_good.json",
      R"([{"name":"p","op":"may_dispatch","input":{"context":{"policy":{"enabled":true,"max_hops":1},"hop":0}},"expected":{"result":true}}])");
  const std::string object = write_temp("thm_cases_object.json", R"({"name":"x"})");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary =
      check_files({testing::TempDir() + "no_such_file.json", object, good}, out, errors);
  EXPECT_TRUE(summary.unreadable);
  EXPECT_EQ(summary.passed, 1U);
  EXPECT_EQ(summary.failed, 0U);
  EXPECT_NE(errors.str().find("cannot read"), std::string::npos);
  EXPECT_NE(errors.str().find("not an array of cases"), std::string::npos);
}

TEST(CheckFilesTest, PreparedCountsTheCasesItRanOnViews) {
  const std::string path = write_temp("thm_cases_prepared.json", R"([
    {"name":"team","op":"direct_responder","input":{"mentions":[],"roster":{"members":[],"people":[],"retired":[],"tombstoned":[]}},"expected":{"responder_id":null}},
    {"name":"no team","op":"direct_responder","input":{"mentions":[],"roster":{"members":[{"id":" ","name":null}],"people":[],"retired":[],"tombstoned":[]}},"expected":{"responder_id":null}}
  ])");
  std::ostringstream out;
  std::ostringstream errors;
  const CheckSummary summary = check_files({path}, out, errors, Implementation::Prepared);
  EXPECT_EQ(summary.passed, 2U);
  EXPECT_EQ(summary.unprepared, 1U);
  EXPECT_EQ(summary_line(summary),
            "2 passed, 0 failed; 1 of them on snapshots no team holds, run on views");
}

}  // namespace
}  // namespace thm::cli
