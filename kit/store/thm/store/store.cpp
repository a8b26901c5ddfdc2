#include "thm/store/store.hpp"

#include <limits>
#include <string>

namespace thm {

std::optional<QueueError> exceeds_limits(const MentionTurnRequest& request,
                                         std::size_t max_content_bytes, std::size_t max_id_bytes) {
  if (request.content.size() > max_content_bytes) {
    return QueueError{QueueErrorKind::InvalidRequest,
                      "content is longer than the store's limit of " +
                          std::to_string(max_content_bytes) + " bytes"};
  }
  for (const std::string* id :
       {&request.source_id, &request.target_id, &request.conversation.desk_id}) {
    if (id->size() > max_id_bytes) {
      return QueueError{
          QueueErrorKind::InvalidRequest,
          "an id is longer than the store's limit of " + std::to_string(max_id_bytes) + " bytes"};
    }
  }
  return std::nullopt;
}

std::optional<QueueError> trigger_mismatch(const MentionTurnRequest& request,
                                           std::string_view author_id, std::string_view content,
                                           std::int64_t hop, std::string_view key) {
  const auto mismatch = [key](const char* what) {
    return QueueError{QueueErrorKind::TriggerMismatch,
                      std::string("the request's ") + what +
                          " differs from the committed reply under key " + std::string(key)};
  };
  if (author_id != request.source_id) return mismatch("source");
  if (content != request.content) return mismatch("content");
  if (hop < 0 || hop >= std::int64_t{std::numeric_limits<std::uint32_t>::max()} ||
      std::int64_t{request.child_hop} != hop + 1) {
    return mismatch("child hop");
  }
  return std::nullopt;
}

QueueError rolled_back_at(HookPoint point) {
  return {QueueErrorKind::Unavailable, "the step was rolled back at " + std::string(name(point))};
}

}  // namespace thm
