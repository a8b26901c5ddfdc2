#include "thm/chat/chat.hpp"

#include <algorithm>

namespace thm {
namespace {

constexpr char ascii_lower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equals_ascii_case_insensitive(std::string_view text, std::string_view lower) noexcept {
  return text.size() == lower.size() &&
         std::ranges::equal(text, lower, {}, ascii_lower, ascii_lower);
}

}  // namespace

bool is_general_chat(std::optional<std::string_view> chat) noexcept {
  return !chat.has_value() || chat->empty() || equals_ascii_case_insensitive(*chat, "main") ||
         equals_ascii_case_insensitive(*chat, "general");
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
