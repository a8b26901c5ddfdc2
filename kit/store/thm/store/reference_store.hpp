#pragma once
/// \file
/// `thm::ReferenceStore`: the operations every reference store has (the memory, SQLite and
/// PostgreSQL queues, and any store a host adds the same way), with one error style
/// (adr/0010). A store that declares `static_assert(ReferenceStore<MyQueue>)` can be driven
/// by the conformance suite's generic harness with its capabilities and its setup alone.

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace thm {

/// A host store held as one object (a connection, or a store shared in process):
/// - the port, `enqueue_once` (SPEC §4);
/// - the host's own writes, committed before they return: `commit_reply`, `set_policy`,
///   `set_authorized(source, target, allowed)`, `set_available(agent, available)`, each
///   `Result<Committed, QueueError>`;
/// - leases on the store's own clock (queue-conformance.md §5.6): `claim(duration)`,
///   `renew(token, duration)`, `complete(token)`, `fail(token)`, each `Result<…, LeaseError>`,
///   and `now()`, the store's time;
/// - lifecycle: `settle(id, state)` and `remove(id)` (false: no such child), `prune()`
///   (children deleted), `clear()` (every row of the store's tables, for a scratch store);
/// - inspection, raw rows outside any step: `records()`, `children()`.
/// Every store failure is a `QueueError` value (a lease operation's is
/// `LeaseError::Unavailable`); no operation throws.
template <class Store>
concept ReferenceStore = std::derived_from<Store, MentionTurnQueue> &&
    requires(Store& store, const CommittedReply& reply, MentionDispatchPolicy policy,
             const std::string& id, bool flag, std::chrono::milliseconds duration,
             std::uint64_t child_id, TurnState state) {
  { store.commit_reply(reply) } -> std::same_as<Result<Committed, QueueError>>;
  { store.set_policy(policy) } -> std::same_as<Result<Committed, QueueError>>;
  { store.set_authorized(id, id, flag) } -> std::same_as<Result<Committed, QueueError>>;
  { store.set_available(id, flag) } -> std::same_as<Result<Committed, QueueError>>;
  { store.claim(duration) } -> std::same_as<Result<std::optional<Lease>, LeaseError>>;
  { store.renew(id, duration) } -> std::same_as<Result<StoreTime, LeaseError>>;
  { store.complete(id) } -> std::same_as<Result<TurnState, LeaseError>>;
  { store.fail(id) } -> std::same_as<Result<TurnState, LeaseError>>;
  { store.now() } -> std::same_as<Result<StoreTime, QueueError>>;
  { store.settle(child_id, state) } -> std::same_as<Result<bool, QueueError>>;
  { store.remove(child_id) } -> std::same_as<Result<bool, QueueError>>;
  { store.prune() } -> std::same_as<Result<std::size_t, QueueError>>;
  { store.clear() } -> std::same_as<Result<Committed, QueueError>>;
  { store.records() } -> std::same_as<Result<std::vector<IdempotencyRecord>, QueueError>>;
  { store.children() } -> std::same_as<Result<std::vector<ChildTurn>, QueueError>>;
};

/// A `ReferenceStore` over a SQL schema that can report its idempotency table's unique
/// indexes as its catalog describes them (queue-conformance.md EQ-04).
template <class Store>
concept SqlReferenceStore = ReferenceStore<Store> && requires(Store& store) {
  { store.idempotency_indexes() } -> std::same_as<Result<std::vector<UniqueIndex>, QueueError>>;
};

}  // namespace thm
