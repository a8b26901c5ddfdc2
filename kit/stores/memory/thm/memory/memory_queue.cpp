#include "thm/memory/memory_queue.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "thm/store/reference_store.hpp"

namespace thm::memory {

// The one interface every reference store has (adr/0010): checked here, where it is kept.
static_assert(ReferenceStore<MemoryQueue>);

namespace {

QueueError error(QueueErrorKind kind, std::string message) {
  return QueueError{kind, std::move(message)};
}

}  // namespace

class MemoryQueue::KeyLocks::Guard {
 public:
  Guard(Shard& shard, std::string_view key) : shard_(shard), key_(key) {}
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  ~Guard() {
    {
      const std::scoped_lock guard(shard_.mutex);
      auto& held = shard_.held;
      *std::find(held.begin(), held.end(), key_) = held.back();
      held.pop_back();
    }
    shard_.released.notify_all();
  }

 private:
  Shard& shard_;
  std::string_view key_;
};

MemoryQueue::KeyLocks::Guard MemoryQueue::KeyLocks::lock(const std::string& key) {
  Shard& shard = shards_[std::hash<std::string_view>{}(key) % shards_.size()];
  std::unique_lock guard(shard.mutex);
  shard.released.wait(guard, [&] {
    return std::find(shard.held.begin(), shard.held.end(), key) == shard.held.end();
  });
  shard.held.emplace_back(key);
  return Guard(shard, key);  // guaranteed copy elision: the guard is built in place
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
  // Begin: calls under one key run one after another from here to the commit. The step runs
  // the hook installed when it began (after waiting for its key) at each of its points.
  const KeyLocks::Guard key_guard = key_locks_.lock(key);
  const auto hook = current_hook();
  const auto pass = [&](HookPoint point) { return !hook || (*hook)(point, request); };
  if (!pass(HookPoint::AfterBegin)) return unexpected{rolled_back_at(HookPoint::AfterBegin)};

  const std::shared_lock state_guard(state_mutex_);
  if (auto mismatch = state_.verify_trigger(request, key)) return unexpected{*std::move(mismatch)};
  if (auto refusal = state_.revalidate_policy(request)) return Refused{*refusal};
  if (!pass(HookPoint::AfterValidateReads))
    return unexpected{rolled_back_at(HookPoint::AfterValidateReads)};

  // The idempotency decision. No other call under this key can insert until we release the
  // key lock, so what we find here is what the commit below will find.
  std::uint64_t child_id = 0;
  {
    const std::scoped_lock table_guard(table_mutex_);
    if (table_.has_record(key)) return Already{};
    child_id = table_.reserve_id();
  }
  if (!pass(HookPoint::AfterIdempotencyStatement))
    return unexpected{rolled_back_at(HookPoint::AfterIdempotencyStatement)};
  if (!pass(HookPoint::AfterChildInsert))
    return unexpected{rolled_back_at(HookPoint::AfterChildInsert)};
  if (!pass(HookPoint::BeforeCommit)) return unexpected{rolled_back_at(HookPoint::BeforeCommit)};
  {
    const std::scoped_lock table_guard(table_mutex_);
    table_.insert(key, child_id, request);
  }
  if (!pass(HookPoint::AfterCommitBeforeReturn)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

std::shared_ptr<const TransactionHook> MemoryQueue::current_hook() const {
  if (!hooked_.load(std::memory_order_acquire)) return nullptr;
  const std::scoped_lock guard(hook_mutex_);
  return hook_;
}

Result<std::optional<Lease>, LeaseError> MemoryQueue::claim(std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(table_mutex_);
  return table_.claim(clock_(), duration, limits_.max_attempts);
}

Result<StoreTime, LeaseError> MemoryQueue::renew(const std::string& token,
                                                 std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(table_mutex_);
  return table_.renew(token, clock_(), duration);
}

Result<TurnState, LeaseError> MemoryQueue::complete(const std::string& token) {
  const std::scoped_lock guard(table_mutex_);
  return table_.complete(token, clock_());
}

Result<TurnState, LeaseError> MemoryQueue::fail(const std::string& token) {
  const std::scoped_lock guard(table_mutex_);
  return table_.fail(token, clock_(), limits_.max_attempts);
}

Result<Committed, QueueError> MemoryQueue::commit_reply(const CommittedReply& reply) {
  const std::unique_lock guard(state_mutex_);
  state_.commit_reply(reply);
  return Committed{};
}

Result<Committed, QueueError> MemoryQueue::set_policy(MentionDispatchPolicy policy) {
  const std::unique_lock guard(state_mutex_);
  state_.set_policy(policy);
  return Committed{};
}

Result<Committed, QueueError> MemoryQueue::set_authorized(const std::string& source_id,
                                                          const std::string& target_id,
                                                          bool authorized) {
  const std::unique_lock guard(state_mutex_);
  state_.set_authorized(source_id, target_id, authorized);
  return Committed{};
}

Result<Committed, QueueError> MemoryQueue::set_available(const std::string& agent_id,
                                                         bool available) {
  const std::unique_lock guard(state_mutex_);
  state_.set_available(agent_id, available);
  return Committed{};
}

void MemoryQueue::set_hook(TransactionHook hook) {
  auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
  const std::scoped_lock guard(hook_mutex_);
  hooked_.store(installed != nullptr, std::memory_order_release);
  hook_ = std::move(installed);
}

Result<bool, QueueError> MemoryQueue::settle(std::uint64_t id, TurnState state) {
  const std::scoped_lock guard(table_mutex_);
  return table_.settle(id, state);
}

Result<bool, QueueError> MemoryQueue::remove(std::uint64_t id) {
  const std::scoped_lock guard(table_mutex_);
  return table_.remove(id);
}

Result<std::size_t, QueueError> MemoryQueue::prune() {
  const std::scoped_lock guard(table_mutex_);
  return table_.prune();
}

Result<Committed, QueueError> MemoryQueue::clear() {
  const std::scoped_lock guard(state_mutex_, table_mutex_);
  state_ = ReplyState{};
  table_ = TurnTable{};
  return Committed{};
}

Result<std::vector<IdempotencyRecord>, QueueError> MemoryQueue::records() const {
  const std::scoped_lock guard(table_mutex_);
  return table_.records();
}

Result<std::vector<ChildTurn>, QueueError> MemoryQueue::children() const {
  const std::scoped_lock guard(table_mutex_);
  return table_.children();
}

std::optional<ChildTurn> MemoryQueue::child_for(const TurnKey& key) const {
  const std::scoped_lock guard(table_mutex_);
  return table_.child_for(key.encoded());
}

}  // namespace thm::memory
