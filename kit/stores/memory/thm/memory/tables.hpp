#pragma once
/// \file
/// The in-memory store's logic without its locks: the state an enqueue re-reads
/// (`ReplyState`) and the rows it writes (`TurnTable`). Neither is thread-safe. `MemoryQueue`
/// puts each behind its own lock and adds per-key locks and hooks; a host (or a benchmark
/// baseline) may put both behind one mutex instead. SPEC §4, queue-conformance.md §5.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace thm::memory {

/// What every enqueue re-reads before it decides: committed replies by encoded `TurnKey`,
/// the live dispatch policy, the forbidden (source, target) pairs and the available targets.
/// Starts empty: dispatch disabled, every pair authorized, no agent available.
class ReplyState {
 public:
  /// Stores `reply` under its encoded key, replacing an earlier reply there (an edit).
  void commit_reply(CommittedReply reply);
  /// Replaces the live dispatch policy.
  void set_policy(MentionDispatchPolicy policy) noexcept { policy_ = policy; }
  /// Allows or forbids `source_id` to hand turns to `target_id`.
  void set_authorized(const std::string& source_id, const std::string& target_id, bool authorized);
  /// Marks `agent_id` available (or not) as a target.
  void set_available(const std::string& agent_id, bool available);

  /// Enqueue step 3 (SPEC §4): `TriggerMissing` when no reply is stored under `key` (the
  /// encoded `turn_key(request)`), `TriggerMismatch` when its author, content or hop differs
  /// from the request's; nothing when the request matches its committed reply.
  [[nodiscard]] std::optional<QueueError> verify_trigger(const MentionTurnRequest& request,
                                                         const std::string& key) const;
  /// Enqueue step 4 (SPEC §4): the refusal the live policy gives `request`, first match wins
  /// (disabled or `child_hop > max_hops`, then unauthorized, then target unavailable);
  /// nothing when it may be admitted.
  [[nodiscard]] std::optional<EnqueueRefusal> revalidate_policy(
      const MentionTurnRequest& request) const;

 private:
  std::unordered_map<std::string, CommittedReply> replies_;
  MentionDispatchPolicy policy_{};
  std::set<std::pair<std::string, std::string>> forbidden_;
  std::set<std::string> available_;
};

/// The rows an enqueue writes and the lease bookkeeping over them: idempotency records by
/// encoded key, child turns by id (ids from 1, never reused), and the ids of `Pending`
/// children in claim order. Lease tokens are `"<child id>.<attempt>"`; times are store time.
class TurnTable {
 public:
  /// Whether a record exists for the encoded key `key` (it outlives its child).
  [[nodiscard]] bool has_record(const std::string& key) const { return records_.contains(key); }
  /// Takes the next child id. An id taken and never inserted is simply skipped.
  [[nodiscard]] std::uint64_t reserve_id() noexcept { return next_child_id_++; }
  /// Writes the record for `key` and its `Pending` child `id` holding `request`, together.
  void insert(const std::string& key, std::uint64_t id, const MentionTurnRequest& request);

  /// Leases the oldest `Pending` child with no live lease at `now` until `now + duration`,
  /// counting an attempt; a child found with `max_attempts` spent becomes `Dead` and is
  /// skipped. Nothing when no child is claimable. `duration` must be positive.
  [[nodiscard]] std::optional<Lease> claim(StoreTime now, std::chrono::milliseconds duration,
                                           std::uint32_t max_attempts);
  /// Extends the live lease `token` to `now + duration`; `StaleToken` if it is not live.
  [[nodiscard]] Result<StoreTime, LeaseError> renew(const std::string& token, StoreTime now,
                                                    std::chrono::milliseconds duration);
  /// Marks the leased child `Completed`; `StaleToken` if `token` is not live at `now`.
  [[nodiscard]] Result<TurnState, LeaseError> complete(const std::string& token, StoreTime now);
  /// Gives the leased child back: `Pending` while attempts remain, else `Failed`.
  /// `StaleToken` if `token` is not live at `now`.
  [[nodiscard]] Result<TurnState, LeaseError> fail(const std::string& token, StoreTime now,
                                                   std::uint32_t max_attempts);

  /// Moves child `id` to `state`; false when there is no such child.
  bool settle(std::uint64_t id, TurnState state);
  /// Deletes child `id`, keeping its record; false when there is no such child.
  bool remove(std::uint64_t id);
  /// Deletes every child that is not `Pending`; returns how many.
  std::size_t prune();

  /// Every record, in key order.
  [[nodiscard]] std::vector<IdempotencyRecord> records() const;
  /// Every child, in id order.
  [[nodiscard]] std::vector<ChildTurn> children() const;
  /// The child admitted under the encoded key `key`, if its record and child both exist.
  [[nodiscard]] std::optional<ChildTurn> child_for(const std::string& key) const;

 private:
  // The child holding the live lease `token` at `now`, or null.
  ChildTurn* leased_child(const std::string& token, StoreTime now);
  // Sets a child's state, keeping `pending_` in step with it.
  void set_state(ChildTurn& child, TurnState state);

  std::unordered_map<std::string, std::uint64_t> records_;
  std::map<std::uint64_t, ChildTurn> children_;
  std::set<std::uint64_t> pending_;  // so that a claim never walks settled children
  std::uint64_t next_child_id_ = 1;
};

}  // namespace thm::memory
