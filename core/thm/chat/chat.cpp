#include "thm/chat/chat.hpp"

#include "thm/detail/ascii.hpp"

namespace thm {
bool is_general_chat(std::optional<std::string_view> chat) noexcept {
  return !chat.has_value() || chat->empty() || detail::equals_ignoring_ascii_case(*chat, "main") ||
         detail::equals_ignoring_ascii_case(*chat, "general");
}

bool same_conversation(std::optional<std::string_view> a,
                       std::optional<std::string_view> b) noexcept {
  const bool a_general = is_general_chat(a);
  const bool b_general = is_general_chat(b);
  if (a_general || b_general) return a_general && b_general;
  return *a == *b;
}

bool Conversation::is_general() const noexcept {
  return is_general_chat(desk_id) || is_general_chat(desk_name);
}

bool Conversation::equivalent_to(const Conversation& other) const noexcept {
  if (thread_root != other.thread_root) return false;
  const bool general = is_general();
  if (general || other.is_general()) return general && other.is_general();
  return desk_id == other.desk_id;
}

DispatchConversation DispatchConversation::from(const Conversation& conversation) {
  return {.desk_id = conversation.is_general() ? std::string(kGeneralDesk) : conversation.desk_id,
          .thread_root = conversation.thread_root};
}

}  // namespace thm
