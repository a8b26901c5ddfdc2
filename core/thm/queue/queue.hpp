#pragma once
/// \file
/// The queue edge (SPEC §4): the `MentionTurnQueue` port a host implements, its answers,
/// and `dispatch_mention`, which runs `mention_dispatch` and hands an admitted request to
/// the port exactly once. Synchronous by design (SPEC §0.2, adr/0001).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "thm/detail/enum_names.hpp"
#include "thm/detail/unreachable.hpp"
#include "thm/dispatch/dispatch.hpp"
#include "thm/result.hpp"
#include "thm/roster/roster.hpp"

namespace thm {

/// An expected, final refusal from the host (SPEC §4). Success can never be a refusal.
/// Wire: `unauthorized`, `target_unavailable`, `feature_disabled`.
enum class EnqueueRefusal : std::uint8_t { Unauthorized, TargetUnavailable, FeatureDisabled };

/// Every `EnqueueRefusal`, in declaration order.
inline constexpr std::array kAllEnqueueRefusals{EnqueueRefusal::Unauthorized,
                                                EnqueueRefusal::TargetUnavailable,
                                                EnqueueRefusal::FeatureDisabled};

/// The host durably enqueued the one child turn for this key (SPEC §4).
struct Enqueued {
  friend bool operator==(const Enqueued&, const Enqueued&) = default;
};
/// A child turn for this key was already committed; nothing new was written (SPEC §4).
/// Carries no data: a host's own inspector shows the existing child.
struct Already {
  friend bool operator==(const Already&, const Already&) = default;
};
/// The host refused; nothing was written (SPEC §4).
struct Refused {
  EnqueueRefusal reason{};
  friend bool operator==(const Refused&, const Refused&) = default;
};
/// What `MentionTurnQueue::enqueue_once` answers (SPEC §4). Wire: tagged by `status`
/// (`enqueued`, `already`, `refused` with `reason`).
using EnqueueOutcome = std::variant<Enqueued, Already, Refused>;

/// `mention_dispatch` declined, so the queue was not called (SPEC §4).
struct NotDispatched {
  NoDispatchReason reason{};
  friend bool operator==(const NotDispatched&, const NotDispatched&) = default;
};
/// What `dispatch_mention` reports (SPEC §4): declined before the queue, or the queue's own
/// answer mapped one to one. Wire: tagged by `status` (`not_dispatched` with `reason`,
/// `enqueued`, `already`, `refused` with `reason`).
using MentionDispatchOutcome = std::variant<NotDispatched, Enqueued, Already, Refused>;

/// The broad kind of an unexpected host failure, so callers can act without parsing the
/// message. Wire: the snake_case token of each.
enum class QueueErrorKind : std::uint8_t {
  /// The store could not be reached or the step failed before commit; nothing was written,
  /// and a retry of the same request is safe.
  Unavailable,
  /// No committed reply exists for the request's conversation and trigger sequence.
  TriggerMissing,
  /// The committed reply disagrees with the request (source, content, conversation or
  /// sequence); nothing was written, and never answered as `Already`.
  TriggerMismatch,
  /// The step may or may not have committed (e.g. the connection dropped during commit);
  /// retrying the same request is the way to learn which.
  Indeterminate,
  /// The request is outside what the store accepts (content or an id longer than its
  /// declared limit); nothing was written, and retrying the same request cannot succeed.
  InvalidRequest,
  /// Anything else the host could not classify.
  Internal,
};

/// Every `QueueErrorKind`, in declaration order.
inline constexpr std::array kAllQueueErrorKinds{
    QueueErrorKind::Unavailable,   QueueErrorKind::TriggerMissing, QueueErrorKind::TriggerMismatch,
    QueueErrorKind::Indeterminate, QueueErrorKind::InvalidRequest, QueueErrorKind::Internal};

/// An unexpected host failure from `enqueue_once` (SPEC §4): its kind and the host's own
/// message, both preserved by `dispatch_mention`.
struct QueueError {
  QueueErrorKind kind = QueueErrorKind::Internal;
  std::string message{};
  friend bool operator==(const QueueError&, const QueueError&) = default;
};

/// The host port (SPEC §4): durably enqueue at most one child turn per key.
///
/// Thread safety: `enqueue_once` may be called from many threads at once.
/// Never throws: every failure is a `QueueError` value.
///
/// The host transaction contract. Under the key (canonical `request.conversation`,
/// `request.key.trigger_sequence`), in one atomic step:
///  1. re-read the committed reply stored for that key and verify its sequence, source,
///     content and conversation against the request; a missing reply is
///     `TriggerMissing`, a disagreement `TriggerMismatch`, decided before idempotency, so a
///     mismatching duplicate never gets `Already`;
///  2. revalidate live policy (`FeatureDisabled`), the source's authorization
///     (`Unauthorized`) and the target's availability (`TargetUnavailable`);
///  3. decide idempotency in the same statement as the insert (a unique key with a
///     conditional insert or upsert, never read-then-write) and durably enqueue the child
///     turn; a duplicate answers `Already` only once the other child is committed.
/// A refusal or an error writes nothing: a rollback leaves neither an idempotency record
/// nor a child. The idempotency record outlives its child. Any lease on a child turn is
/// computed and compared on the store's clock, never the caller's, and each child's attempt
/// count is visible on the host's own row.
class MentionTurnQueue {
 public:
  virtual ~MentionTurnQueue() = default;
  /// Enqueues the child turn of `request` at most once (see the class contract).
  [[nodiscard]] virtual Result<EnqueueOutcome, QueueError> enqueue_once(
      const MentionTurnRequest& request) noexcept = 0;

 protected:
  MentionTurnQueue() = default;
  MentionTurnQueue(const MentionTurnQueue&) = default;
  MentionTurnQueue& operator=(const MentionTurnQueue&) = default;
};

/// `dispatch_mention` failed inside the core: the roster snapshot is malformed.
struct CoreFailure {
  RosterError core{};
  friend bool operator==(const CoreFailure&, const CoreFailure&) = default;
};
/// `dispatch_mention` failed inside the host: `enqueue_once` returned this error.
struct EnqueueFailure {
  QueueError error{};
  friend bool operator==(const EnqueueFailure&, const EnqueueFailure&) = default;
};
/// Why `dispatch_mention` produced no outcome (SPEC §4): core and host errors kept apart.
/// Case files name them `Core` and `Enqueue`.
using DispatchMentionError = std::variant<CoreFailure, EnqueueFailure>;

/// Runs `mention_dispatch` and, only for `DispatchOne`, calls `queue.enqueue_once` exactly
/// once with the request unchanged (SPEC §4). A declined dispatch makes zero queue calls
/// and reports `NotDispatched{reason}`; the queue's `Enqueued`, `Already` and
/// `Refused{r}` map one to one. Never retries and never tries another mention. Errors:
/// `CoreFailure` for a malformed roster, `EnqueueFailure` with the host's error intact.
[[nodiscard]] Result<MentionDispatchOutcome, DispatchMentionError> dispatch_mention(
    MentionTurnQueue& queue, const MentionDispatchPolicy& policy, const MentionDispatchInput& input,
    const Roster& roster);

/// `dispatch_mention` on a prepared team (adr/0016): the same outcome and the same one
/// queue call; a `CoreFailure` cannot happen.
[[nodiscard]] Result<MentionDispatchOutcome, DispatchMentionError> dispatch_mention(
    MentionTurnQueue& queue, const MentionDispatchPolicy& policy, const MentionDispatchInput& input,
    const Team& team);

/// The wire token of `refusal`, e.g. `target_unavailable`.
[[nodiscard]] constexpr std::string_view name(EnqueueRefusal refusal) noexcept {
  switch (refusal) {
    case EnqueueRefusal::Unauthorized:
      return "unauthorized";
    case EnqueueRefusal::TargetUnavailable:
      return "target_unavailable";
    case EnqueueRefusal::FeatureDisabled:
      return "feature_disabled";
  }
  detail::unreachable();
}
/// The refusal whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<EnqueueRefusal> enqueue_refusal_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllEnqueueRefusals);
}
/// The sentence a model may repeat (SPEC §5): every refusal is reached only after a target
/// resolved, so `Unauthorized` and `TargetUnavailable` render `kNoAvailableTarget` and
/// `FeatureDisabled` renders `Disabled`'s sentence verbatim.
[[nodiscard]] constexpr std::string_view to_string(EnqueueRefusal refusal) noexcept {
  switch (refusal) {
    case EnqueueRefusal::Unauthorized:
      return kNoAvailableTarget;
    case EnqueueRefusal::TargetUnavailable:
      return kNoAvailableTarget;
    case EnqueueRefusal::FeatureDisabled:
      return to_string(NoDispatchReason::Disabled);
  }
  detail::unreachable();
}

/// The wire token of `kind`, e.g. `trigger_mismatch`.
[[nodiscard]] constexpr std::string_view name(QueueErrorKind kind) noexcept {
  switch (kind) {
    case QueueErrorKind::Unavailable:
      return "unavailable";
    case QueueErrorKind::TriggerMissing:
      return "trigger_missing";
    case QueueErrorKind::TriggerMismatch:
      return "trigger_mismatch";
    case QueueErrorKind::Indeterminate:
      return "indeterminate";
    case QueueErrorKind::InvalidRequest:
      return "invalid_request";
    case QueueErrorKind::Internal:
      return "internal";
  }
  detail::unreachable();
}
/// The kind whose wire token is `token`, or nothing.
[[nodiscard]] constexpr std::optional<QueueErrorKind> queue_error_kind_from_name(
    std::string_view token) noexcept {
  return detail::enum_from_name(token, kAllQueueErrorKinds);
}

/// The error's variant name as the case files spell it: `Core` or `Enqueue`.
[[nodiscard]] std::string_view name(const DispatchMentionError& error) noexcept;
/// A message: the core error's own, or the host's kind followed by its message verbatim.
[[nodiscard]] std::string to_string(const DispatchMentionError& error);

}  // namespace thm
