#include "thm/queue/turn_key.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace thm {
namespace {

TurnKey key(std::string desk, std::optional<Sequence> thread, Sequence sequence) {
  return turn_key(DispatchConversation{.desk_id = std::move(desk), .thread_root = thread},
                  {sequence});
}

TEST(TurnKeyTest, FoldsEveryGeneralSpellingToOneKey) {
  const TurnKey general = key("General", std::nullopt, 7);
  for (const char* alias : {"", "main", "MAIN", "Main", "general", "GENERAL"}) {
    EXPECT_EQ(key(alias, std::nullopt, 7), general) << alias;
    EXPECT_EQ(key(alias, std::nullopt, 7).encoded(), general.encoded()) << alias;
  }
  EXPECT_EQ(general.conversation.desk_id, "General");
  EXPECT_NE(key(" main", std::nullopt, 7), general);  // no trimming (SPEC §1.3)
}

TEST(TurnKeyTest, KeepsDeskCaseThreadAndSequenceApart) {
  const std::vector<TurnKey> keys{key("eng", std::nullopt, 5),
                                  key("Eng", std::nullopt, 5),
                                  key("eng", 0, 5),
                                  key("eng", 5, 5),
                                  key("eng", std::nullopt, 6),
                                  key("caf\u00e9", std::nullopt, 5),
                                  key("cafe\u0301", std::nullopt, 5)};
  std::set<std::string> encoded;
  for (const auto& k : keys) encoded.insert(k.encoded());
  EXPECT_EQ(encoded.size(), keys.size());
}

// Pairs that a delimiter-joined encoding would merge: every part that could contain the
// delimiter is length-prefixed.
TEST(TurnKeyTest, EncodingIsInjectiveOnDelimiterLookalikes) {
  const std::vector<std::pair<TurnKey, TurnKey>> pairs{
      {key("a/t1", std::nullopt, 5), key("a", 1, 5)},
      {key("a/c/1", std::nullopt, 2), key("a", std::nullopt, 1)},
      {key("1", std::nullopt, 23), key("12", std::nullopt, 3)},
      {key("3:eng", std::nullopt, 1), key("eng", std::nullopt, 1)},
      {key(std::string("a\0b", 3), std::nullopt, 1), key("a", std::nullopt, 1)},
  };
  for (const auto& [a, b] : pairs) {
    EXPECT_NE(a, b);
    EXPECT_NE(a.encoded(), b.encoded()) << a.encoded();
  }
}

TEST(TurnKeyTest, EncodedShapeIsDocumented) {
  EXPECT_EQ(key("eng", 42, 17).encoded(), "v1/3:eng/t42/17");
  EXPECT_EQ(key("main", std::nullopt, 18446744073709551615ULL).encoded(),
            "v1/7:General/c/18446744073709551615");
}

TEST(TurnKeyTest, OfARequestIsItsConversationAndTrigger) {
  const MentionTurnRequest request{.key = {9},
                                   .conversation = {.desk_id = "MAIN", .thread_root = 3}};
  EXPECT_EQ(turn_key(request), key("General", 3, 9));
}

}  // namespace
}  // namespace thm
