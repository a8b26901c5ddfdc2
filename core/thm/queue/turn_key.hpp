#pragma once
/// \file
/// The idempotency scope of a child turn (SPEC §3.3; queue-conformance.md §5.7): the one
/// key at most one child turn exists under, and its canonical byte encoding. What a store
/// keeps beside it (rows, leases, hook points) is `thm::store`'s (adr/0010).

#include <string>

#include "thm/chat/chat.hpp"
#include "thm/dispatch/types.hpp"
#include "thm/queue/queue.hpp"

namespace thm {

/// The idempotency scope of a child turn (SPEC §3.3): the canonical conversation and the
/// trigger sequence. At most one child turn exists per `TurnKey`.
struct TurnKey {
  /// `desk_id` is `"General"` for every General spelling (SPEC §1.3); other desk ids are
  /// exact bytes, case kept; `thread_root` absent is the desk's channel, distinct from
  /// every thread.
  DispatchConversation conversation{};
  Sequence trigger_sequence = 0;

  /// An injective byte string for storing the key in one column or map: equal keys give
  /// equal strings and different keys different ones, whatever bytes the desk id holds
  /// (the desk id is length-prefixed; NUL and invalid UTF-8 are kept verbatim). Shape:
  /// `v1/<desk byte length>:<desk id>/<c | t<root>>/<sequence>`, numbers in decimal, e.g.
  /// `v1/3:eng/t42/17`. Its length is the desk id's plus at most 48 bytes.
  [[nodiscard]] std::string encoded() const;

  friend bool operator==(const TurnKey&, const TurnKey&) = default;
};

/// The key of `conversation` and `key` with the General spellings folded (SPEC §1.3, §3.3),
/// so a host that forgot `DispatchConversation::from` still keys every alias alike.
[[nodiscard]] TurnKey turn_key(const DispatchConversation& conversation, DispatchKey key);
/// The key of the child turn `request` would start: `turn_key(request.conversation, request.key)`.
[[nodiscard]] TurnKey turn_key(const MentionTurnRequest& request);

}  // namespace thm
