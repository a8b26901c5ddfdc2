#pragma once
/// \file
/// Deliberately broken SQLite host queues: the SQL mutants of queue-conformance.md §7, each a
/// conformance `Harness` over its own scratch database. One compact queue, written against the
/// SQLite client the reference queue uses (`thm/sqlite/client.hpp`), follows the reference
/// SQLite queue's transaction (`kit/stores/sqlite`) and departs from it only where its `SqlFlaw`
/// says, so the project's own tests can assert that the suite rejects each one. Test code
/// only: never link a mutant into a host.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "thm/conformance/harness.hpp"

namespace thm::conformance::sqlite_mutants {

/// One broken rule of the host contract on a SQL store, named after its mutant in
/// queue-conformance.md §7; `None` is the unbroken queue, the control.
enum class SqlFlaw : std::uint8_t {
  /// No flaw: `BEGIN IMMEDIATE`, `INSERT … ON CONFLICT DO NOTHING RETURNING` on a unique
  /// key, leases on SQLite's clock. Passes every check the mutants are held to.
  None,
  /// M1: the idempotency table has no unique index; the key is looked up in autocommit before
  /// the write transaction begins, and the record is inserted unconditionally inside it.
  CheckThenInsert,
  /// M2: the unique index is there and the lookup is as in M1, but the record is a plain
  /// `INSERT`; a `SQLITE_CONSTRAINT_UNIQUE` from a racing step is caught and returned as an
  /// `Internal` error instead of `Already`.
  CatchUniqueViolation,
  /// M4: the validation transaction commits, the record is inserted in autocommit, and the
  /// child gets a transaction of its own; a rollback after the record leaves it behind.
  AutocommitRecord,
  /// M7: a claim (and a renewal) stamps the expiry as the *client's* now plus the duration.
  ClientClockExpiry,
  /// M8: the expiry is stamped from SQLite's clock, but a claim treats a lease as expired
  /// when it is at or before the *client's* now.
  ClientClockPredicate,
  /// M9: attempts are counted in process memory (shared by the harness's sessions), never
  /// written to the row.
  HiddenAttempts,
  /// M11: the record and child key are cut to 24 bytes of `TurnKey::encoded()`, and an
  /// enqueue runs with `SQLITE_LIMIT_LENGTH` at 64 KiB although 1 MiB of content is
  /// declared, so large content is a raw "string or blob too big" error.
  TruncatedKey,
  /// M14: no idempotency table; dedup rests on a unique index over the child table's key
  /// that is partial on `state = 'pending'`, so settling or pruning a child frees its key.
  LiveStateDedup,
  /// M16: renew, complete and fail look only at the token, not at the lease's expiry, so a
  /// holder whose lease expired on SQLite's clock still extends or settles it.
  ExpiredTokenAccepted,
  /// M17: the lease token is the child's id, so every claim of a child hands out the same
  /// token and a holder whose lease was superseded acts on its successor's lease.
  ChildIdToken,
  /// M18: a claim picks its child in autocommit, before `BEGIN IMMEDIATE`, and leases it by
  /// id without looking again, so two claimers that both picked it before either wrote both
  /// lease it.
  ClaimWithoutRowLock,
  /// M19: a claim and a renewal ignore the duration asked for and lease for a fixed
  /// 15 minutes from SQLite's now, as a queue whose expiry is set per job when it is sent
  /// (pg-boss's `expireInSeconds`).
  FixedLeaseLength,
  /// M20: as M19, but every lease lasts a fixed 1 s (pg-boss's shortest `expireInSeconds`),
  /// within a second of what the suite's short leases ask for.
  FixedShortLease,
};

/// Every broken `SqlFlaw` (all but `None`), in declaration order.
[[nodiscard]] std::span<const SqlFlaw> all_sql_flaws() noexcept;

/// The flaw's label for reports and test names, e.g. `M1 check-then-insert, no unique index`;
/// `none` for `SqlFlaw::None`.
[[nodiscard]] std::string_view name(SqlFlaw flaw) noexcept;

/// A fresh harness over a new database in its own temporary directory (`mkdtemp`, removed
/// with the harness), broken by `flaw`: the generic `StoreHarness` over the broken queue, a
/// `SqlReferenceStore`. It declares what `thm::sqlite::SqliteHarness`
/// declares (hooks, row locking, persistent, SQL schema, the reference limits, leases on
/// SQLite's real clock, three attempts), so no check is skipped for want of a capability.
/// Sessions are connections of their own; `enqueue_then_kill` forks a process that opens
/// its own. Its `name()` is `sqlite mutant ` followed by `name(flaw)`. Throws
/// `std::runtime_error` when the directory or database cannot be made.
[[nodiscard]] std::unique_ptr<Harness> broken_sqlite_harness(SqlFlaw flaw);

}  // namespace thm::conformance::sqlite_mutants
