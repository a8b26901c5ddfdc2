#include "thm/chat/chat.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace thm {
namespace {

TEST(ChatTest, ExactlyFourSpellingsAreGeneral) {
  for (const std::optional<std::string_view> general :
       {std::optional<std::string_view>{}, std::optional<std::string_view>{""},
        std::optional<std::string_view>{"main"}, std::optional<std::string_view>{"MAIN"},
        std::optional<std::string_view>{"mAiN"}, std::optional<std::string_view>{"General"},
        std::optional<std::string_view>{"GENERAL"}, std::optional<std::string_view>{"general"}}) {
    EXPECT_TRUE(is_general_chat(general)) << general.value_or("<absent>");
  }
  for (const std::string_view other : {" main", "main ", "General\n", "generals", "mainline",
                                       "\u0261eneral", "engineering", "m"}) {
    EXPECT_FALSE(is_general_chat(other)) << other;
  }
}

TEST(ChatTest, SameConversationFoldsOnlyGeneralSpellings) {
  EXPECT_TRUE(same_conversation("main", ""));
  EXPECT_TRUE(same_conversation(std::nullopt, "GENERAL"));
  EXPECT_TRUE(same_conversation("engineering", "engineering"));
  EXPECT_FALSE(same_conversation("engineering", "Engineering"));
  EXPECT_FALSE(same_conversation(std::nullopt, "engineering"));
  EXPECT_FALSE(same_conversation("engineering", "main"));
}

TEST(ChatTest, DispatchScopeCanonicalizesEveryGeneralAliasAndPreservesExactThreads) {
  for (const std::string alias : {"", "main", "MAIN", "General", "GENERAL"}) {
    const Conversation by_id{.desk_id = alias, .desk_name = "Ordinary label", .thread_root = 17};
    const Conversation by_name{
        .desk_id = "opaque-id", .desk_name = alias, .thread_root = std::nullopt};
    EXPECT_EQ(DispatchConversation::from(by_id),
              (DispatchConversation{.desk_id = "General", .thread_root = 17}));
    EXPECT_EQ(DispatchConversation::from(by_name),
              (DispatchConversation{.desk_id = "General", .thread_root = std::nullopt}));
  }
  EXPECT_EQ(
      DispatchConversation::from({.desk_id = "Eng", .desk_name = "Engineering", .thread_root = 18}),
      (DispatchConversation{.desk_id = "Eng", .thread_root = 18}));
}

TEST(ChatTest, ChannelAndEachThreadAreDistinctScopes) {
  const auto scope = [](std::optional<Sequence> root) {
    return DispatchConversation::from({.desk_id = "eng", .desk_name = "Eng", .thread_root = root});
  };
  EXPECT_NE(scope(std::nullopt), scope(0));
  EXPECT_NE(scope(17), scope(18));
  EXPECT_EQ(scope(17), scope(17));
}

TEST(ChatTest, EquivalentConversationsNeedEqualThreadsAndMatchingDesks) {
  const Conversation general{.desk_id = "main", .desk_name = "x", .thread_root = 3};
  const Conversation also_general{.desk_id = "y", .desk_name = "GENERAL", .thread_root = 3};
  const Conversation eng{.desk_id = "eng", .desk_name = "Engineering", .thread_root = 3};
  EXPECT_TRUE(general.equivalent_to(also_general));
  EXPECT_FALSE(general.equivalent_to(eng));
  EXPECT_TRUE(eng.equivalent_to({.desk_id = "eng", .desk_name = "Renamed", .thread_root = 3}));
  EXPECT_FALSE(eng.equivalent_to({.desk_id = "Eng", .desk_name = "Engineering", .thread_root = 3}));
  EXPECT_FALSE(eng.equivalent_to({.desk_id = "eng", .desk_name = "Engineering", .thread_root = 4}));
}

}  // namespace
}  // namespace thm
