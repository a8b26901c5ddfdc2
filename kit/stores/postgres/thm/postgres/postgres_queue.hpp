#pragma once
/// \file
/// `thm::postgres::PostgresQueue`: the host contract of SPEC §4 on a PostgreSQL server
/// through libpq, one connection per queue object. The tables and the functions it calls
/// (`thm_enqueue_once`, `thm_claim`, ...) are the migration `kit/stores/postgres/thm_queue.sql`,
/// which `open` applies and which hosts in other languages call the same way. Any number of
/// `PostgresQueue`s, in any number of processes, may share one database.

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

namespace thm::postgres {

/// The row types every reference store shares (`thm/store/store.hpp`); the state is stored
/// as its name (`pending`, ...).
using thm::ChildTurn;
using thm::Committed;
using thm::IdempotencyRecord;
using thm::TurnState;
using thm::UniqueIndex;

/// How a queue connects and what it accepts. Byte counts.
struct Options {
  /// A larger request is `QueueErrorKind::InvalidRequest` and writes nothing.
  std::size_t max_content_bytes = std::size_t{1} << 20;
  /// Applies to `source_id`, `target_id` and the conversation's `desk_id` each.
  std::size_t max_id_bytes = 1024;
  /// Claims a child may receive; one whose attempts are spent is `Dead`, not claimable.
  std::uint32_t max_attempts = 3;
  /// How long a statement waits for a lock (PostgreSQL's `lock_timeout`, set on every
  /// connection) before it answers `Unavailable`: an enqueue behind a policy change, or a
  /// policy change behind enqueues in flight.
  std::chrono::milliseconds lock_timeout{30'000};
  /// A test seam (queue-conformance.md §8): called at each `HookPoint` of `enqueue_once`'s
  /// transaction; `false` rolls the step back there. Empty in production. When set, the
  /// queue opens a second connection that answers the points inside `thm_enqueue_once`
  /// (`thm_hook_point`: a notice, then a wait on an advisory lock the second connection
  /// releases, or a cancel when the hook says no).
  TransactionHook hook{};
};

/// The PostgreSQL host queue over one connection. Thread-safe: calls on one object run one
/// at a time; open one per thread for parallelism. A broken connection (a server restart)
/// is re-established at the next call.
///
/// `enqueue_once` is one READ COMMITTED transaction around one call of `thm_enqueue_once`:
///  1. a request over the limits → `InvalidRequest`, before any SQL;
///  2. re-read the committed reply under the request's `TurnKey` `FOR SHARE` (an edit waits
///     for the step): none → `TriggerMissing`; another author, content, or a hop with
///     `child_hop != hop + 1` → `TriggerMismatch`;
///  3. revalidate the policy row (`FOR SHARE`), the target's availability row (`FOR KEY
///     SHARE`) and then the pair, each change to them waiting for the step:
///     `Refused{FeatureDisabled}` (disabled, or `child_hop > max_hops`),
///     `Refused{TargetUnavailable}`, `Refused{Unauthorized}`. A forbidden pair is a row the
///     step cannot lock before it exists, so every statement that writes one locks the policy
///     row first (the trigger `thm_forbidden_pair_guard`; ADR 0026);
///  4. `INSERT INTO thm_idempotency … ON CONFLICT (turn_key) DO NOTHING RETURNING id`: no row
///     → `Already` (a concurrent insert of the same key is waited for, so `Already` always
///     means a committed child); otherwise insert the child with that id and commit.
/// Steps 2–4 run inside the function; the limits and the transaction are the caller's.
/// Without a hook (production) the call runs in autocommit: one round trip, the statement's
/// own transaction. With a hook, BEGIN and COMMIT are sent apart, so that the hook points
/// `AfterBegin`, `BeforeCommit` and `AfterCommitBeforeReturn` sit between them and the call.
/// Anything but `Enqueued` writes nothing; no error is caught inside the transaction, so
/// none needs a savepoint. A lock wait past `lock_timeout`, a serialization failure, or any
/// failure on a live connection rolled back (`Unavailable`, or `Internal` for a server
/// error no retry mends). A connection lost during the autocommit call, or during COMMIT,
/// leaves nobody knowing whether it committed (`Indeterminate`); lost between BEGIN and
/// COMMIT it rolled back (`Unavailable`). The host's single-statement writes answer
/// `Indeterminate` when the connection is lost under them.
///
/// Privileges: the connecting role needs SELECT, INSERT, UPDATE and DELETE on the thm tables
/// (the row locks need UPDATE; `clear` needs TRUNCATE);
/// creating the schema the first time needs CREATE on the schema (PostgreSQL 15 no longer
/// grants it on `public`: create the database with `createdb -O <role>`). Through a pooler in
/// transaction mode, prepared statements must survive (PgBouncer 1.21+; otherwise the queue
/// prepares again once, then reports `Internal`), and `lock_timeout`, a session setting, does
/// not: set it on the role instead (`ALTER ROLE … SET lock_timeout = '30s'`).
class PostgresQueue final : public MentionTurnQueue {
 public:
  /// Connects with libpq `conninfo` (empty: the `PG*` environment variables) and applies the
  /// schema. `Unavailable` when the server cannot be reached; `Internal` when the database
  /// holds a schema version this build does not know.
  [[nodiscard]] static Result<std::unique_ptr<PostgresQueue>, QueueError> open(
      const std::string& conninfo, Options options = {});
  ~PostgresQueue() override;
  PostgresQueue(const PostgresQueue&) = delete;
  PostgresQueue& operator=(const PostgresQueue&) = delete;

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

  // ---- leases: durations only, expiry on the server's clock (EQ-14…EQ-19) ------------------
  /// Marks spent children `Dead`, then claims the oldest `Pending` child with no live lease
  /// (`FOR UPDATE SKIP LOCKED`), incrementing its attempts and setting its expiry to the
  /// claiming statement's time + `duration`. Nothing when none is claimable;
  /// `InvalidDuration` unless positive; `Unavailable` when the server fails.
  [[nodiscard]] Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration);
  /// Extends the live lease `token` to statement time + `duration`; the expiry as stored.
  /// `StaleToken` unless `token` is a pending child's current, unexpired lease.
  [[nodiscard]] Result<StoreTime, LeaseError> renew(const std::string& token,
                                                    std::chrono::milliseconds duration);
  /// Marks the leased child `Completed`. `StaleToken` as for `renew`.
  [[nodiscard]] Result<TurnState, LeaseError> complete(const std::string& token);
  /// Gives the leased child back: `Pending` while attempts remain, else `Failed`.
  [[nodiscard]] Result<TurnState, LeaseError> fail(const std::string& token);
  /// The server's clock: `statement_timestamp()` in milliseconds since the Unix epoch.
  [[nodiscard]] Result<StoreTime, QueueError> now();

  // ---- lifecycle and maintenance ------------------------------------------------------------
  /// Moves child `id` to `state`; false when there is no such child. The record stays.
  [[nodiscard]] Result<bool, QueueError> settle(std::uint64_t id, TurnState state);
  /// Deletes child `id`; its record stays, so the key keeps answering `Already`.
  [[nodiscard]] Result<bool, QueueError> remove(std::uint64_t id);
  /// Deletes every child that is no longer `Pending`; records are kept. How many it deleted.
  [[nodiscard]] Result<std::size_t, QueueError> prune();
  /// Deletes every row of every thm table (`TRUNCATE`, for tests and scratch databases only;
  /// ids keep counting up).
  [[nodiscard]] Result<Committed, QueueError> clear();

  // ---- inspection: raw rows, in id order ------------------------------------------------------
  /// Every idempotency record.
  [[nodiscard]] Result<std::vector<IdempotencyRecord>, QueueError> records();
  /// Every child turn.
  [[nodiscard]] Result<std::vector<ChildTurn>, QueueError> children();
  /// The unique indexes of the idempotency table other than its primary key (EQ-04).
  [[nodiscard]] Result<std::vector<UniqueIndex>, QueueError> idempotency_indexes();

  /// The connection and its prepared statements (defined in postgres_queue.cpp).
  class Impl;

 private:
  explicit PostgresQueue(std::unique_ptr<Impl> impl);
  std::mutex mutex_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace thm::postgres
