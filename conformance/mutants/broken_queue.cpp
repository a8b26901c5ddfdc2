#include "broken_queue.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "thm/store/store.hpp"

namespace thm::conformance::mutants {
namespace {

constexpr std::array kAllFlaws{Flaw::CheckThenInsert,
                               Flaw::TryLockAlready,
                               Flaw::AutocommitRecord,
                               Flaw::ChildBeforeRecord,
                               Flaw::UpsertReportsEnqueued,
                               Flaw::AliasUnawareKey,
                               Flaw::TruncatedKey,
                               Flaw::RevalidationOutsideTransaction,
                               Flaw::RefusalCached,
                               Flaw::LiveStateDedup,
                               Flaw::NoMutex,
                               Flaw::ClientClockExpiry,
                               Flaw::ClientClockPredicate,
                               Flaw::HiddenAttempts,
                               Flaw::ExpiredTokenAccepted,
                               Flaw::ChildIdToken,
                               Flaw::IgnoresHopBudget,
                               Flaw::AlreadyBeforePolicy,
                               Flaw::TargetOnlyAuthorization,
                               Flaw::DeskCutShort,
                               Flaw::EnqueuedWithoutChild,
                               Flaw::InspectorWaitsForSteps,
                               Flaw::ThrowingPolicyWrites,
                               Flaw::SilentlyIgnoredHooks,
                               Flaw::ForgetfulRestart};

// The limits every mutant declares: `thm::memory::Limits`' defaults, so a check sends the
// same sizes it sends the reference.
constexpr std::size_t kMaxContentBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxIdBytes = 1024;
// M11: how much of the encoded key survives, and the row size its "index" accepts.
constexpr std::size_t kTruncatedKeyBytes = 24;
constexpr std::size_t kRawRowLimitBytes = std::size_t{64} << 10;
// M1 and M15 decide in two statements. On a real store a round trip separates them; this
// pause stands in for it, so the race is as wide here as there (a few hundred µs).
constexpr std::chrono::microseconds kRoundTrip{200};

QueueError error(QueueErrorKind kind, std::string message) {
  return QueueError{kind, std::move(message)};
}

// A mutant keeps the reference stores' rows, states and their names (`thm/store/store.hpp`):
// it breaks rules, not vocabulary.
// Claims a child may receive: `thm::memory::Limits`' default.
constexpr std::uint32_t kMaxAttempts = 3;

// `MemoryQueue`'s tables and step, with the flaw switched in where it deviates. Every table
// is behind a mutex, so no mutant races on a container: the flaws are in what is held
// across the step, not in unsynchronised access.
//
// M15 proper (a queue with no mutex at all) is undefined behaviour outside ThreadSanitizer;
// it belongs to the TSan preset (issue 7). `Flaw::NoMutex` is its well-defined shadow.
class BrokenStore {
 public:
  explicit BrokenStore(Flaw flaw) : flaw_(flaw) {}

  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request);

  // Leases, as `MemoryQueue` keeps them, except where M7, M8 or M9 deviate.
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) {
    if (duration <= std::chrono::milliseconds::zero())
      return unexpected{LeaseError::InvalidDuration};
    const std::scoped_lock guard(table_mutex_);
    const StoreTime now = store_now();
    const StoreTime client = client_now();
    for (auto& [id, child] : children_) {
      if (child.state != TurnState::Pending) continue;
      const StoreTime judged_at = flaw_ == Flaw::ClientClockPredicate ? client : now;  // M8
      if (child.lease_expires_at && *child.lease_expires_at > judged_at) continue;
      std::uint32_t& attempts =
          flaw_ == Flaw::HiddenAttempts ? hidden_attempts_[id] : child.attempts;  // M9
      if (attempts >= kMaxAttempts) {
        child.state = TurnState::Dead;
        continue;
      }
      ++attempts;
      child.lease_token = std::to_string(id);  // M17 stops here: the same token every claim
      if (flaw_ != Flaw::ChildIdToken) child.lease_token += "." + std::to_string(attempts);
      child.lease_expires_at = (flaw_ == Flaw::ClientClockExpiry ? client : now) + duration;  // M7
      return std::optional<Lease>(Lease{.child_id = id,
                                        .token = child.lease_token,
                                        .expires_at = *child.lease_expires_at,
                                        .attempt = attempts,
                                        .request = child.request});
    }
    return std::optional<Lease>();
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) {
    if (duration <= std::chrono::milliseconds::zero())
      return unexpected{LeaseError::InvalidDuration};
    const std::scoped_lock guard(table_mutex_);
    ChildTurn* child = leased(token);
    if (child == nullptr) return unexpected{LeaseError::StaleToken};
    child->lease_expires_at =
        (flaw_ == Flaw::ClientClockExpiry ? client_now() : store_now()) + duration;
    return *child->lease_expires_at;
  }
  Result<std::string, LeaseError> finish(const std::string& token, bool completed) {
    const std::scoped_lock guard(table_mutex_);
    ChildTurn* child = leased(token);
    if (child == nullptr) return unexpected{LeaseError::StaleToken};
    child->lease_expires_at.reset();
    if (completed) child->state = TurnState::Completed;
    return std::string(thm::name(child->state));
  }
  StoreTime store_now() const { return StoreTime(std::chrono::milliseconds(store_millis_.load())); }
  void advance_store_clock(std::chrono::milliseconds by) { store_millis_ += by.count(); }
  void set_client_clock(Harness::ClientClock clock) {
    const std::scoped_lock guard(client_clock_mutex_);
    client_clock_ = std::move(clock);
  }

  void commit_reply(const CommittedReply& reply) {
    std::string key = reply_key(reply.conversation, reply.sequence);
    const std::unique_lock guard(state_mutex_);
    replies_.insert_or_assign(std::move(key), reply);
  }
  void set_policy(MentionDispatchPolicy policy) {
    if (flaw_ == Flaw::ThrowingPolicyWrites) throw std::runtime_error("policy store is down");
    const std::unique_lock guard(state_mutex_);
    policy_ = policy;
  }
  void set_authorized(const std::string& source_id, const std::string& target_id, bool authorized) {
    const std::unique_lock guard(state_mutex_);
    if (authorized) {
      forbidden_.erase({source_id, target_id});
    } else {
      forbidden_.emplace(source_id, target_id);
    }
  }
  void set_available(const std::string& agent_id, bool available) {
    const std::unique_lock guard(state_mutex_);
    if (available) {
      available_.insert(agent_id);
    } else {
      available_.erase(agent_id);
    }
  }
  void set_hook(TransactionHook hook) {
    auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
    const std::scoped_lock guard(hook_mutex_);
    hook_ = std::move(installed);
  }

  // False when no child `id` exists.
  bool settle(std::uint64_t id, Settlement how);
  void prune();

  std::vector<RecordRow> records() const {
    const auto steps = wait_for_steps();
    const std::scoped_lock guard(table_mutex_);
    std::vector<RecordRow> out;
    for (const auto& [key, child_id] : records_) out.push_back({key, child_id});
    return out;
  }
  std::vector<ChildRow> children() const {
    const auto steps = wait_for_steps();
    const std::scoped_lock guard(table_mutex_);
    std::vector<ChildRow> out;
    for (const auto& [id, child] : children_) {
      out.push_back({.id = id,
                     .key = child.key,
                     .request = child.request,
                     .state = std::string(thm::name(child.state)),
                     .attempts = child.attempts,
                     .lease_expires_at = child.lease_expires_at});
    }
    return out;
  }

 private:
  // The key replies are stored under. Only M10 breaks it (its replies live under its own
  // key); M11 truncates the idempotency key alone.
  std::string reply_key(const DispatchConversation& conversation, Sequence sequence) const {
    if (flaw_ == Flaw::AliasUnawareKey) {
      return conversation.desk_id + "|" + std::to_string(conversation.thread_root.value_or(0)) +
             "|" + std::to_string(sequence);
    }
    return turn_key(conversation, {sequence}).encoded();
  }
  // The key of the idempotency record, the child row and the key lock.
  std::string idempotency_key(const MentionTurnRequest& request) const {
    if (flaw_ == Flaw::DeskCutShort) {
      DispatchConversation cut = request.conversation;
      cut.desk_id.resize(std::min<std::size_t>(cut.desk_id.size(), 64));
      return turn_key(cut, request.key).encoded();
    }
    std::string key = reply_key(request.conversation, request.key.trigger_sequence);
    if (flaw_ == Flaw::TruncatedKey) key.resize(std::min(key.size(), kTruncatedKeyBytes));
    return key;
  }
  bool holds_key_lock() const { return flaw_ != Flaw::CheckThenInsert && flaw_ != Flaw::NoMutex; }
  // Whether an existing record for the key makes the call a duplicate (M14: only while its
  // child is pending). Needs `table_mutex_`.
  bool is_duplicate_of(std::uint64_t child_id) const {
    if (flaw_ != Flaw::LiveStateDedup) return true;
    const auto child = children_.find(child_id);
    return child != children_.end() && child->second.state == TurnState::Pending;
  }
  std::mutex& key_mutex(const std::string& key) {
    const std::scoped_lock guard(key_locks_mutex_);
    auto& slot = key_locks_[key];
    if (!slot) slot = std::make_unique<std::mutex>();
    return *slot;  // never erased: a store lives for one check run
  }

  // R6: the inspector waits until no step is open.
  std::unique_lock<std::shared_mutex> wait_for_steps() const {
    if (flaw_ != Flaw::InspectorWaitsForSteps) return {};
    return std::unique_lock(steps_mutex_);
  }

  // The host process's clock (M7, M8 read it); the store's when none was set.
  StoreTime client_now() const {
    Harness::ClientClock clock;
    {
      const std::scoped_lock guard(client_clock_mutex_);
      clock = client_clock_;
    }
    return clock ? clock() : store_now();
  }
  // The child holding the live lease `token`, or null. Needs `table_mutex_`.
  ChildTurn* leased(const std::string& token) {
    for (auto& [id, child] : children_) {
      const bool live = flaw_ == Flaw::ExpiredTokenAccepted ||  // M16 ignores the expiry
                        (child.lease_expires_at && *child.lease_expires_at > store_now());
      if (child.state == TurnState::Pending && child.lease_token == token && live) {
        return &child;
      }
    }
    return nullptr;
  }

  std::optional<QueueError> check_limits(const MentionTurnRequest& request) const;
  // Needs `state_mutex_` (shared).
  std::optional<QueueError> verify_trigger(const MentionTurnRequest& request,
                                           const std::string& key) const;
  // Needs `state_mutex_` (shared).
  std::optional<EnqueueRefusal> revalidate_policy(const MentionTurnRequest& request) const;
  bool pass(HookPoint point, const MentionTurnRequest& request) const;

  const Flaw flaw_;

  std::mutex key_locks_mutex_;
  std::map<std::string, std::unique_ptr<std::mutex>> key_locks_;

  mutable std::shared_mutex state_mutex_;
  std::map<std::string, CommittedReply> replies_;
  MentionDispatchPolicy policy_{};
  std::set<std::pair<std::string, std::string>> forbidden_;
  std::set<std::string> available_;

  mutable std::mutex table_mutex_;
  std::map<std::string, std::uint64_t> records_;
  std::map<std::uint64_t, ChildTurn> children_;
  std::uint64_t next_child_id_ = 1;

  mutable std::mutex hook_mutex_;
  std::shared_ptr<const TransactionHook> hook_;

  mutable std::shared_mutex steps_mutex_;  // R6 only: held (shared) by every open step

  std::atomic<std::int64_t> store_millis_{1'893'456'000'000};  // a fake store clock
  mutable std::mutex client_clock_mutex_;
  Harness::ClientClock client_clock_;
  std::map<std::uint64_t, std::uint32_t> hidden_attempts_;  // M9 only
};

Result<EnqueueOutcome, QueueError> BrokenStore::enqueue_once(const MentionTurnRequest& request) {
  if (auto invalid = check_limits(request)) return unexpected{*std::move(invalid)};
  const std::string key = idempotency_key(request);
  const std::string stored_at = reply_key(request.conversation, request.key.trigger_sequence);
  const auto rolled_back = [](HookPoint point) {
    return unexpected{error(QueueErrorKind::Unavailable,
                            "the step was rolled back at " + std::string(name(point)))};
  };

  // M12: the reads happen before the step begins, into a snapshot nobody holds, and the
  // reply is only looked up, never compared with the request.
  if (flaw_ == Flaw::RevalidationOutsideTransaction) {
    const std::shared_lock snapshot(state_mutex_);
    if (!replies_.contains(stored_at)) {
      return unexpected{
          error(QueueErrorKind::TriggerMissing, "no committed reply under key " + stored_at)};
    }
    if (auto refusal = revalidate_policy(request)) return Refused{*refusal};
  }

  // Begin.
  std::shared_lock<std::shared_mutex> open_step;
  if (flaw_ == Flaw::InspectorWaitsForSteps) open_step = std::shared_lock(steps_mutex_);
  std::unique_lock<std::mutex> key_guard;
  if (holds_key_lock()) {
    if (flaw_ == Flaw::InspectorWaitsForSteps) {
      key_guard = std::unique_lock(key_mutex(key), std::try_to_lock);
      if (!key_guard.owns_lock()) {
        return unexpected{error(QueueErrorKind::Unavailable, "the key is busy")};  // R6
      }
    } else if (flaw_ == Flaw::TryLockAlready) {
      key_guard = std::unique_lock(key_mutex(key), std::try_to_lock);
      if (!key_guard.owns_lock()) return Already{};  // M3: the holder may still roll back
    } else {
      key_guard = std::unique_lock(key_mutex(key));
    }
  }
  if (!pass(HookPoint::AfterBegin, request)) return rolled_back(HookPoint::AfterBegin);

  std::shared_lock<std::shared_mutex> state_guard;  // held to the commit, except M12 and M15
  if (flaw_ != Flaw::RevalidationOutsideTransaction) {
    std::shared_lock reads(state_mutex_);
    if (auto mismatch = verify_trigger(request, stored_at)) {
      return unexpected{*std::move(mismatch)};
    }
    if (flaw_ == Flaw::AlreadyBeforePolicy) {
      const std::scoped_lock table_guard(table_mutex_);
      if (records_.contains(key)) return Already{};  // R2: before the policy
    }
    if (auto refusal = revalidate_policy(request)) {
      if (flaw_ == Flaw::RefusalCached) {
        const std::scoped_lock table_guard(table_mutex_);
        records_.try_emplace(key, 0);  // M13: a record with no child
      }
      return Refused{*refusal};
    }
    if (flaw_ != Flaw::NoMutex) state_guard = std::move(reads);
  }
  if (!pass(HookPoint::AfterValidateReads, request)) {
    return rolled_back(HookPoint::AfterValidateReads);
  }

  // The idempotency statement.
  std::uint64_t child_id = 0;
  {
    const std::scoped_lock table_guard(table_mutex_);
    if (flaw_ == Flaw::TruncatedKey && request.content.size() > kRawRowLimitBytes) {
      return unexpected{error(QueueErrorKind::Internal,
                              "index row size " + std::to_string(request.content.size() + 64) +
                                  " exceeds maximum " + std::to_string(kRawRowLimitBytes) +
                                  " for index \"turn_keys_pkey\"")};
    }
    const auto found = records_.find(key);
    if (found != records_.end() && is_duplicate_of(found->second)) {
      if (flaw_ == Flaw::UpsertReportsEnqueued) return Enqueued{};  // M6
      return Already{};
    }
    child_id = next_child_id_++;
    if (flaw_ == Flaw::AutocommitRecord) records_.insert_or_assign(key, child_id);  // M4
  }
  if (flaw_ == Flaw::CheckThenInsert || flaw_ == Flaw::NoMutex) {
    std::this_thread::sleep_for(kRoundTrip);
  }
  if (!pass(HookPoint::AfterIdempotencyStatement, request)) {
    return rolled_back(HookPoint::AfterIdempotencyStatement);
  }

  ChildTurn child{.id = child_id, .key = key, .request = request, .state = TurnState::Pending};
  if (flaw_ == Flaw::ChildBeforeRecord) {
    const std::scoped_lock table_guard(table_mutex_);
    children_.emplace(child_id, child);  // M5: committed on its own
  }
  if (!pass(HookPoint::AfterChildInsert, request)) {
    return rolled_back(HookPoint::AfterChildInsert);
  }
  if (!pass(HookPoint::BeforeCommit, request)) return rolled_back(HookPoint::BeforeCommit);

  // Commit.
  {
    const std::scoped_lock table_guard(table_mutex_);
    if (flaw_ != Flaw::AutocommitRecord) records_.insert_or_assign(key, child_id);
    if (flaw_ != Flaw::ChildBeforeRecord && flaw_ != Flaw::EnqueuedWithoutChild) {
      children_.emplace(child_id, std::move(child));  // R5 loses it
    }
  }
  if (!pass(HookPoint::AfterCommitBeforeReturn, request)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

std::optional<QueueError> BrokenStore::check_limits(const MentionTurnRequest& request) const {
  if (request.content.size() > kMaxContentBytes) {
    return error(QueueErrorKind::InvalidRequest, "content is longer than the store's limit of " +
                                                     std::to_string(kMaxContentBytes) + " bytes");
  }
  const auto too_long = [](const std::string& id) { return id.size() > kMaxIdBytes; };
  if (too_long(request.source_id) || too_long(request.target_id) ||
      too_long(request.conversation.desk_id)) {
    return error(QueueErrorKind::InvalidRequest, "an id is longer than the store's limit of " +
                                                     std::to_string(kMaxIdBytes) + " bytes");
  }
  return std::nullopt;
}

std::optional<QueueError> BrokenStore::verify_trigger(const MentionTurnRequest& request,
                                                      const std::string& key) const {
  const auto stored = replies_.find(key);
  if (stored == replies_.end()) {
    return error(QueueErrorKind::TriggerMissing, "no committed reply under key " + key);
  }
  const CommittedReply& reply = stored->second;
  const auto mismatch = [&key](const char* what) {
    return error(QueueErrorKind::TriggerMismatch,
                 std::string("the request's ") + what +
                     " differs from the committed reply under key " + key);
  };
  if (reply.author_id != request.source_id) return mismatch("source");
  if (reply.content != request.content) return mismatch("content");
  if (reply.hop == std::numeric_limits<std::uint32_t>::max() ||
      request.child_hop != reply.hop + 1) {
    return mismatch("child hop");
  }
  return std::nullopt;
}

std::optional<EnqueueRefusal> BrokenStore::revalidate_policy(
    const MentionTurnRequest& request) const {
  const bool over_budget =
      flaw_ != Flaw::IgnoresHopBudget && request.child_hop > policy_.max_hops;  // R1
  if (!policy_.enabled || over_budget) return EnqueueRefusal::FeatureDisabled;
  if (flaw_ == Flaw::TargetOnlyAuthorization) {  // R3
    for (const auto& [source, target] : forbidden_) {
      if (target == request.target_id) return EnqueueRefusal::Unauthorized;
    }
  }
  if (forbidden_.contains({request.source_id, request.target_id})) {
    return EnqueueRefusal::Unauthorized;
  }
  if (!available_.contains(request.target_id)) return EnqueueRefusal::TargetUnavailable;
  return std::nullopt;
}

bool BrokenStore::pass(HookPoint point, const MentionTurnRequest& request) const {
  std::shared_ptr<const TransactionHook> hook;
  {
    const std::scoped_lock guard(hook_mutex_);
    hook = hook_;
  }
  if (!hook) return true;
  try {
    return (*hook)(point, request);
  } catch (...) {
    return false;  // a throwing hook fails the step, as `false` does
  }
}

bool BrokenStore::settle(std::uint64_t id, Settlement how) {
  const std::scoped_lock guard(table_mutex_);
  const auto child = children_.find(id);
  if (child == children_.end()) return false;
  switch (how) {
    case Settlement::Complete:
      child->second.state = TurnState::Completed;
      return true;
    case Settlement::Fail:
      child->second.state = TurnState::Failed;
      return true;
    case Settlement::DeadLetter:
      child->second.state = TurnState::Dead;
      return true;
    case Settlement::Delete:
      if (flaw_ == Flaw::LiveStateDedup) records_.erase(child->second.key);  // M14
      children_.erase(child);
      return true;
  }
  detail::unreachable();
}

void BrokenStore::prune() {
  const std::scoped_lock guard(table_mutex_);
  for (auto child = children_.begin(); child != children_.end();) {
    if (child->second.state == TurnState::Pending) {
      ++child;
      continue;
    }
    if (flaw_ == Flaw::LiveStateDedup) records_.erase(child->second.key);  // M14
    child = children_.erase(child);
  }
}

// A session is a handle on the shared store, as with `MemoryHarness`.
class BrokenSession final : public Session {
 public:
  explicit BrokenSession(std::shared_ptr<BrokenStore> store) : store_(std::move(store)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    return store_->enqueue_once(request);
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return store_->claim(duration);
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return store_->renew(token, duration);
  }
  Result<std::string, LeaseError> complete(const std::string& token) override {
    return store_->finish(token, true);
  }
  Result<std::string, LeaseError> fail(const std::string& token) override {
    return store_->finish(token, false);
  }

 private:
  std::shared_ptr<BrokenStore> store_;
};

class BrokenHarness final : public Harness {
 public:
  explicit BrokenHarness(Flaw flaw) : flaw_(flaw), store_(std::make_shared<BrokenStore>(flaw)) {}

  [[nodiscard]] std::string name() const override {
    return "mutant " + std::string(mutants::name(flaw_));
  }
  [[nodiscard]] Capabilities capabilities() const override {
    return {.hooks = flaw_ != Flaw::SilentlyIgnoredHooks,
            .row_locking = true,
            .persistent = flaw_ == Flaw::ForgetfulRestart,
            .sql_schema = false,
            .max_content_bytes = kMaxContentBytes,
            .max_id_bytes = kMaxIdBytes,
            .leases = true,
            .injected_store_clock = true,
            .skewable_client_clock = true,  // M7 and M8 read the clock set_client_clock moves
            .max_attempts = kMaxAttempts};
  }
  [[nodiscard]] StoreTime store_now() override { return store_->store_now(); }
  void advance_store_clock(std::chrono::milliseconds by) override {
    store_->advance_store_clock(by);
  }
  void set_client_clock(ClientClock clock) override {
    client_clock_ = clock;
    store_->set_client_clock(std::move(clock));
  }
  void reset() override {
    store_ = std::make_shared<BrokenStore>(flaw_);
    store_->set_client_clock(client_clock_);
  }
  [[nodiscard]] std::unique_ptr<Session> open_session() override {
    return std::make_unique<BrokenSession>(store_);
  }
  void commit_reply(const CommittedReply& reply) override { store_->commit_reply(reply); }
  void set_policy(MentionDispatchPolicy policy) override { store_->set_policy(policy); }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    store_->set_authorized(source_id, target_id, authorized);
  }
  void set_available(const std::string& agent_id, bool available) override {
    store_->set_available(agent_id, available);
  }
  void set_hook(TransactionHook hook) override {
    if (flaw_ == Flaw::SilentlyIgnoredHooks) return;  // R8
    store_->set_hook(std::move(hook));
  }
  // R9: "reopening" starts an empty store, as a store kept only in memory would.
  void reopen() override {
    if (flaw_ != Flaw::ForgetfulRestart) throw Unsupported("reopen");
    reset();
  }
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) override {
    if (flaw_ != Flaw::ForgetfulRestart) throw Unsupported("enqueue_then_kill");
    std::optional<Result<EnqueueOutcome, QueueError>> answer;
    if (when == KillPoint::AfterAnswer) {
      answer = store_->enqueue_once(request);
    } else {  // the kill aborts the transaction before its commit
      store_->set_hook(
          [](HookPoint at, const MentionTurnRequest&) { return at != HookPoint::BeforeCommit; });
      (void)store_->enqueue_once(request);
    }
    reopen();
    return answer;
  }
  void settle(std::uint64_t child_id, Settlement how) override {
    if (!store_->settle(child_id, how)) {
      throw std::invalid_argument("no child turn with id " + std::to_string(child_id));
    }
  }
  void run_maintenance() override { store_->prune(); }
  [[nodiscard]] std::vector<RecordRow> records() override { return store_->records(); }
  [[nodiscard]] std::vector<ChildRow> children() override { return store_->children(); }

 private:
  Flaw flaw_;
  std::shared_ptr<BrokenStore> store_;
  ClientClock client_clock_;
};

}  // namespace

std::span<const Flaw> all_flaws() noexcept { return kAllFlaws; }

std::string_view name(Flaw flaw) noexcept {
  switch (flaw) {
    case Flaw::CheckThenInsert:
      return "M1 check-then-insert, no key lock";
    case Flaw::TryLockAlready:
      return "M3 try-lock => Already";
    case Flaw::AutocommitRecord:
      return "M4 idempotency record in autocommit";
    case Flaw::ChildBeforeRecord:
      return "M5 child inserted before the record, in separate transactions";
    case Flaw::UpsertReportsEnqueued:
      return "M6 upsert reports Enqueued for an existing row";
    case Flaw::AliasUnawareKey:
      return "M10 alias-unaware key, no channel-kind tag, delimiter concatenation";
    case Flaw::TruncatedKey:
      return "M11 key truncated to 24 bytes, raw store error on large content";
    case Flaw::RevalidationOutsideTransaction:
      return "M12 revalidation outside the transaction, request payload trusted";
    case Flaw::RefusalCached:
      return "M13 Refused cached as an idempotency record";
    case Flaw::LiveStateDedup:
      return "M14 dedup on live states only, pruning deletes records";
    case Flaw::NoMutex:
      return "M15 no key lock and no state lock";
    case Flaw::ClientClockExpiry:
      return "M7 lease expires = client now + duration";
    case Flaw::ClientClockPredicate:
      return "M8 lease expired when at or before the client's now";
    case Flaw::HiddenAttempts:
      return "M9 attempts kept in memory, not on the row";
    case Flaw::ExpiredTokenAccepted:
      return "M16 renew, complete and fail accept a token whose lease expired";
    case Flaw::ChildIdToken:
      return "M17 the lease token is the child id";
    case Flaw::IgnoresHopBudget:
      return "R1 live max_hops not revalidated";
    case Flaw::AlreadyBeforePolicy:
      return "R2 Already decided before policy";
    case Flaw::TargetOnlyAuthorization:
      return "R3 authorization by target alone";
    case Flaw::DeskCutShort:
      return "R4 desk id cut to 64 bytes in the key";
    case Flaw::EnqueuedWithoutChild:
      return "R5 Enqueued without a child";
    case Flaw::InspectorWaitsForSteps:
      return "R6 busy key answers Unavailable, inspector waits for open steps";
    case Flaw::ThrowingPolicyWrites:
      return "R7 policy writes throw";
    case Flaw::SilentlyIgnoredHooks:
      return "R8 hooks not declared, yet silently ignored";
    case Flaw::ForgetfulRestart:
      return "R9 declares persistent, loses everything on restart";
  }
  detail::unreachable();
}

std::unique_ptr<Harness> broken_harness(Flaw flaw) { return std::make_unique<BrokenHarness>(flaw); }

}  // namespace thm::conformance::mutants
