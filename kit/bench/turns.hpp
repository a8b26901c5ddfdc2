#pragma once
/// \file
/// The committed replies and turn requests the queue and store benches enqueue: `alice`
/// in #eng hands step `sequence` to `bob`, hop 0, so every request is admissible once its
/// reply is committed and `bob` is available.

#include <string>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace thm::bench {

/// The reply committed under `sequence`: a short message from `alice` that mentions `bob`.
inline CommittedReply reply_for(Sequence sequence) {
  return {.conversation = {.desk_id = "eng", .thread_root = std::nullopt},
          .sequence = sequence,
          .author_id = "alice",
          .content = "@bob please pick up step " + std::to_string(sequence) + " of the rollout",
          .hop = 0};
}

/// The child turn `reply` asks for: `bob`, at hop 1, with the reply's own key and content.
inline MentionTurnRequest request_for(const CommittedReply& reply) {
  return {.key = {reply.sequence},
          .source_id = reply.author_id,
          .target_id = "bob",
          .content = reply.content,
          .conversation = reply.conversation,
          .child_hop = 1};
}

}  // namespace thm::bench
