#pragma once
/// \file
/// `thm::sqlite::SqliteQueue`: the host contract of SPEC §4 on an embedded SQLite database,
/// one connection per queue object. The schema is `kit/stores/sqlite/schema.sql`; `open`
/// applies it. Several `SqliteQueue`s, in one process or many, may share one database file:
/// SQLite's write lock (`BEGIN IMMEDIATE`) serialises their writes, and WAL mode lets
/// readers go on meanwhile.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

struct sqlite3;

namespace thm::sqlite {

/// The row types every reference store shares (`thm/store/store.hpp`); the state is stored
/// as its name (`pending`, ...).
using thm::ChildTurn;
using thm::Committed;
using thm::IdempotencyRecord;
using thm::TurnState;
using thm::UniqueIndex;

/// How a queue opens its database. Byte counts and milliseconds.
struct Options {
  /// A larger request is `QueueErrorKind::InvalidRequest` and writes nothing.
  std::size_t max_content_bytes = std::size_t{1} << 20;
  /// Applies to `source_id`, `target_id` and the conversation's `desk_id` each.
  std::size_t max_id_bytes = 1024;
  /// Claims a child may receive; one whose attempts are spent is `Dead`, not claimable.
  std::uint32_t max_attempts = 3;
  /// How long a statement waits for another connection's write lock before it answers
  /// `QueueErrorKind::Unavailable` (SQLite's `busy_timeout`).
  std::chrono::milliseconds busy_timeout{30'000};
  /// A test seam (queue-conformance.md §8): called at each `HookPoint` of `enqueue_once`'s
  /// transaction; `false` rolls the step back there. Empty in production.
  TransactionHook hook{};
};

/// The SQLite host queue over one connection. Thread-safe: calls on one object run one at a
/// time; open one per thread for parallelism (SQLite still serialises the writes).
///
/// `enqueue_once` is one `BEGIN IMMEDIATE` transaction:
///  1. a request over the limits → `InvalidRequest`, before any SQL;
///  2. re-read the committed reply under the request's `TurnKey`: none → `TriggerMissing`;
///     another author, content, or a hop with `child_hop != hop + 1` → `TriggerMismatch`;
///  3. revalidate the policy row (disabled or `child_hop > max_hops` →
///     `Refused{FeatureDisabled}`), the pair (`Refused{Unauthorized}`) and the target
///     (`Refused{TargetUnavailable}`);
///  4. `INSERT INTO thm_idempotency … ON CONFLICT DO NOTHING RETURNING id`: no row →
///     `Already`; otherwise insert the child with the record's id, commit → `Enqueued`.
/// Anything but `Enqueued` rolls back and writes nothing. A lock wait past `busy_timeout`
/// is `Unavailable`, at COMMIT too (the transaction is then rolled back); any other failure
/// of COMMIT is `Indeterminate`.
///
/// Durability: WAL mode with `synchronous=FULL`, both set by `open`, so an acknowledged
/// `Enqueued` survives the process being killed and the machine losing power.
class SqliteQueue final : public MentionTurnQueue {
 public:
  /// Opens (creating if needed) the database at `path`, in WAL mode, and applies the
  /// schema. `Unavailable` when the file cannot be opened; `Internal` when it holds a
  /// schema this version does not know.
  [[nodiscard]] static Result<std::unique_ptr<SqliteQueue>, QueueError> open(
      const std::string& path, Options options = {});
  ~SqliteQueue() override;
  SqliteQueue(const SqliteQueue&) = delete;
  SqliteQueue& operator=(const SqliteQueue&) = delete;

  /// The transaction above. Never throws.
  [[nodiscard]] Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept override;

  // ---- the host's own writes, each committed before it returns ---------------------------
  /// Stores or replaces the reply under `turn_key(reply.conversation, {reply.sequence})`.
  [[nodiscard]] Result<Committed, QueueError> commit_reply(const CommittedReply& reply);
  /// The live dispatch policy every enqueue revalidates (none stored: disabled).
  [[nodiscard]] Result<Committed, QueueError> set_policy(MentionDispatchPolicy policy);
  /// Allows or forbids `source_id` to hand turns to `target_id` (all pairs start allowed).
  [[nodiscard]] Result<Committed, QueueError> set_authorized(const std::string& source_id,
                                                             const std::string& target_id,
                                                             bool authorized);
  /// Marks `agent_id` available as a target, or not (all agents start unavailable).
  [[nodiscard]] Result<Committed, QueueError> set_available(const std::string& agent_id,
                                                            bool available);

  // ---- leases: durations only, expiry on SQLite's clock (EQ-14…EQ-19) ----------------------
  /// In one statement: marks spent children `Dead`, then claims the oldest `Pending` child
  /// with no live lease, incrementing its attempts and setting its expiry to store now +
  /// `duration`. Nothing when none is claimable; `InvalidDuration` unless positive.
  [[nodiscard]] Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration);
  /// Extends the live lease `token` to store now + `duration`; the expiry as stored.
  /// `StaleToken` unless `token` is a pending child's current, unexpired lease.
  [[nodiscard]] Result<StoreTime, LeaseError> renew(const std::string& token,
                                                    std::chrono::milliseconds duration);
  /// Marks the leased child `Completed`. `StaleToken` as for `renew`.
  [[nodiscard]] Result<TurnState, LeaseError> complete(const std::string& token);
  /// Gives the leased child back: `Pending` while attempts remain, else `Failed`.
  [[nodiscard]] Result<TurnState, LeaseError> fail(const std::string& token);
  /// The store's clock: `julianday('now')` in milliseconds since the Unix epoch.
  [[nodiscard]] Result<StoreTime, QueueError> now();

  // ---- lifecycle and maintenance ------------------------------------------------------------
  /// Moves child `id` to `state`; false when there is no such child. The record stays.
  [[nodiscard]] Result<bool, QueueError> settle(std::uint64_t id, TurnState state);
  /// Deletes child `id`; its record stays, so the key keeps answering `Already`.
  [[nodiscard]] Result<bool, QueueError> remove(std::uint64_t id);
  /// Deletes every child that is no longer `Pending`; records are kept. How many it deleted.
  [[nodiscard]] Result<std::size_t, QueueError> prune();
  /// Deletes every row of every thm table (tests and scratch databases only).
  [[nodiscard]] Result<Committed, QueueError> clear();

  // ---- inspection: raw rows, in id order ------------------------------------------------------
  /// Every idempotency record.
  [[nodiscard]] Result<std::vector<IdempotencyRecord>, QueueError> records();
  /// Every child turn.
  [[nodiscard]] Result<std::vector<ChildTurn>, QueueError> children();
  /// The unique indexes of the idempotency table, for schema audits (EQ-04).
  [[nodiscard]] Result<std::vector<UniqueIndex>, QueueError> idempotency_indexes();

  /// The connection and its prepared statements (defined in sqlite_queue.cpp).
  class Impl;

 private:
  explicit SqliteQueue(std::unique_ptr<Impl> impl);
  std::mutex mutex_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace thm::sqlite
