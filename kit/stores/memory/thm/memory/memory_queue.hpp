#pragma once
/// \file
/// `thm::memory::MemoryQueue`: an in-process host store that keeps the whole host contract of
/// SPEC §4. It holds committed replies, the live dispatch policy, an authorization rule,
/// target availability, idempotency records and child turns; `enqueue_once` is one atomic
/// step over all of them. It is the reference the conformance suite is proven against, and
/// a usable queue for hosts that keep their turns in memory (tests, single-process tools).

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"
#include "thm/memory/tables.hpp"
#include "thm/store/store.hpp"

namespace thm::memory {

/// The row types every reference store shares (`thm/store/store.hpp`).
using thm::ChildTurn;
using thm::IdempotencyRecord;
using thm::TurnState;

/// The store's clock. The default reads the system clock; tests inject one they can move.
using StoreClock = std::function<StoreTime()>;

/// `std::chrono::system_clock::now()`, in milliseconds.
[[nodiscard]] StoreTime system_store_clock();

/// The largest request the store accepts; a larger one is `QueueErrorKind::InvalidRequest`
/// and writes nothing. Byte counts.
struct Limits {
  std::size_t max_content_bytes = std::size_t{1} << 20;
  /// Applies to `source_id`, `target_id` and the conversation's `desk_id` each.
  std::size_t max_id_bytes = 1024;
  /// Claims a child may receive; a child whose attempts are spent is `Dead`, not claimable.
  std::uint32_t max_attempts = 3;
};

/// The in-memory host queue. Thread-safe: every member may be called from any thread.
///
/// `enqueue_once` (SPEC §4), in order, all inside one step:
///  1. a request over `Limits` → `InvalidRequest`;
///  2. take the key's own lock (calls with the same `TurnKey` run one after another; calls
///     under other keys never wait for them, except on a brief table lock);
///  3. re-read the committed reply under the same key: none → `TriggerMissing`; an author,
///     content or hop (`child_hop != hop + 1`) that differs → `TriggerMismatch`; decided
///     before the idempotency lookup, so a mismatching duplicate never gets `Already`;
///  4. revalidate live policy: disabled, or `child_hop > max_hops` → `Refused{FeatureDisabled}`;
///     source not authorized for target → `Refused{Unauthorized}`; target not available →
///     `Refused{TargetUnavailable}`;
///  5. a record for the key → `Already`; else insert record and child together → `Enqueued`.
/// Refusals and errors write nothing. Replies, policy, authorization and availability stay
/// locked (shared) from step 3 to the insert, so a concurrent change waits for the step.
class MemoryQueue final : public MentionTurnQueue {
 public:
  /// An empty store: no replies, dispatch disabled, every pair authorized, no agent available.
  /// Lease expiries are computed and compared on `clock` (an empty one means the system's).
  explicit MemoryQueue(Limits limits = {}, StoreClock clock = system_store_clock);

  /// The one atomic enqueue step above. Never throws (allocation failure ends the process).
  [[nodiscard]] Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override;

  // ---- the host's own writes (a `ReferenceStore`'s; they never fail here) -------------------
  /// Stores `reply` under `turn_key(reply.conversation, {reply.sequence})`, replacing an
  /// earlier reply there (an edit). Waits for enqueue steps that have read the old one.
  Result<Committed, QueueError> commit_reply(const CommittedReply& reply);
  /// The live dispatch policy every enqueue revalidates.
  Result<Committed, QueueError> set_policy(MentionDispatchPolicy policy);
  /// Allows or forbids `source_id` to hand turns to `target_id`; all pairs start allowed.
  Result<Committed, QueueError> set_authorized(const std::string& source_id,
                                               const std::string& target_id, bool authorized);
  /// Marks `agent_id` available (or not) as a target; all agents start unavailable.
  Result<Committed, QueueError> set_available(const std::string& agent_id, bool available);
  /// Installs a test hook (see `TransactionHook`); an empty function removes it.
  void set_hook(TransactionHook hook);

  // ---- leases (queue-conformance.md §5.6, EQ-14…EQ-19) ------------------------------------
  /// Claims the oldest `Pending` child with no live lease, for `duration` of store time: the
  /// store increments its attempts and sets `expires_at = now + duration` on its own clock,
  /// in one step, so concurrent claimers never share a lease. A child found with its attempts
  /// spent becomes `Dead` and is skipped. Nothing when no child is claimable;
  /// `InvalidDuration` for a duration that is not positive.
  [[nodiscard]] Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration);
  /// Extends the live lease `token` to `now + duration` and returns the expiry as stored.
  /// `StaleToken` when `token` is not the child's current unexpired lease.
  [[nodiscard]] Result<StoreTime, LeaseError> renew(const std::string& token,
                                                    std::chrono::milliseconds duration);
  /// Marks the leased child `Completed` and returns that state. `StaleToken` as for `renew`.
  [[nodiscard]] Result<TurnState, LeaseError> complete(const std::string& token);
  /// Gives the leased child back and returns its new state: `Pending` and claimable at once
  /// while attempts remain, else `Failed`. `StaleToken` as for `renew`.
  [[nodiscard]] Result<TurnState, LeaseError> fail(const std::string& token);
  /// The store's current time.
  [[nodiscard]] Result<StoreTime, QueueError> now() const { return clock_(); }

  // ---- child turn lifecycle -------------------------------------------------------------------
  /// Moves child `id` to `state`; false when no such child exists. The record stays.
  Result<bool, QueueError> settle(std::uint64_t id, TurnState state);
  /// Deletes child `id` (archiving it elsewhere is the host's business); its record stays,
  /// so the key keeps answering `Already`. False when no such child exists.
  Result<bool, QueueError> remove(std::uint64_t id);
  /// Maintenance: deletes every child that is no longer `Pending`. Records are kept for the
  /// store's lifetime (the contract's retention period, for a store that lives in memory).
  /// Returns how many children it deleted.
  Result<std::size_t, QueueError> prune();
  /// Empties the store as it was made: no replies, records or children (ids start at 1
  /// again), dispatch disabled, every pair authorized, no agent available. The hook and the
  /// clock stay. For tests: call it with no enqueue step running.
  Result<Committed, QueueError> clear();

  // ---- inspection (raw rows, in key or id order) -----------------------------------------
  /// Every idempotency record.
  [[nodiscard]] Result<std::vector<IdempotencyRecord>, QueueError> records() const;
  /// Every child turn.
  [[nodiscard]] Result<std::vector<ChildTurn>, QueueError> children() const;
  /// The child admitted under `key`, if its record exists and the child was not removed.
  [[nodiscard]] std::optional<ChildTurn> child_for(const TurnKey& key) const;

 private:
  // Exact per-key locks with no mutex or allocation per key: a key is locked while it is
  // listed among its shard's held keys, and a caller whose key is held waits on the shard's
  // condition variable. Shards only spread the bookkeeping; two keys never wait for each
  // other, even in one shard.
  class KeyLocks {
   public:
    class Guard;
    // Locks `key` until the guard is destroyed; `key` must outlive the guard.
    [[nodiscard]] Guard lock(const std::string& key);

   private:
    struct alignas(64) Shard {
      Shard() { held.reserve(4); }  // up to 4 keys held in a shard at once allocate nothing
      std::mutex mutex;
      std::condition_variable released;
      std::vector<std::string_view> held;
    };
    std::array<Shard, 64> shards_;
  };

  // The hook installed when a step begins (the step keeps it to the end), or null.
  std::shared_ptr<const TransactionHook> current_hook() const;

  const Limits limits_;
  const StoreClock clock_;
  KeyLocks key_locks_;

  // What an enqueue re-reads: shared while an enqueue reads it, so a change waits for it.
  mutable std::shared_mutex state_mutex_;
  ReplyState state_;

  // Records and children: held only for a lookup, an insert or a lease operation.
  mutable std::mutex table_mutex_;
  TurnTable table_;

  mutable std::mutex hook_mutex_;
  std::shared_ptr<const TransactionHook> hook_;
  std::atomic<bool> hooked_ = false;  // lets a step without a hook skip `hook_mutex_`
};

}  // namespace thm::memory
