#pragma once
/// \file
/// The host queue as the model sees it (SPEC §4's host transaction contract,
/// queue-conformance.md §5): one step at a time, no threads, no clocks of its own. The
/// conformance suite's EQ-25 drives a real host queue and this model with the same commands
/// and compares what each says. Plain over fast: maps keyed by the canonical turn key.
///
/// Where the contract leaves a host a choice, the model answers with every answer a
/// conforming host may give (`Allowed`), never with one guess.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "thm/model/model.hpp"

namespace thm::model {

/// A store timestamp in milliseconds since the Unix epoch (the store's clock, never a
/// caller's).
using Millis = std::int64_t;

/// §3.3: the key one child turn is admitted under: the canonical desk ("General" for
/// every General spelling), the exact thread root (absent = the channel) and the trigger.
struct TurnKey {
  std::string desk;
  std::optional<std::uint64_t> thread_root;
  std::uint64_t sequence = 0;
  auto operator<=>(const TurnKey&) const = default;
};
/// The key of a reply or request in `conversation` at `sequence`.
TurnKey turn_key(const DispatchConversation& conversation, std::uint64_t sequence);

/// A committed agent reply as the host stores it; `hop` is its depth in the chain.
struct StoredReply {
  DispatchConversation conversation;
  std::uint64_t sequence = 0;
  std::string author_id;
  std::string content;
  std::uint32_t hop = 0;
};

/// The answers a conforming host may give to one enqueue, as tokens: `enqueued`,
/// `already`, `refused:<reason>` (`feature_disabled`, `unauthorized`,
/// `target_unavailable`) or `error:<kind>` (`trigger_missing`, `trigger_mismatch`).
/// Several when several refusals or errors apply at once and the contract does not order
/// them (a request that fails trigger validation may be reported as either trigger error);
/// every one of those writes nothing. Transient failures (`unavailable`, `indeterminate`)
/// are not decisions, so the model does not list them; its caller accounts for them.
using Allowed = std::set<std::string>;

/// Whether something holds: certainly not, certainly, or either way, where the contract
/// leaves the host the choice.
enum class Tri : std::uint8_t { No, Yes, Either };

/// The children a claim may take. A claim must take one of `must` when it is not empty, and
/// may take only one of `may` (which holds `must`). They differ by leases that expire at
/// exactly this instant, which a host may treat either way.
struct Claimable {
  std::vector<TurnKey> must;
  std::vector<TurnKey> may;
};

/// A child turn: the request as first accepted, its claims so far and its lease.
struct QueuedChild {
  TurnRequest request{};
  std::uint32_t attempts = 0;
  std::optional<Millis> lease_expires_at{};
  bool completed = false;
  bool failed = false;  // given back with no attempts left
};

/// The model host queue. `max_attempts` is how many claims a child may receive.
class TurnQueue {
 public:
  explicit TurnQueue(std::uint32_t max_attempts) : max_attempts_(max_attempts) {}

  // The host's own writes.
  void commit_reply(const StoredReply& reply);
  void set_policy(Policy policy) { policy_ = policy; }
  void set_authorized(const std::string& source, const std::string& target, bool authorized);
  void set_available(const std::string& agent, bool available);

  /// What the host may answer to `request` now, without changing anything.
  Allowed answers(const TurnRequest& request) const;
  /// Records the answer the host gave, which must be one of `answers(request)`: an
  /// `enqueued` answer admits the child; every other answer writes nothing.
  void record(const TurnRequest& request, const std::string& answer);

  /// The children a claim at `now` may take: pending, attempts left, and no lease or one
  /// that has expired (`must`: expired before `now`; `may` adds those expiring at `now`).
  Claimable claimable(Millis now) const;
  /// The claim of `key` at `now` for `duration` ms: one more attempt, expiry `now + duration`.
  void claim(const TurnKey& key, Millis now, Millis duration);
  /// Whether the lease of `key` taken by claim number `attempt` may still be renewed,
  /// completed or failed at `now` (otherwise those answer `stale_token`): `Yes` before its
  /// expiry; `No` once the child was claimed again, completed or failed; `Either` from its
  /// expiry on while no one has claimed it again (a host may accept a late answer).
  Tri live(const TurnKey& key, std::uint32_t attempt, Millis now) const;
  void renew(const TurnKey& key, Millis now, Millis duration);
  void complete(const TurnKey& key);
  /// Gives the child back: claimable at once while attempts remain (a host with retry
  /// backoff runs the suite with none), else failed for good.
  void fail(const TurnKey& key);

  /// Every admitted child, by key (a record exists exactly for these keys).
  const std::map<TurnKey, QueuedChild>& children() const { return children_; }

 private:
  std::uint32_t max_attempts_;
  Policy policy_;
  std::map<TurnKey, StoredReply> replies_;
  std::set<std::pair<std::string, std::string>> forbidden_;
  std::set<std::string> available_;
  std::map<TurnKey, QueuedChild> children_;
};

}  // namespace thm::model
