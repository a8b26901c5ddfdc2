#include "thm/memory/tables.hpp"

#include <algorithm>
#include <charconv>

namespace thm::memory {

// ---- ReplyState --------------------------------------------------------------------------------

void ReplyState::commit_reply(CommittedReply reply) {
  std::string key = turn_key(reply.conversation, {reply.sequence}).encoded();
  replies_.insert_or_assign(std::move(key), std::move(reply));
}

void ReplyState::set_authorized(const std::string& source_id, const std::string& target_id,
                                bool authorized) {
  if (authorized) {
    forbidden_.erase({source_id, target_id});
  } else {
    forbidden_.emplace(source_id, target_id);
  }
}

void ReplyState::set_available(const std::string& agent_id, bool available) {
  if (available) {
    available_.insert(agent_id);
  } else {
    available_.erase(agent_id);
  }
}

std::optional<QueueError> ReplyState::verify_trigger(const MentionTurnRequest& request,
                                                     const std::string& key) const {
  const auto stored = replies_.find(key);
  if (stored == replies_.end()) {
    return QueueError{QueueErrorKind::TriggerMissing, "no committed reply under key " + key};
  }
  const CommittedReply& reply = stored->second;
  return trigger_mismatch(request, reply.author_id, reply.content, reply.hop, key);
}

std::optional<EnqueueRefusal> ReplyState::revalidate_policy(
    const MentionTurnRequest& request) const {
  if (!policy_.enabled || request.child_hop > policy_.max_hops)
    return EnqueueRefusal::FeatureDisabled;
  if (forbidden_.contains({request.source_id, request.target_id}))
    return EnqueueRefusal::Unauthorized;
  if (!available_.contains(request.target_id)) return EnqueueRefusal::TargetUnavailable;
  return std::nullopt;
}

// ---- TurnTable ---------------------------------------------------------------------------------

void TurnTable::insert(const std::string& key, std::uint64_t id,
                       const MentionTurnRequest& request) {
  records_.emplace(key, id);
  // Usually the largest id so far, so the end is the hint (a step that reserved its id
  // earlier may insert later: the hint is then merely wrong, never harmful).
  children_.emplace_hint(children_.end(), id, ChildTurn{id, key, request, TurnState::Pending});
  pending_.insert(pending_.end(), id);
}

void TurnTable::set_state(ChildTurn& child, TurnState state) {
  if (state == TurnState::Pending) {
    pending_.insert(child.id);
  } else {
    pending_.erase(child.id);
  }
  child.state = state;
}

std::optional<Lease> TurnTable::claim(StoreTime now, std::chrono::milliseconds duration,
                                      std::uint32_t max_attempts) {
  for (auto next = pending_.begin(); next != pending_.end();) {
    const std::uint64_t id = *next++;               // advanced first: `set_state` may erase `id`
    ChildTurn& child = children_.find(id)->second;  // every pending id has its child
    if (child.lease_expires_at && *child.lease_expires_at > now) continue;  // held
    if (child.attempts >= max_attempts) {
      set_state(child, TurnState::Dead);
      continue;
    }
    ++child.attempts;
    child.lease_token = std::to_string(id) + "." + std::to_string(child.attempts);
    child.lease_expires_at = now + duration;
    return Lease{.child_id = id,
                 .token = child.lease_token,
                 .expires_at = *child.lease_expires_at,
                 .attempt = child.attempts,
                 .request = child.request};
  }
  return std::nullopt;
}

ChildTurn* TurnTable::leased_child(const std::string& token, StoreTime now) {
  // The exact token comparison below rejects anything but "<child id>.<attempt>".
  std::uint64_t id = 0;
  if (std::from_chars(token.data(), token.data() + token.size(), id).ec != std::errc{})
    return nullptr;
  const auto child = children_.find(id);
  if (child == children_.end()) return nullptr;
  ChildTurn& turn = child->second;
  const bool live = turn.state == TurnState::Pending && turn.lease_token == token &&
                    turn.lease_expires_at && *turn.lease_expires_at > now;
  return live ? &turn : nullptr;
}

Result<StoreTime, LeaseError> TurnTable::renew(const std::string& token, StoreTime now,
                                               std::chrono::milliseconds duration) {
  ChildTurn* child = leased_child(token, now);
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  child->lease_expires_at = now + duration;
  return *child->lease_expires_at;
}

Result<TurnState, LeaseError> TurnTable::complete(const std::string& token, StoreTime now) {
  ChildTurn* child = leased_child(token, now);
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  set_state(*child, TurnState::Completed);
  child->lease_expires_at.reset();
  return child->state;
}

Result<TurnState, LeaseError> TurnTable::fail(const std::string& token, StoreTime now,
                                              std::uint32_t max_attempts) {
  ChildTurn* child = leased_child(token, now);
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  child->lease_expires_at.reset();
  if (child->attempts >= max_attempts) set_state(*child, TurnState::Failed);
  return child->state;
}

bool TurnTable::settle(std::uint64_t id, TurnState state) {
  const auto child = children_.find(id);
  if (child == children_.end()) return false;
  set_state(child->second, state);
  return true;
}

bool TurnTable::remove(std::uint64_t id) {
  pending_.erase(id);
  return children_.erase(id) == 1;
}

std::size_t TurnTable::prune() {
  return std::erase_if(children_,
                       [](const auto& entry) { return entry.second.state != TurnState::Pending; });
}

std::vector<IdempotencyRecord> TurnTable::records() const {
  std::vector<IdempotencyRecord> out;
  out.reserve(records_.size());
  for (const auto& [key, child_id] : records_) out.push_back({key, child_id});
  std::ranges::sort(out, {}, &IdempotencyRecord::key);
  return out;
}

std::vector<ChildTurn> TurnTable::children() const {
  std::vector<ChildTurn> out;
  out.reserve(children_.size());
  for (const auto& entry : children_) out.push_back(entry.second);
  return out;
}

std::optional<ChildTurn> TurnTable::child_for(const std::string& key) const {
  const auto record = records_.find(key);
  if (record == records_.end()) return std::nullopt;
  const auto child = children_.find(record->second);
  if (child == children_.end()) return std::nullopt;
  return child->second;
}

}  // namespace thm::memory
