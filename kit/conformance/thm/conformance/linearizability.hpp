#pragma once
/// \file
/// A linearizability checker for a queue's recorded history (queue-conformance.md §9): is
/// there one order of the calls, each taking effect at one instant between its invocation
/// and its return, in which every answer is what one child turn's sequential specification
/// gives? Written from Wing and Gong's search with Lowe's memo of (calls taken, state), per
/// key (P-compositionality, as Porcupine checks), so a history of many keys is many small
/// searches.
///
/// The sequential specification of one key: enqueue admits it once (`Enqueued` then, and
/// `Already` ever after; `Refused` changes nothing); a claim leases its pending child when
/// it has no live lease on the store's clock and attempts remain, counting the attempt; a
/// renewal extends a live lease from store time now; complete ends the child; fail gives it
/// back (or ends it, as the store answers); a token is live until its lease expires on the
/// store's clock or a later claim, complete or fail supersedes it. A call of unknown outcome
/// (Jepsen's `:info`: `indeterminate`, `internal`, an exception) may take effect at any time
/// after its invocation, or never; a definite error (`unavailable`, a mismatch) did not
/// happen and is no operation.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace thm::conformance {

/// One call of a history, as the checker reads it.
struct Operation {
  /// `Hold` is no call: the host held the key's child's row from `invoke` to `complete`
  /// (`Harness::hold_child`), and a claim meanwhile may skip the child.
  enum class Kind : std::uint8_t { Enqueue, Claim, Renew, Complete, Fail, Settle, Hold };
  /// What the call answered.
  enum class Answer : std::uint8_t {
    Enqueued,  ///< enqueue admitted the key
    Already,   ///< enqueue found the key admitted
    Refused,   ///< enqueue refused: nothing written
    Leased,    ///< claim leased the key's child (`token`, `attempt`, `expires_ms`)
    Nothing,   ///< claim found nothing claimable (on every key)
    Renewed,   ///< renew extended the lease to `expires_ms`
    Stale,     ///< renew, complete or fail refused the token (`stale_token`)
    Settled,   ///< complete or fail ended the lease (`back_to_queue` for a fail that did);
               ///< for `Settle`, the host ended the child (complete, fail, dead-letter, delete)
    Unknown,   ///< the outcome is unknown: it may or may not have happened
  };
  Kind kind = Kind::Enqueue;
  Answer answer = Answer::Enqueued;
  /// The key: the request's for an enqueue, the leased child's for a claim, the child of the
  /// lease the token was issued for (renew, complete, fail), the settled child's. Empty for a
  /// claim that leased nothing or whose outcome is unknown.
  std::string key{};
  std::string token{};
  std::uint32_t attempt = 0;
  std::int64_t duration_ms = 0;  ///< claim, renew: the duration asked for
  std::int64_t expires_ms = 0;   ///< `Leased`, `Renewed`: the expiry answered, store time
  bool back_to_queue = false;
  /// Real time, in any unit both share: when the call began and when it returned (ignored
  /// for `Unknown`, which may take effect any time after `invoke`).
  std::uint64_t invoke = 0;
  std::uint64_t complete = 0;
  /// What the store's clock read before the call began and after it returned, when known: the
  /// store time at which the call took effect lies between them.
  std::optional<std::int64_t> store_at_least_ms{};
  std::optional<std::int64_t> store_at_most_ms{};
  friend bool operator==(const Operation&, const Operation&) = default;
};

struct LinearizabilityOptions {
  /// Claims a child may receive (the harness's `max_attempts`); unknown when not declared,
  /// and then a claim may find a child with attempts behind it spent.
  std::optional<std::uint32_t> max_attempts{};
  /// How far apart two readings of the store's clock may be and still be the same instant
  /// (a store that rounds its times); 0 for a clock the suite moves.
  std::int64_t clock_slack_ms = 0;
  /// The most search states one key may take before the checker gives up on it.
  std::size_t budget = 1'000'000;
};

struct LinearizabilityResult {
  enum class Verdict : std::uint8_t { Linearizable, NotLinearizable };
  Verdict verdict = Verdict::Linearizable;
  /// For `NotLinearizable`: the first key no order explains, its operations (indexes into the
  /// history, in invocation order), how many of them the longest order took, and the one
  /// whose return that order could not pass (no answer it could give fit).
  std::string key{};
  std::vector<std::size_t> operations{};
  std::size_t culprit = 0;
  std::size_t longest = 0;
  /// Keys judged, and keys left unjudged: a lease call of unknown outcome (whose lease the
  /// checker cannot follow), or a search that spent its budget.
  std::size_t keys = 0;
  std::size_t unjudged = 0;
};

/// Checks `history`. Never throws on any history; an operation it cannot place (a renew with
/// no key) is left out.
[[nodiscard]] LinearizabilityResult check_linearizability(std::span<const Operation> history,
                                                          const LinearizabilityOptions& options);

/// The token of `kind` as the exported history's `f` has it: `enqueue`, `claim`, `renew`,
/// `complete`, `fail`, `settle`, `hold`.
[[nodiscard]] std::string_view name(Operation::Kind kind) noexcept;
/// The token of `answer` as the exported history has it: `enqueued`, `already`, `refused`,
/// `leased`, `nothing`, `renewed`, `stale`, `settled`, `unknown`.
[[nodiscard]] std::string_view name(Operation::Answer answer) noexcept;

/// `operation` in a line: `claim 30000 ms -> leased attempt 1, expires 1893456030000`.
[[nodiscard]] std::string describe(const Operation& operation);

}  // namespace thm::conformance
