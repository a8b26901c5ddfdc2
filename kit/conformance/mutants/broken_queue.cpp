// The in-memory mutants: one store with a `Flaw` switch, a `thm::ReferenceStore` as
// `MemoryQueue` is, driven by the generic harness (`StoreHarness`) over a setup shaped as
// `memory::MemorySetup`. So a check that rejects a mutant rejects its store, never a harness
// written for it. Only R8 and R9, flaws of a harness's declarations, add a thin harness of
// their own on top (`MisdeclaredHarness`).
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
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "thm/conformance/store_harness.hpp"
#include "thm/store/reference_store.hpp"

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
                               Flaw::StatelyIndex,
                               Flaw::RenewFromClientClock,
                               Flaw::ClientClockLiveness,
                               Flaw::UnavailableAfterCommit,
                               Flaw::DoubleSequence,
                               Flaw::ContentPrefixCompared,
                               Flaw::StaleClaimSnapshot,
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
// Where the fake store clock starts: 2030-01-01T00:00:00Z, as `memory::MemorySetup`'s.
constexpr std::int64_t kStoreEpochMillis = 1'893'456'000'000;
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
// it belongs to the TSan preset. `Flaw::NoMutex` is its well-defined shadow.
//
// It has a `ReferenceStore`'s operations, each answering a `Result` and none throwing, so
// `StoreHarness` drives it as it drives `MemoryQueue`. It owns a fake store clock (moved by
// `advance_store_clock`) and reads the client clock it is given (M7, M8).
class BrokenStore final : public MentionTurnQueue {
 public:
  explicit BrokenStore(Flaw flaw) : flaw_(flaw) {}

  Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override;

  // Leases, as `MemoryQueue` keeps them, except where M7, M8 or M9 deviate.
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) {
    if (duration <= std::chrono::milliseconds::zero())
      return unexpected{LeaseError::InvalidDuration};
    const std::scoped_lock guard(table_mutex_);
    const StoreTime now = store_now();
    const StoreTime client = client_now();
    const std::uint64_t visible = snapshot();  // M27: children after it are not seen
    for (auto& [id, child] : children_) {
      if (id > visible) break;
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
      wrote();
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
    wrote();
    ChildTurn* child = leased(token);
    if (child == nullptr) return unexpected{LeaseError::StaleToken};
    const bool from_client =
        flaw_ == Flaw::ClientClockExpiry || flaw_ == Flaw::RenewFromClientClock;  // M7, M22
    child->lease_expires_at = (from_client ? client_now() : store_now()) + duration;
    return *child->lease_expires_at;
  }
  Result<TurnState, LeaseError> complete(const std::string& token) { return finish(token, true); }
  Result<TurnState, LeaseError> fail(const std::string& token) { return finish(token, false); }
  Result<StoreTime, QueueError> now() const { return store_now(); }
  void advance_store_clock(std::chrono::milliseconds by) { store_millis_ += by.count(); }
  void set_client_clock(Clocks::ClientClock clock) {
    const std::scoped_lock guard(client_clock_mutex_);
    client_clock_ = std::move(clock);
  }

  Result<Committed, QueueError> commit_reply(const CommittedReply& reply) {
    std::string key = reply_key(reply.conversation, reply.sequence);
    const std::unique_lock guard(state_mutex_);
    replies_.insert_or_assign(std::move(key), reply);
    return Committed{};
  }
  // R7: the write fails, as a store that is down answers (the harness then throws, as a
  // client library does).
  Result<Committed, QueueError> set_policy(MentionDispatchPolicy policy) {
    if (flaw_ == Flaw::ThrowingPolicyWrites) {
      return unexpected{error(QueueErrorKind::Unavailable, "policy store is down")};
    }
    const std::unique_lock guard(state_mutex_);
    policy_ = policy;
    return Committed{};
  }
  Result<Committed, QueueError> set_authorized(const std::string& source_id,
                                               const std::string& target_id, bool authorized) {
    const std::unique_lock guard(state_mutex_);
    if (authorized) {
      forbidden_.erase({source_id, target_id});
    } else {
      forbidden_.emplace(source_id, target_id);
    }
    return Committed{};
  }
  Result<Committed, QueueError> set_available(const std::string& agent_id, bool available) {
    const std::unique_lock guard(state_mutex_);
    if (available) {
      available_.insert(agent_id);
    } else {
      available_.erase(agent_id);
    }
    return Committed{};
  }
  void set_hook(TransactionHook hook) {
    auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
    const std::scoped_lock guard(hook_mutex_);
    hook_ = std::move(installed);
  }

  // Lifecycle, as `MemoryQueue` has it except where M14 deviates. `settle` and `remove`
  // answer false when no child `id` exists.
  Result<bool, QueueError> settle(std::uint64_t id, TurnState state);
  Result<bool, QueueError> remove(std::uint64_t id);
  Result<std::size_t, QueueError> prune();
  // Forgets everything a new store would not have: replies, policy, authorization,
  // availability, records, children (ids from 1), M9's attempts, and the fake store clock,
  // back at its epoch. The hook is removed by the harness first; the client clock stays.
  Result<Committed, QueueError> clear();

  Result<std::vector<IdempotencyRecord>, QueueError> records() const {
    const auto steps = wait_for_steps();
    const std::scoped_lock guard(table_mutex_);
    std::vector<IdempotencyRecord> out;
    for (const auto& [key, child_id] : records_) out.push_back({key, child_id});
    return out;
  }
  Result<std::vector<ChildTurn>, QueueError> children() const {
    const auto steps = wait_for_steps();
    const std::scoped_lock guard(table_mutex_);
    std::vector<ChildTurn> out;
    for (const auto& [id, child] : children_) out.push_back(child);
    return out;
  }

 private:
  // `value` as a double holds it: the nearest one, and u64's largest above the range.
  static std::uint64_t through_a_double(std::uint64_t value) {
    const auto rounded = static_cast<double>(value);
    if (rounded >= 18446744073709551616.0) return std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(rounded);
  }
  // The key replies are stored under. Only M10 and M25 break it (their replies live under
  // their own keys); M11 truncates the idempotency key alone.
  std::string reply_key(const DispatchConversation& conversation, Sequence sequence) const {
    if (flaw_ == Flaw::DoubleSequence) {  // M25
      DispatchConversation rounded = conversation;
      if (rounded.thread_root) rounded.thread_root = through_a_double(*rounded.thread_root);
      return turn_key(rounded, {through_a_double(sequence)}).encoded();
    }
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
  // child is pending; M21: unless its child is leased). Needs `table_mutex_`.
  bool is_duplicate_of(std::uint64_t child_id) const {
    const auto child = children_.find(child_id);
    if (flaw_ == Flaw::StatelyIndex) {  // M21: a leased child is in another phase
      return child == children_.end() || !child->second.lease_expires_at ||
             *child->second.lease_expires_at <= store_now();
    }
    if (flaw_ != Flaw::LiveStateDedup) return true;
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
    Clocks::ClientClock clock;
    {
      const std::scoped_lock guard(client_clock_mutex_);
      clock = client_clock_;
    }
    return clock ? clock() : store_now();
  }
  // The child holding the live lease `token`, or null. Needs `table_mutex_`.
  ChildTurn* leased(const std::string& token) {
    for (auto& [id, child] : children_) {
      const StoreTime now = flaw_ == Flaw::ClientClockLiveness ? client_now() : store_now();  // M23
      const bool live = flaw_ == Flaw::ExpiredTokenAccepted ||  // M16 ignores the expiry
                        (child.lease_expires_at && *child.lease_expires_at > now);
      if (child.state == TurnState::Pending && child.lease_token == token && live) {
        return &child;
      }
    }
    return nullptr;
  }

  StoreTime store_now() const { return StoreTime(std::chrono::milliseconds(store_millis_.load())); }

  // M27: the highest child id this thread's connection sees: every child, unless a claim of
  // its found nothing since it last wrote, and then the ones there were at that claim. Needs
  // `table_mutex_`.
  std::uint64_t snapshot() const {
    const std::uint64_t latest = next_child_id_ - 1;
    if (flaw_ != Flaw::StaleClaimSnapshot) return latest;
    auto& open = t_snapshots[{instance_, epoch_}];
    if (!open) open = latest;  // a read transaction begins, and stays open
    return *open;
  }
  // This thread's connection committed: its next read sees everything.
  void wrote() const {
    if (flaw_ == Flaw::StaleClaimSnapshot) t_snapshots.erase({instance_, epoch_});
  }
  Result<TurnState, LeaseError> finish(const std::string& token, bool completed) {
    const std::scoped_lock guard(table_mutex_);
    wrote();
    ChildTurn* child = leased(token);
    if (child == nullptr) return unexpected{LeaseError::StaleToken};
    child->lease_expires_at.reset();
    if (completed) child->state = TurnState::Completed;
    return child->state;
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

  std::atomic<std::int64_t> store_millis_{kStoreEpochMillis};  // a fake store clock
  mutable std::mutex client_clock_mutex_;
  Clocks::ClientClock client_clock_;
  std::map<std::uint64_t, std::uint32_t> hidden_attempts_;  // M9 only
  // M27: which store and which of its lives (`clear` begins a new one) a snapshot is of.
  static inline std::atomic<std::uint64_t> instances_{0};
  const std::uint64_t instance_ = instances_.fetch_add(1);
  std::uint64_t epoch_ = 0;
  static thread_local std::map<std::pair<std::uint64_t, std::uint64_t>,
                               std::optional<std::uint64_t>>
      t_snapshots;
};

thread_local std::map<std::pair<std::uint64_t, std::uint64_t>, std::optional<std::uint64_t>>
    BrokenStore::t_snapshots;

static_assert(ReferenceStore<BrokenStore>);

Result<EnqueueOutcome, QueueError> BrokenStore::enqueue_once(
    const MentionTurnRequest& request) noexcept {
  if (auto invalid = check_limits(request)) return unexpected{*std::move(invalid)};
  const std::string key = idempotency_key(request);
  const std::string stored_at = reply_key(request.conversation, request.key.trigger_sequence);
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
  if (!pass(HookPoint::AfterBegin, request))
    return unexpected{rolled_back_at(HookPoint::AfterBegin)};

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
    return unexpected{rolled_back_at(HookPoint::AfterValidateReads)};
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
    return unexpected{rolled_back_at(HookPoint::AfterIdempotencyStatement)};
  }

  ChildTurn child{.id = child_id, .key = key, .request = request, .state = TurnState::Pending};
  if (flaw_ == Flaw::ChildBeforeRecord) {
    const std::scoped_lock table_guard(table_mutex_);
    children_.emplace(child_id, child);  // M5: committed on its own
  }
  if (!pass(HookPoint::AfterChildInsert, request)) {
    return unexpected{rolled_back_at(HookPoint::AfterChildInsert)};
  }
  if (!pass(HookPoint::BeforeCommit, request))
    return unexpected{rolled_back_at(HookPoint::BeforeCommit)};

  // Commit.
  {
    const std::scoped_lock table_guard(table_mutex_);
    wrote();
    if (flaw_ != Flaw::AutocommitRecord) records_.insert_or_assign(key, child_id);
    if (flaw_ != Flaw::ChildBeforeRecord && flaw_ != Flaw::EnqueuedWithoutChild) {
      children_.emplace(child_id, std::move(child));  // R5 loses it
    }
  }
  if (!pass(HookPoint::AfterCommitBeforeReturn, request)) {
    if (flaw_ == Flaw::UnavailableAfterCommit) {  // M24: every failure is "unavailable"
      return unexpected{error(QueueErrorKind::Unavailable, "the store could not be reached")};
    }
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
  if (flaw_ == Flaw::ContentPrefixCompared) {  // M26
    constexpr std::size_t kCompared = 1024;
    if (reply.content.substr(0, kCompared) != request.content.substr(0, kCompared)) {
      return mismatch("content");
    }
  } else if (reply.content != request.content) {
    return mismatch("content");
  }
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

Result<bool, QueueError> BrokenStore::settle(std::uint64_t id, TurnState state) {
  const std::scoped_lock guard(table_mutex_);
  const auto child = children_.find(id);
  if (child == children_.end()) return false;
  child->second.state = state;
  return true;
}

Result<bool, QueueError> BrokenStore::remove(std::uint64_t id) {
  const std::scoped_lock guard(table_mutex_);
  const auto child = children_.find(id);
  if (child == children_.end()) return false;
  if (flaw_ == Flaw::LiveStateDedup) records_.erase(child->second.key);  // M14
  children_.erase(child);
  return true;
}

Result<std::size_t, QueueError> BrokenStore::prune() {
  const std::scoped_lock guard(table_mutex_);
  std::size_t pruned = 0;
  for (auto child = children_.begin(); child != children_.end();) {
    if (child->second.state == TurnState::Pending) {
      ++child;
      continue;
    }
    if (flaw_ == Flaw::LiveStateDedup) records_.erase(child->second.key);  // M14
    child = children_.erase(child);
    ++pruned;
  }
  return pruned;
}

// Called with no step running (the suite closes its sessions before it resets). The key
// locks stay: they are all free then, and a new store's would be too.
Result<Committed, QueueError> BrokenStore::clear() {
  const std::scoped_lock guard(state_mutex_, table_mutex_);
  replies_.clear();
  policy_ = {};
  forbidden_.clear();
  available_.clear();
  records_.clear();
  children_.clear();
  next_child_id_ = 1;
  ++epoch_;
  hidden_attempts_.clear();
  store_millis_ = kStoreEpochMillis;
  return Committed{};
}

// What `StoreHarness` needs of the broken store, as `memory::MemorySetup` has it: one store
// every session shares, hooked through `set_hook`, its fake clock moved by
// `advance_store_clock`, and the client clock M7 and M8 read. It declares what
// `MemoryHarness` declares (with `MemoryQueue`'s default limits), which is what the store does.
class BrokenSetup {
 public:
  using Store = BrokenStore;
  explicit BrokenSetup(Flaw flaw) : flaw_(flaw), store_(std::make_shared<BrokenStore>(flaw)) {}

  [[nodiscard]] std::string queue_name() const {
    return "mutant " + std::string(mutants::name(flaw_));
  }
  [[nodiscard]] Capabilities capabilities() const {
    return {.hooks = true,
            .row_locking = true,  // not persistent, no SQL schema
            .max_content_bytes = kMaxContentBytes,
            .max_id_bytes = kMaxIdBytes,
            .leases = true,
            .injected_store_clock = true,
            .skewable_client_clock = true,  // M7 and M8 read the clock set_client_clock moves
            .max_attempts = kMaxAttempts};
  }
  // The one store; hooks reach it through `set_hook`, so `hook` is empty.
  [[nodiscard]] Result<std::shared_ptr<BrokenStore>, QueueError> open(
      const TransactionHook& hook) const {
    (void)hook;
    return store_;
  }
  void set_hook(TransactionHook hook) { store_->set_hook(std::move(hook)); }
  void advance_store_clock(std::chrono::milliseconds by) { store_->advance_store_clock(by); }
  void set_client_clock(Clocks::ClientClock clock) { store_->set_client_clock(std::move(clock)); }

 private:
  Flaw flaw_;
  std::shared_ptr<BrokenStore> store_;
};

using BrokenHarness = StoreHarness<BrokenSetup>;

// R8 and R9 are flaws of a harness's declarations, not of a store, and `StoreHarness` cannot
// make them: it refuses a hook it was not declared to take, and its `reopen` keeps the store.
// They stay expressible because EQ-24, EQ-05 and EQ-23 exist to catch hosts' harnesses that
// lie so (exec adapters, hand-written harnesses). This one lies as such a harness would, over
// the unbroken store: it forwards every member to `StoreHarness` and overrides only what the
// lie changes (R8: `capabilities` and `set_hook`; R9: `capabilities` and a durability facet
// of its own, whose `reopen` and `enqueue_then_kill` lose the store). A trimmed hand-written
// harness would need the same members with longer bodies (and a session of its own);
// forwarding keeps every other operation on the generic harness, so the store is still
// driven as every other mutant's is.
class MisdeclaredHarness final : public Harness, public Durability {
 public:
  explicit MisdeclaredHarness(Flaw flaw) : flaw_(flaw), inner_(flaw) {}

  [[nodiscard]] std::string queue_name() const override { return inner_.queue_name(); }
  [[nodiscard]] Capabilities capabilities() const override {
    Capabilities declared = inner_.capabilities();
    if (flaw_ == Flaw::SilentlyIgnoredHooks) declared.hooks = false;  // R8
    if (flaw_ == Flaw::ForgetfulRestart) declared.persistent = true;  // R9
    return declared;
  }
  void reset() override { inner_.reset(); }
  [[nodiscard]] std::unique_ptr<Session> open_session() override { return inner_.open_session(); }
  void commit_reply(const CommittedReply& reply) override { inner_.commit_reply(reply); }
  void set_policy(MentionDispatchPolicy policy) override { inner_.set_policy(policy); }
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override {
    inner_.set_authorized(source_id, target_id, authorized);
  }
  void set_available(const std::string& agent_id, bool available) override {
    inner_.set_available(agent_id, available);
  }
  void set_hook(TransactionHook hook) override {
    if (flaw_ == Flaw::SilentlyIgnoredHooks) return;  // R8: accepted, never called
    inner_.set_hook(std::move(hook));
  }
  void settle(std::uint64_t child_id, Settlement how) override { inner_.settle(child_id, how); }
  void run_maintenance() override { inner_.run_maintenance(); }
  [[nodiscard]] std::unique_ptr<Hold> hold_child(std::uint64_t child_id) override {
    return inner_.hold_child(child_id);
  }
  [[nodiscard]] std::vector<IdempotencyRecord> records() override { return inner_.records(); }
  [[nodiscard]] std::vector<ChildTurn> children() override { return inner_.children(); }
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override {
    return inner_.unique_key_index();
  }
  [[nodiscard]] Durability* durability() override {
    return flaw_ == Flaw::ForgetfulRestart ? this : inner_.durability();
  }
  [[nodiscard]] NodeFaults* nodes() override { return inner_.nodes(); }
  [[nodiscard]] Clocks* clocks() override { return inner_.clocks(); }

  // R9: "reopening" starts an empty store, as a store kept only in memory would.
  void reopen() override { inner_.reset(); }
  // R9: no process is killed; the enqueue runs here, then the "restart" empties the store.
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) override {
    std::optional<Result<EnqueueOutcome, QueueError>> answer;
    {
      const auto session = inner_.open_session();
      if (when == KillPoint::AfterAnswer) {
        answer = session->enqueue_once(request);
      } else {  // the kill aborts the transaction before its commit
        inner_.set_hook(
            [](HookPoint at, const MentionTurnRequest&) { return at != HookPoint::BeforeCommit; });
        (void)session->enqueue_once(request);
      }
    }
    reopen();
    return answer;
  }

 private:
  Flaw flaw_;
  BrokenHarness inner_;
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
    case Flaw::StatelyIndex:
      return "M21 one child per key and phase: a replay while leased adds a child";
    case Flaw::RenewFromClientClock:
      return "M22 renew stamps expiry = client now + duration";
    case Flaw::ClientClockLiveness:
      return "M23 renew, complete and fail judge liveness on the client's clock";
    case Flaw::UnavailableAfterCommit:
      return "M24 a failure after commit answers Unavailable";
    case Flaw::DoubleSequence:
      return "M25 sequences and thread roots kept as doubles";
    case Flaw::ContentPrefixCompared:
      return "M26 content compared on its first 1 KiB";
    case Flaw::StaleClaimSnapshot:
      return "M27 a claim that finds nothing leaves its read snapshot open";
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

std::unique_ptr<Harness> broken_harness(Flaw flaw) {
  if (flaw == Flaw::SilentlyIgnoredHooks || flaw == Flaw::ForgetfulRestart) {
    return std::make_unique<MisdeclaredHarness>(flaw);
  }
  return std::make_unique<BrokenHarness>(flaw);
}

}  // namespace thm::conformance::mutants
