#pragma once
/// \file
/// `thm::store`: the words every host store shares beyond core's port (SPEC §4;
/// queue-conformance.md §5, §6; adr/0010). The committed reply a step re-reads, the step's
/// first checks, the rows of records and child turns, leases on the store's own clock, the
/// description of a unique index, and the named points of the enqueue transaction where a
/// conformance check may pause or fail it. Pure values and functions: no I/O, no clock read.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"
#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"

namespace thm {

/// The first check of a host's enqueue (SPEC §4), before any store is touched: a request
/// whose content is longer than `max_content_bytes`, or whose source, target or desk id is
/// longer than `max_id_bytes`, is `InvalidRequest` with a message naming the limit. Nothing
/// when the request fits.
[[nodiscard]] std::optional<QueueError> exceeds_limits(const MentionTurnRequest& request,
                                                       std::size_t max_content_bytes,
                                                       std::size_t max_id_bytes);

/// The re-read of the committed reply (SPEC §3.5, §4): `TriggerMismatch` naming the first
/// of source, content and child hop (which must be the stored `hop` + 1) in which `request`
/// differs from the reply stored under `key`. `hop` is as the store keeps it, possibly wider
/// than 32 bits. `key` (the store's key of that reply, e.g. `turn_key(request).encoded()`) is
/// only quoted in the message; finding the reply by it is the caller's. Nothing when they
/// agree.
[[nodiscard]] std::optional<QueueError> trigger_mismatch(const MentionTurnRequest& request,
                                                         std::string_view author_id,
                                                         std::string_view content, std::int64_t hop,
                                                         std::string_view key);

/// An agent reply the host has committed: the row a host's `enqueue_once` re-reads and
/// verifies a request against (SPEC §4): the same conversation and sequence, `author_id` as
/// the request's source, the same content, and `child_hop == hop + 1`. `hop` is the reply's
/// own depth in its chain as the host stored it, so the child's hop comes from the store,
/// not from the caller (SPEC §3.5).
struct CommittedReply {
  DispatchConversation conversation{};
  Sequence sequence = 0;
  std::string author_id{};
  std::string content{};
  std::uint32_t hop = 0;
  friend bool operator==(const CommittedReply&, const CommittedReply&) = default;
};

/// A point in a store's own time, in milliseconds since the Unix epoch. Lease expiries are
/// computed and compared in it by the store; callers never pass one in (queue-conformance.md
/// §5.6, EQ-16).
using StoreTime = std::chrono::sys_time<std::chrono::milliseconds>;

/// A claim on one child turn (queue-conformance.md §6 D): the child, the token every later
/// `renew`, `complete` or `fail` must present, the expiry the store computed on its own
/// clock, the attempt this claim is (1 for the first), and the request to run.
struct Lease {
  std::uint64_t child_id = 0;
  std::string token{};
  StoreTime expires_at{};
  std::uint32_t attempt = 0;
  MentionTurnRequest request{};
  friend bool operator==(const Lease&, const Lease&) = default;
};

/// Why a lease operation was refused: the token is not the child's current live lease
/// (expired, superseded by a later claim, already completed or failed, or never issued);
/// the duration is not positive; or the store failed or stayed locked (a store out of
/// process; retry later). After `Unavailable` from a lost connection the call may still have
/// taken effect: a retried renew, complete or fail may then answer `StaleToken`, and a claim
/// may have counted an attempt.
enum class LeaseError : std::uint8_t { StaleToken, InvalidDuration, Unavailable };

/// The snake_case token of `error`, e.g. `stale_token`.
[[nodiscard]] constexpr std::string_view name(LeaseError error) noexcept {
  switch (error) {
    case LeaseError::StaleToken:
      return "stale_token";
    case LeaseError::InvalidDuration:
      return "invalid_duration";
    case LeaseError::Unavailable:
      return "unavailable";
  }
  detail::unreachable();
}

/// Where a child turn is in its life, as the reference stores keep it. A `Pending` child may
/// be claimed when it holds no live lease; `Completed` was answered; `Failed` was given back
/// by its holder with no attempts left; `Dead` ran out of attempts without an answer. Every
/// state keeps its idempotency record (queue-conformance.md §5.1).
enum class TurnState : std::uint8_t { Pending, Completed, Failed, Dead };

/// Every `TurnState`, in declaration order.
inline constexpr std::array kAllTurnStates{TurnState::Pending, TurnState::Completed,
                                           TurnState::Failed, TurnState::Dead};

/// The snake_case token of `state`, e.g. `pending` (also its stored form in SQL stores).
[[nodiscard]] constexpr std::string_view name(TurnState state) noexcept {
  switch (state) {
    case TurnState::Pending:
      return "pending";
    case TurnState::Completed:
      return "completed";
    case TurnState::Failed:
      return "failed";
    case TurnState::Dead:
      return "dead";
  }
  detail::unreachable();
}

/// The state whose token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<TurnState> turn_state_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllTurnStates);
}

/// One child turn row as the reference stores keep it: its store-assigned id (never
/// reused), its record's key (`TurnKey::encoded()`), the request exactly as accepted, its
/// state, the claims made so far (counted by the claim itself, queue-conformance.md
/// EQ-18), and its current or last lease: the token (empty when none) and the expiry the
/// store computed on its own clock.
struct ChildTurn {
  std::uint64_t id = 0;
  std::string key{};
  MentionTurnRequest request{};
  TurnState state = TurnState::Pending;
  std::uint32_t attempts = 0;
  std::string lease_token{};
  std::optional<StoreTime> lease_expires_at{};
  friend bool operator==(const ChildTurn&, const ChildTurn&) = default;
};

/// One idempotency record as the reference stores keep it: the encoded `TurnKey` and the
/// child it admitted. Records live in their own table and outlive their child
/// (queue-conformance.md §5.1).
struct IdempotencyRecord {
  std::string key{};
  std::uint64_t child_id = 0;
  friend bool operator==(const IdempotencyRecord&, const IdempotencyRecord&) = default;
};

/// A unique index of a SQL store's idempotency table, as its catalog describes it: the
/// columns in order, and whether it is partial (queue-conformance.md EQ-04).
struct UniqueIndex {
  std::vector<std::string> columns{};
  bool partial = false;
  friend bool operator==(const UniqueIndex&, const UniqueIndex&) = default;
};

/// A host write to a store that committed (`Result` has no `void` form).
struct Committed {
  friend bool operator==(const Committed&, const Committed&) = default;
};

/// The six points of a host's enqueue transaction (queue-conformance.md §6) at which a
/// conformance check may pause the call or make it fail. A failure at any point before
/// `AfterCommitBeforeReturn` must roll back everything; at `AfterCommitBeforeReturn` the
/// step has committed and only the answer is lost (the caller sees `Indeterminate`).
enum class HookPoint : std::uint8_t {
  AfterBegin,
  AfterValidateReads,
  AfterIdempotencyStatement,
  AfterChildInsert,
  BeforeCommit,
  AfterCommitBeforeReturn,
};

/// Every `HookPoint`, in transaction order.
inline constexpr std::array kAllHookPoints{HookPoint::AfterBegin,
                                           HookPoint::AfterValidateReads,
                                           HookPoint::AfterIdempotencyStatement,
                                           HookPoint::AfterChildInsert,
                                           HookPoint::BeforeCommit,
                                           HookPoint::AfterCommitBeforeReturn};

/// A test hook a host queue calls at each `HookPoint` of every enqueue step, from the calling
/// thread, with the request; it may block. Returning false makes the step fail there: roll
/// back and answer an error (`Unavailable`), or, at `AfterCommitBeforeReturn`, answer
/// `Indeterminate` although the step committed. It runs while the step holds the store's
/// locks, so it must not call back into the same store, and it must not throw (the port is
/// `noexcept`).
using TransactionHook = std::function<bool(HookPoint, const MentionTurnRequest&)>;

/// What a step answers when the hook at `point` (before `AfterCommitBeforeReturn`) made it
/// fail: it rolled back and wrote nothing, so a retry is safe (`Unavailable`).
[[nodiscard]] QueueError rolled_back_at(HookPoint point);

/// The snake_case token of `point`, e.g. `before_commit`.
[[nodiscard]] constexpr std::string_view name(HookPoint point) noexcept {
  switch (point) {
    case HookPoint::AfterBegin:
      return "after_begin";
    case HookPoint::AfterValidateReads:
      return "after_validate_reads";
    case HookPoint::AfterIdempotencyStatement:
      return "after_idempotency_statement";
    case HookPoint::AfterChildInsert:
      return "after_child_insert";
    case HookPoint::BeforeCommit:
      return "before_commit";
    case HookPoint::AfterCommitBeforeReturn:
      return "after_commit_before_return";
  }
  detail::unreachable();
}

/// The point whose token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<HookPoint> hook_point_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllHookPoints);
}

}  // namespace thm
