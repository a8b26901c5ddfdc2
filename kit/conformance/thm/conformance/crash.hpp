#pragma once
/// \file
/// Process plumbing for EQ-23 (queue-conformance.md §6), for harnesses to use in
/// `Harness::enqueue_then_kill`: run one enqueue in a forked child process and kill it with
/// SIGKILL at the chosen point. POSIX only.

#include <functional>
#include <optional>

#include "thm/conformance/harness.hpp"

namespace thm::conformance {

/// Forks. The child calls `enqueue(hook)`, which must open its **own** connection to the
/// store (never use one inherited across `fork`), install `hook` as the store's transaction
/// hook, and run `enqueue_once`; the child then reports the answer over a pipe and waits.
/// Close your own connections before calling (SQLite's file locks belong to the process, so
/// a lock the parent holds would look like the child's), and call it with no other threads
/// running: the child does more than a forked child of a threaded process safely may.
/// `hook` does nothing for `KillPoint::AfterAnswer`; for `KillPoint::InsideTransaction` it
/// reports from `HookPoint::BeforeCommit` and blocks there. Once the report arrives (at most
/// 60 s), the parent kills the child with SIGKILL and reaps it.
///
/// Returns the child's answer for `AfterAnswer`, nothing for `InsideTransaction`. Throws
/// `std::runtime_error` when fork or pipe fails, or the child reports nothing, reports
/// something else, or never reaches `BeforeCommit`. The caller then restarts or reopens
/// its store.
[[nodiscard]] std::optional<Result<EnqueueOutcome, QueueError>> enqueue_in_killed_child(
    KillPoint when,
    const std::function<Result<EnqueueOutcome, QueueError>(TransactionHook hook)>& enqueue);

}  // namespace thm::conformance
