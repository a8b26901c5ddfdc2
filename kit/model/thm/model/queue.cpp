// The model host queue: SPEC §4's transaction contract, one call at a time.
#include "thm/model/queue.hpp"

#include <limits>

namespace thm::model {

TurnKey turn_key(const DispatchConversation& conversation, std::uint64_t sequence) {
  const bool general = is_general_chat(conversation.desk_id);
  return {general ? "General" : conversation.desk_id, conversation.thread_root, sequence};
}

void TurnQueue::commit_reply(const StoredReply& reply) {
  replies_[turn_key(reply.conversation, reply.sequence)] = reply;
}

void TurnQueue::set_authorized(const std::string& source, const std::string& target,
                               bool authorized) {
  if (authorized) {
    forbidden_.erase({source, target});
  } else {
    forbidden_.insert({source, target});
  }
}

void TurnQueue::set_available(const std::string& agent, bool available) {
  if (available) {
    available_.insert(agent);
  } else {
    available_.erase(agent);
  }
}

Allowed TurnQueue::answers(const TurnRequest& request) const {
  const TurnKey key = turn_key(request.conversation, request.trigger_sequence);
  Allowed out;
  // The committed reply must exist and match the request in source, content and hop.
  const auto reply = replies_.find(key);
  const bool verified = [&] {
    if (reply == replies_.end()) return false;
    const StoredReply& stored = reply->second;
    const bool hop_follows = stored.hop != std::numeric_limits<std::uint32_t>::max() &&
                             request.child_hop == stored.hop + 1;
    return stored.author_id == request.source_id && stored.content == request.content &&
           hop_follows;
  }();
  if (!verified) out.insert({"error:trigger_missing", "error:trigger_mismatch"});
  // Live policy, the pair's authorization and the target's availability.
  if (!policy_.enabled || request.child_hop > policy_.max_hops)
    out.insert("refused:feature_disabled");
  if (forbidden_.contains({request.source_id, request.target_id}))
    out.insert("refused:unauthorized");
  if (!available_.contains(request.target_id)) out.insert("refused:target_unavailable");
  if (!out.empty()) return out;
  // Nothing stands in the way: the record decides.
  return {children_.contains(key) ? "already" : "enqueued"};
}

void TurnQueue::record(const TurnRequest& request, const std::string& answer) {
  if (answer != "enqueued") return;
  children_[turn_key(request.conversation, request.trigger_sequence)] =
      QueuedChild{.request = request};
}

Claimable TurnQueue::claimable(Millis now) const {
  Claimable out;
  for (const auto& [key, child] : children_) {
    if (child.completed || child.failed || child.attempts >= max_attempts_) continue;
    const bool free = !child.lease_expires_at || *child.lease_expires_at < now;
    const bool expiring_now = child.lease_expires_at && *child.lease_expires_at == now;
    if (free) out.must.push_back(key);
    if (free || expiring_now) out.may.push_back(key);
  }
  return out;
}

void TurnQueue::claim(const TurnKey& key, Millis now, Millis duration) {
  QueuedChild& child = children_.at(key);
  ++child.attempts;
  child.lease_expires_at = now + duration;
}

Tri TurnQueue::live(const TurnKey& key, std::uint32_t attempt, Millis now) const {
  const auto found = children_.find(key);
  if (found == children_.end()) return Tri::No;
  const QueuedChild& child = found->second;
  if (child.completed || child.failed || child.attempts != attempt || !child.lease_expires_at) {
    return Tri::No;
  }
  return *child.lease_expires_at > now ? Tri::Yes : Tri::Either;
}

void TurnQueue::renew(const TurnKey& key, Millis now, Millis duration) {
  children_.at(key).lease_expires_at = now + duration;
}

void TurnQueue::complete(const TurnKey& key) {
  QueuedChild& child = children_.at(key);
  child.completed = true;
  child.lease_expires_at.reset();
}

void TurnQueue::fail(const TurnKey& key) {
  QueuedChild& child = children_.at(key);
  child.lease_expires_at.reset();
  child.failed = child.attempts >= max_attempts_;
}

}  // namespace thm::model
