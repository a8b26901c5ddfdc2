// Differential test over the realistic message corpus (model/corpus/messages.json, a copy of
// shared/corpus): for every message, with its agents on the roster and its author writing,
// the core and the model resolve the same mentions, and they make the same dispatch decision.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "thm/bridge/bridge.hpp"
#include "thm/json/json.hpp"

namespace thm {
namespace {

json::Value corpus() {
  std::ifstream file(THM_CORPUS_FILE, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  auto tree = json::parse(text.str());
  EXPECT_TRUE(tree.has_value()) << THM_CORPUS_FILE;
  return tree.has_value() ? *tree : json::Value::array();
}

TEST(CorpusTest, CoreAndModelAgreeOnEveryMessage) {
  const json::Value messages = corpus();
  ASSERT_GE(messages.size(), 100U);
  std::size_t with_mentions = 0;
  for (const auto& message : messages) {
    const std::string body = message["body"].get<std::string>();
    const std::string author = message["author"].get<std::string>();
    RosterSnapshot roster;
    for (const auto& agent : message["agents"])
      roster.members.push_back({.id = agent.get<std::string>()});
    const DeskSnapshot desks{
        .declared = {{.id = "eng", .name = "Engineering", .members = {author}}}};
    SCOPED_TRACE(message["id"].get<std::string>());

    const auto core =
        resolve_mentions(body, std::nullopt, AgentAuthor{author}, Roster(roster), DeskSet(desks));
    const auto model = model::resolve_mentions(body, std::nullopt, {"agent", author},
                                               bridge::to_model(roster), bridge::to_model(desks));
    EXPECT_EQ(core, bridge::to_core(model));
    with_mentions += core.empty() ? 0 : 1;

    const MentionDispatchInput reply{.key = {.trigger_sequence = 1},
                                     .conversation = {.desk_id = "eng"},
                                     .author_id = author,
                                     .content = body,
                                     .mentions = core,
                                     .hop = 0};
    const MentionDispatchPolicy policy{.enabled = true, .max_hops = 2};
    const auto decision = mention_dispatch(policy, reply, Roster(roster));
    const auto model_decision = model::mention_dispatch(
        bridge::to_model(policy), bridge::to_model(reply), bridge::to_model(roster));
    ASSERT_TRUE(decision.has_value());
    ASSERT_TRUE(model_decision.value.has_value());
    EXPECT_EQ(*decision, bridge::to_core(*model_decision.value));
  }
  EXPECT_GE(with_mentions, messages.size() / 2);  // the corpus is about mentions
}

}  // namespace
}  // namespace thm
