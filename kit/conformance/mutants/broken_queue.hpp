#pragma once
/// \file
/// Deliberately broken in-memory host queues ("mutants", queue-conformance.md §7), each a
/// conformance `Harness`. Each one copies the reference `MemoryQueue` and breaks exactly one
/// rule of the host contract (SPEC §4), so the project's own tests can assert that the suite
/// rejects it. The broken queue is a `thm::ReferenceStore` driven by the generic harness,
/// `StoreHarness`, as `MemoryQueue` is by `MemoryHarness`: a check that rejects a mutant
/// rejects its store, never a harness written for it. Test code only: never link a mutant
/// into a host.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "thm/conformance/harness.hpp"

namespace thm::conformance::mutants {

/// One broken rule of the host contract, named after its mutant in queue-conformance.md §7.
/// M2 (catching a unique violation without a savepoint) needs a SQL store and has no
/// in-memory counterpart here.
enum class Flaw : std::uint8_t {
  /// M1: the record is looked up, the table released, and record and child inserted later
  /// at commit; no lock on the key is held across the step.
  CheckThenInsert,
  /// M3: a caller that finds the key's lock held answers `Already` at once.
  TryLockAlready,
  /// M4: the record is committed on its own at the idempotency statement, before the child;
  /// a rollback after it leaves the record behind.
  AutocommitRecord,
  /// M5: the child is committed on its own before the record; a rollback after it leaves an
  /// orphan child.
  ChildBeforeRecord,
  /// M6: a duplicate is answered `Enqueued` (and writes no second child).
  UpsertReportsEnqueued,
  /// M10: the key is the raw desk id, the thread root (0 for the channel) and the sequence
  /// joined by `|`: no General folding, no channel-kind tag, no length prefix.
  AliasUnawareKey,
  /// M11: the key is cut to 24 bytes of `TurnKey::encoded()`, and content over 64 KiB is a
  /// raw-looking `Internal` store error although the declared limit is 1 MiB.
  TruncatedKey,
  /// M12: the reply and the policy are read before the step begins, into a snapshot, and
  /// only the reply's existence is checked, so the request's content, source and hop are
  /// trusted.
  RevalidationOutsideTransaction,
  /// M13: a refusal stores an idempotency record with no child, so the key answers
  /// `Already` from then on.
  RefusalCached,
  /// M14: only records whose child is still pending count as duplicates, and settling a
  /// child by deletion or pruning deletes its record too.
  LiveStateDedup,
  /// M15: no key lock and no held state lock: validation, lookup and insert each lock their
  /// table on their own.
  NoMutex,
  /// M7: a lease expires at the *client's* now plus the duration.
  ClientClockExpiry,
  /// M8: expiry is stamped from the store, but a lease counts as expired when it is at or
  /// before the *client's* now.
  ClientClockPredicate,
  /// M9: the attempt count is kept in process memory, never written to the row.
  HiddenAttempts,
  /// M16: renew, complete and fail look only at the token, not at the lease's expiry.
  ExpiredTokenAccepted,
  /// M17: the lease token is the child's id, the same on every claim of the child.
  ChildIdToken,
  /// M21: one child per key and phase (a `stately` index): a replay while the child is
  /// leased is no duplicate, and adds a second child.
  StatelyIndex,
  /// M22: claims stamp expiry on the store's clock, but renew stamps the new expiry at the
  /// *client's* now plus the duration.
  RenewFromClientClock,
  /// M23: renew, complete and fail judge a lease live or ended on the *client's* clock.
  ClientClockLiveness,
  /// M24: a failure after commit is answered `Unavailable` ("nothing was written"), not
  /// `Indeterminate`.
  UnavailableAfterCommit,
  /// M25: sequences and thread roots pass through a double (a JavaScript number), exact only
  /// below 2^53, in the keys of replies, records and children.
  DoubleSequence,
  /// M26: the request's content is compared with the stored reply's on its first 1 KiB only.
  ContentPrefixCompared,
  /// M27: a claim that finds nothing returns without ending its read transaction, so the
  /// connection's next claims read the children as they were then, until it writes (a
  /// connection per thread stands in for one per session).
  StaleClaimSnapshot,

  // Found in review, beyond §7: store flaws that passed the first version of the suite.
  /// R1: the live `max_hops` is not revalidated; only `enabled` is.
  IgnoresHopBudget,
  /// R2: an existing record answers `Already` before policy is revalidated.
  AlreadyBeforePolicy,
  /// R3: authorization looks at the target alone: forbidding one pair forbids every source.
  TargetOnlyAuthorization,
  /// R4: the idempotency key keeps only the first 64 bytes of the desk id.
  DeskCutShort,
  /// R5: the commit writes the record but loses the child, yet answers `Enqueued`.
  EnqueuedWithoutChild,
  // Harness behaviours the suite must survive: fail, never hang or crash.
  /// R6: a caller that finds its key busy answers `Unavailable`, and the inspector waits for
  /// every open step (as a single-connection SQL inspector would).
  InspectorWaitsForSteps,
  /// R7: `set_policy` throws, as a client library does when the store is down.
  ThrowingPolicyWrites,
  // Capabilities that do not match behaviour (EQ-24).
  /// R8: hooks are not declared, yet `set_hook` silently accepts a hook and never calls it.
  SilentlyIgnoredHooks,
  /// R9: declares `persistent`, but a restart loses everything: the store lives in memory.
  ForgetfulRestart,
};

/// Every `Flaw`, in declaration order.
[[nodiscard]] std::span<const Flaw> all_flaws() noexcept;

/// The mutant's label for reports and test names, e.g. `M1 check-then-insert, no key lock`.
[[nodiscard]] std::string_view name(Flaw flaw) noexcept;

/// A fresh harness over a store with `flaw`: `StoreHarness` over the broken queue, one store
/// every session shares, as `MemoryHarness` is over `MemoryQueue`. It declares what
/// `MemoryHarness` declares (hooks, row locking, leases on an injected clock, the default
/// limits) so that no check is skipped for want of a capability. R8 and R9, whose flaw is the
/// declaration itself, are a harness that forwards to that one over the unbroken queue and
/// lies as a host's own harness might: R8 declares no hooks yet silently accepts one and
/// never calls it, R9 declares `persistent` yet its reopen and restart empty the store. Its
/// `name()` is `mutant ` followed by `name(flaw)`.
[[nodiscard]] std::unique_ptr<Harness> broken_harness(Flaw flaw);

}  // namespace thm::conformance::mutants
