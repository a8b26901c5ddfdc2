#include "thm/memory/memory_queue.hpp"

#include <charconv>
#include <functional>
#include <limits>
#include <memory>
#include <string>

namespace thm::memory {
namespace {

QueueError error(QueueErrorKind kind, std::string message) {
  return QueueError{kind, std::move(message)};
}

}  // namespace

class MemoryQueue::KeyLocks::Guard {
 public:
  Guard(KeyLocks& owner, std::map<std::string, Entry>::iterator entry)
      : owner_(owner), entry_(entry) {
    entry_->second.mutex.lock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard() {
    entry_->second.mutex.unlock();
    const std::scoped_lock guard(owner_.mutex_);
    if (--entry_->second.users == 0) owner_.entries_.erase(entry_);
  }

 private:
  KeyLocks& owner_;
  std::map<std::string, Entry>::iterator entry_;
};

MemoryQueue::KeyLocks::Guard MemoryQueue::KeyLocks::lock(const std::string& key) {
  std::map<std::string, Entry>::iterator entry;
  {
    const std::scoped_lock guard(mutex_);
    entry = entries_.try_emplace(key).first;
    ++entry->second.users;
  }
  return Guard(*this, entry);  // guaranteed copy elision: the guard is built in place
}

StoreTime system_store_clock() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

MemoryQueue::MemoryQueue(Limits limits, StoreClock clock)
    : limits_(limits), clock_(clock ? std::move(clock) : StoreClock(system_store_clock)) {}

Result<EnqueueOutcome, QueueError> MemoryQueue::enqueue_once(
    const MentionTurnRequest& request) noexcept {
  if (auto over = exceeds_limits(request, limits_.max_content_bytes, limits_.max_id_bytes)) {
    return unexpected{*std::move(over)};
  }

  const std::string key = turn_key(request).encoded();
  const auto rolled_back = [](HookPoint point) {
    return unexpected{error(QueueErrorKind::Unavailable,
                            "the step was rolled back at " + std::string(name(point)))};
  };

  // Begin: calls under one key run one after another from here to the commit.
  const KeyLocks::Guard key_guard = key_locks_.lock(key);
  if (!pass(HookPoint::AfterBegin, request)) return rolled_back(HookPoint::AfterBegin);

  const std::shared_lock state_guard(state_mutex_);
  if (auto mismatch = verify_trigger(request, key)) return unexpected{*std::move(mismatch)};
  if (auto refusal = revalidate_policy(request)) return Refused{*refusal};
  if (!pass(HookPoint::AfterValidateReads, request))
    return rolled_back(HookPoint::AfterValidateReads);

  // The idempotency decision. No other call under this key can insert until we release the
  // key lock, so what we find here is what the commit below will find.
  std::uint64_t child_id = 0;
  {
    const std::scoped_lock table_guard(table_mutex_);
    if (records_.contains(key)) return Already{};
    child_id = next_child_id_++;
  }
  if (!pass(HookPoint::AfterIdempotencyStatement, request))
    return rolled_back(HookPoint::AfterIdempotencyStatement);
  Staged staged{.record = {key, child_id}, .child = {child_id, key, request, TurnState::Pending}};
  if (!pass(HookPoint::AfterChildInsert, request)) return rolled_back(HookPoint::AfterChildInsert);
  if (!pass(HookPoint::BeforeCommit, request)) return rolled_back(HookPoint::BeforeCommit);
  {
    const std::scoped_lock table_guard(table_mutex_);
    records_.emplace(staged.record.key, staged.record.child_id);
    children_.emplace(child_id, std::move(staged.child));
  }
  if (!pass(HookPoint::AfterCommitBeforeReturn, request)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

std::optional<QueueError> MemoryQueue::verify_trigger(const MentionTurnRequest& request,
                                                      const std::string& key) const {
  const auto stored = replies_.find(key);
  if (stored == replies_.end()) {
    return error(QueueErrorKind::TriggerMissing, "no committed reply under key " + key);
  }
  const CommittedReply& reply = stored->second;
  if (auto differs = trigger_mismatch(request, reply.author_id, reply.content, reply.hop, key)) {
    return differs;
  }
  return std::nullopt;
}

std::optional<EnqueueRefusal> MemoryQueue::revalidate_policy(
    const MentionTurnRequest& request) const {
  if (!policy_.enabled || request.child_hop > policy_.max_hops)
    return EnqueueRefusal::FeatureDisabled;
  if (forbidden_.contains({request.source_id, request.target_id}))
    return EnqueueRefusal::Unauthorized;
  if (!available_.contains(request.target_id)) return EnqueueRefusal::TargetUnavailable;
  return std::nullopt;
}

bool MemoryQueue::pass(HookPoint point, const MentionTurnRequest& request) const {
  std::shared_ptr<const TransactionHook> hook;
  {
    const std::scoped_lock guard(hook_mutex_);
    hook = hook_;
  }
  return !hook || (*hook)(point, request);
}

Result<std::optional<Lease>, LeaseError> MemoryQueue::claim(std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(table_mutex_);
  const StoreTime now = clock_();
  for (auto& [id, child] : children_) {
    if (child.state != TurnState::Pending) continue;
    if (child.lease_expires_at && *child.lease_expires_at > now) continue;  // held
    if (child.attempts >= limits_.max_attempts) {
      child.state = TurnState::Dead;
      continue;
    }
    ++child.attempts;
    child.lease_token = std::to_string(id) + "." + std::to_string(child.attempts);
    child.lease_expires_at = now + duration;
    return std::optional<Lease>(Lease{.child_id = id,
                                      .token = child.lease_token,
                                      .expires_at = *child.lease_expires_at,
                                      .attempt = child.attempts,
                                      .request = child.request});
  }
  return std::optional<Lease>();
}

ChildTurn* MemoryQueue::leased_child(const std::string& token, StoreTime now) {
  // A token is "<child id>.<attempt>"; the exact comparison below rejects anything else.
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

Result<StoreTime, LeaseError> MemoryQueue::renew(const std::string& token,
                                                 std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(table_mutex_);
  const StoreTime now = clock_();
  ChildTurn* child = leased_child(token, now);
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  child->lease_expires_at = now + duration;
  return *child->lease_expires_at;
}

Result<TurnState, LeaseError> MemoryQueue::complete(const std::string& token) {
  const std::scoped_lock guard(table_mutex_);
  ChildTurn* child = leased_child(token, clock_());
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  child->state = TurnState::Completed;
  child->lease_expires_at.reset();
  return child->state;
}

Result<TurnState, LeaseError> MemoryQueue::fail(const std::string& token) {
  const std::scoped_lock guard(table_mutex_);
  ChildTurn* child = leased_child(token, clock_());
  if (child == nullptr) return unexpected{LeaseError::StaleToken};
  child->lease_expires_at.reset();
  if (child->attempts >= limits_.max_attempts) child->state = TurnState::Failed;
  return child->state;
}

void MemoryQueue::commit_reply(CommittedReply reply) {
  std::string key = turn_key(reply.conversation, {reply.sequence}).encoded();
  const std::unique_lock guard(state_mutex_);
  replies_.insert_or_assign(std::move(key), std::move(reply));
}

void MemoryQueue::set_policy(MentionDispatchPolicy policy) {
  const std::unique_lock guard(state_mutex_);
  policy_ = policy;
}

void MemoryQueue::set_authorized(const std::string& source_id, const std::string& target_id,
                                 bool authorized) {
  const std::unique_lock guard(state_mutex_);
  if (authorized) {
    forbidden_.erase({source_id, target_id});
  } else {
    forbidden_.emplace(source_id, target_id);
  }
}

void MemoryQueue::set_available(const std::string& agent_id, bool available) {
  const std::unique_lock guard(state_mutex_);
  if (available) {
    available_.insert(agent_id);
  } else {
    available_.erase(agent_id);
  }
}

void MemoryQueue::set_hook(TransactionHook hook) {
  auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
  const std::scoped_lock guard(hook_mutex_);
  hook_ = std::move(installed);
}

bool MemoryQueue::settle(std::uint64_t id, TurnState state) {
  const std::scoped_lock guard(table_mutex_);
  const auto child = children_.find(id);
  if (child == children_.end()) return false;
  child->second.state = state;
  return true;
}

bool MemoryQueue::remove(std::uint64_t id) {
  const std::scoped_lock guard(table_mutex_);
  return children_.erase(id) == 1;
}

std::size_t MemoryQueue::prune() {
  const std::scoped_lock guard(table_mutex_);
  return std::erase_if(children_,
                       [](const auto& entry) { return entry.second.state != TurnState::Pending; });
}

std::vector<IdempotencyRecord> MemoryQueue::records() const {
  const std::scoped_lock guard(table_mutex_);
  std::vector<IdempotencyRecord> out;
  out.reserve(records_.size());
  for (const auto& [key, child_id] : records_) out.push_back({key, child_id});
  return out;
}

std::vector<ChildTurn> MemoryQueue::children() const {
  const std::scoped_lock guard(table_mutex_);
  std::vector<ChildTurn> out;
  out.reserve(children_.size());
  for (const auto& entry : children_) out.push_back(entry.second);
  return out;
}

std::optional<ChildTurn> MemoryQueue::child_for(const TurnKey& key) const {
  const std::scoped_lock guard(table_mutex_);
  const auto record = records_.find(key.encoded());
  if (record == records_.end()) return std::nullopt;
  const auto child = children_.find(record->second);
  if (child == children_.end()) return std::nullopt;
  return child->second;
}

}  // namespace thm::memory
