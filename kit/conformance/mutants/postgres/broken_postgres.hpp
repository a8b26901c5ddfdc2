#pragma once
/// \file
/// Deliberately broken PostgreSQL host queues: the SQL mutants of queue-conformance.md §7 on
/// a real server, each a conformance `Harness` over a PostgreSQL schema of its own. One
/// compact queue, written against the PostgreSQL client the reference queue uses
/// (`thm/postgres/client.hpp`), follows the reference PostgreSQL queue's transaction
/// (`kit/stores/postgres`) and departs from it only where its `PgFlaw` says, so the project's
/// own tests can assert that the suite rejects each one. Test code only: never link a mutant
/// into a host.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "thm/conformance/harness.hpp"

namespace thm::conformance::postgres_mutants {

/// One broken rule of the host contract on PostgreSQL, named after its mutant in
/// queue-conformance.md §7; `None` is the unbroken queue, the control.
enum class PgFlaw : std::uint8_t {
  /// No flaw: one READ COMMITTED transaction that re-reads the reply `FOR SHARE`, locks the
  /// policy tables in SHARE mode, decides with `INSERT … ON CONFLICT DO NOTHING RETURNING` on
  /// an unconditional unique key and inserts the child; leases on the server's
  /// `statement_timestamp()`. Passes every check the mutants are held to.
  None,
  /// M1: the idempotency table has no unique index; inside the transaction the key is looked
  /// up with a plain `SELECT`, and when it is absent the record is inserted unconditionally.
  /// Under READ COMMITTED a concurrent step's uncommitted record is invisible to the look.
  CheckThenInsert,
  /// M2: the unique index is there and the key is looked up as in M1, but the record is a
  /// plain `INSERT`. The unique violation (SQLSTATE 23505) a racing step meets is caught
  /// inside the transaction without a savepoint, and the step carries on to read the
  /// existing record so it can answer `Already`; PostgreSQL refuses that read ("current
  /// transaction is aborted", 25P02), and the raw error is returned.
  CatchUniqueViolation,
  /// M2b, the session half of M2: as M2, but the caught violation is answered `Already` at
  /// once, and the step drops its rollback guard ("the insert wrote nothing"), so the
  /// session stays inside the aborted transaction and every later call on it fails with
  /// 25P02. Its answers look right; only a reuse of the losing session shows the flaw.
  PoisonedSession,
  /// M4: the validating transaction commits, the record is inserted in autocommit, and the
  /// child gets a transaction of its own; a rollback after the record leaves it behind.
  AutocommitRecord,
  /// M7: a claim (and a renewal) stamps the expiry as the *client's* now plus the duration.
  ClientClockExpiry,
  /// M8: the expiry is stamped from the server's clock, but a claim treats a lease as expired
  /// when it is at or before the *client's* now.
  ClientClockPredicate,
  /// M9: attempts are counted in process memory (shared by the harness's sessions), never
  /// written to the row.
  HiddenAttempts,
  /// M11: the record and child key are cut to 24 bytes of `TurnKey::encoded()`, and the child
  /// table carries a btree index over `content`, so content at the declared 1 MiB limit is
  /// the server's raw "index row requires … bytes" error (SQLSTATE 54000).
  TruncatedKey,
  /// M14: no idempotency table; dedup rests on a unique index over the child table's key
  /// that is partial on `state = 'pending'`, so settling or pruning a child frees its key.
  LiveStateDedup,
  /// M16: renew, complete and fail look only at the token, not at the lease's expiry, so a
  /// holder whose lease expired on the server's clock still extends or settles it.
  ExpiredTokenAccepted,
  /// M17: the lease token is the child's id, so every claim of a child hands out the same
  /// token and a holder whose lease was superseded acts on its successor's lease.
  ChildIdToken,
  /// M18: a claim picks its child with a plain `SELECT` (no `FOR UPDATE SKIP LOCKED`), so
  /// two claimers that both read the child before either writes both lease it.
  ClaimWithoutRowLock,
  /// M12: the committed reply and the live policy are read in autocommit, before the
  /// transaction begins, so a revocation (or an edit) made while the step runs is missed.
  RevalidationOutsideTransaction,
};

/// Every broken `PgFlaw` (all but `None`), in declaration order.
[[nodiscard]] std::span<const PgFlaw> all_pg_flaws() noexcept;

/// The flaw's label for reports and test names, e.g. `M1 check-then-insert, no unique index`;
/// `none` for `PgFlaw::None`.
[[nodiscard]] std::string_view name(PgFlaw flaw) noexcept;

/// The PostgreSQL schema (namespace) the flaw's harness owns: `thm_mutant_none`,
/// `thm_mutant_m1`, … Never `public`, so the mutants' tables stay apart from the reference
/// queue's in the same database.
[[nodiscard]] std::string_view schema_name(PgFlaw flaw) noexcept;

/// A fresh harness broken by `flaw` over libpq `conninfo` (a key/value string or a URI;
/// empty: libpq's `PG*` variables): the generic `StoreHarness` over the broken queue, a
/// `SqlReferenceStore`. Every connection it opens sets `search_path` to
/// `schema_name(flaw)`; construction and `reset()` drop that schema and create it again with
/// the flaw's tables, and the destructor drops it. `restart_command`, if not empty, is a
/// shell command that restarts the server (EQ-23). It declares what
/// `thm::postgres::PostgresHarness` declares (hooks, row locking, persistent, SQL schema,
/// 1 MiB content and 1 KiB ids, leases on the server's real clock, three attempts), so no
/// check is skipped for want of a capability. Sessions are connections of their own;
/// `enqueue_then_kill` forks a process that opens its own. Its `name()` is
/// `postgres mutant ` followed by `name(flaw)`. Throws `std::runtime_error` when the server
/// cannot be reached or the schema cannot be made.
[[nodiscard]] std::unique_ptr<Harness> broken_postgres_harness(PgFlaw flaw, std::string conninfo,
                                                               std::string restart_command = {});

}  // namespace thm::conformance::postgres_mutants
