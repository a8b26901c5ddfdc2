#include "thm/queue/turn_key.hpp"

#include <string>

namespace thm {

std::string TurnKey::encoded() const {
  std::string out = "v1/";
  out += std::to_string(conversation.desk_id.size());
  out += ':';
  out += conversation.desk_id;
  out += conversation.thread_root ? "/t" + std::to_string(*conversation.thread_root)
                                  : std::string("/c");
  out += '/';
  out += std::to_string(trigger_sequence);
  return out;
}

TurnKey turn_key(const DispatchConversation& conversation, DispatchKey key) {
  TurnKey out{.conversation = conversation, .trigger_sequence = key.trigger_sequence};
  if (is_general_chat(conversation.desk_id)) out.conversation.desk_id = kGeneralDesk;
  return out;
}

TurnKey turn_key(const MentionTurnRequest& request) {
  return turn_key(request.conversation, request.key);
}

}  // namespace thm
