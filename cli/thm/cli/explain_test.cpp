// `thm explain` on every case of the shared case files: the core, the core on a
// prepared team and the reference model give the same trace, the traced call decides as the
// untraced one does, and the trace ends where the decision says it does.
#include "thm/cli/explain.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace thm::cli {
namespace {

using json::Value;

Value without_explanation(Value result) {
  for (const char* key : {"trace", "operator", "agent"}) result.erase(key);
  return result;
}

// The sentence §5 gives the decision in `result`, or nothing for an error.
std::optional<std::string> decision_sentence(std::string_view op, const Value& result) {
  if (result.contains("error")) return std::nullopt;
  if (op == "mention_dispatch") {
    const Value& decision = result.at("decision");
    if (decision.at("kind") == "one") return "this turn was handed to one teammate";
    const auto reason = no_dispatch_reason_from_name(decision.at("reason").get<std::string>());
    return reason ? std::optional<std::string>(to_string(*reason)) : std::nullopt;
  }
  const Value& decision = op == "settle_selection" ? result.at("decision")
                          : result.at("plan").at("kind") == "decided"
                              ? result.at("plan").at("decision")
                              : Value();
  if (decision.is_null()) return "the desk's selector is asked to pick who answers";
  const auto rung = responder_rung_from_name(decision.at("rung").get<std::string>());
  return rung ? std::optional<std::string>(to_string(*rung)) : std::nullopt;
}

TEST(ExplainTest, EveryCaseIsExplainedAlikeByTheCoreAPreparedTeamAndTheModel) {
  std::map<std::string, int> explained;
  for (const char* folder : {THM_SHARED_CASES, THM_PROJECT_CASES}) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() != ".json") continue;
      std::ifstream file(entry.path());
      const Value cases = Value::parse(file);
      for (std::size_t i = 0; i < cases.size(); ++i) {
        const Value& c = cases[i];
        const std::string op = c.at("op").get<std::string>();
        if (std::ranges::find(kExplainedOps, op) == kExplainedOps.end()) continue;
        SCOPED_TRACE(entry.path().filename().string() + " #" + std::to_string(i) + " " +
                     c.at("name").get<std::string>());
        const auto core = explain_op(op, c.at("input"), std::nullopt, Implementation::Core);
        const auto prepared = explain_op(op, c.at("input"), std::nullopt, Implementation::Prepared);
        const auto model = explain_op(op, c.at("input"), std::nullopt, Implementation::Model);
        const auto untraced = run_op(op, c.at("input"));
        ASSERT_TRUE(core.has_value()) << core.error();
        ASSERT_TRUE(prepared.has_value()) << prepared.error();
        ASSERT_TRUE(model.has_value()) << model.error();
        ASSERT_TRUE(untraced.has_value()) << untraced.error();

        EXPECT_EQ(without_explanation(*core), *untraced);
        EXPECT_TRUE(matches(c.at("expected"), without_explanation(*core)));
        EXPECT_EQ(core->at("trace"), model->at("trace"));
        EXPECT_EQ(core->at("trace"), prepared->at("trace"));
        EXPECT_EQ(core->at("agent"), model->at("agent"));

        const Value& trace = core->at("trace");
        const bool refused = core->contains("error") && core->at("error").at("variant") == "Decode";
        EXPECT_EQ(trace.empty(), refused);
        if (const auto sentence = decision_sentence(op, *core)) {
          const Value& agent = core->at("agent");
          ASSERT_FALSE(agent.empty());
          const bool said = std::ranges::find(agent, Value(*sentence)) != agent.end() ||
                            trace.back().at("rule") == "plan";
          EXPECT_TRUE(said) << *sentence << " not in " << agent.dump();
        }
        ++explained[op];
      }
    }
  }
  // No false green: as many cases as the files held when traces came, or more.
  EXPECT_GE(explained["responder_plan"], 16);
  EXPECT_GE(explained["settle_selection"], 4);
  EXPECT_GE(explained["mention_dispatch"], 22);
}

TEST(ExplainTest, AnOpWithoutATraceIsRefused) {
  const auto result =
      explain_op("is_general_chat", Value::object(), std::nullopt, Implementation::Core);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().find("has no trace"), std::string::npos);
}

}  // namespace
}  // namespace thm::cli
