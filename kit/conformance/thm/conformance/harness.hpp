#pragma once
/// \file
/// The harness a host implements so the conformance suite can drive its queue
/// (queue-conformance.md §8): independent sessions, the host's own writes (committed
/// replies, policy, authorization, availability), child lifecycle, a raw inspector, optional
/// hook points and declared capabilities.
///
/// Harness members may throw; a check that meets an exception reports `fail` with the
/// exception's message ("harness error: ..."). Sessions' `enqueue_once` answers exactly as
/// the host's `MentionTurnQueue` would. The rows the inspector reads are the stores' own
/// (`IdempotencyRecord`, `ChildTurn`, thm/store/store.hpp).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "thm/core.hpp"
#include "thm/store/store.hpp"

namespace thm::conformance {

/// What a harness declares it can do (queue-conformance.md §8). Checks that need a missing
/// capability are skipped with the reason.
struct Capabilities {
  /// `set_hook` works: the store calls the hook at every `HookPoint` (EQ-02, 03, 06, 08, 12, 13).
  bool hooks = false;
  /// A read of the committed reply holds it until commit, or writers are serialised (EQ-13).
  bool row_locking = false;
  /// What was committed survives the host process being killed: `reopen` closes and reopens
  /// the store, and `enqueue_then_kill` kills a host process mid-enqueue (EQ-05, EQ-23).
  bool persistent = false;
  /// `unique_key_index` reports the idempotency table's unique index (EQ-04).
  bool sql_schema = false;
  /// The largest content the store accepts, in bytes, if it has a limit (EQ-21).
  std::optional<std::size_t> max_content_bytes{};
  /// The largest source, target or desk id the store accepts, in bytes, if it has a limit.
  std::optional<std::size_t> max_id_bytes{};
  /// Sessions claim, renew, complete and fail child turns; rows show attempts and lease
  /// expiry; `store_now` reads the store's clock (EQ-14…EQ-19).
  bool leases = false;
  /// `advance_store_clock` moves the store's clock (a fake the suite owns); without it the
  /// store's clock is real and the lease checks wait for it, with short leases.
  bool injected_store_clock = false;
  /// `set_client_clock` moves every clock the host reads apart from its store's (an exec
  /// adapter: the suite runs it under libfaketime); true of a host that reads no clock of its
  /// own. Without it EQ-14 and EQ-15 pass only in part: a host that stamps leases from its own
  /// clock would pass them as well.
  bool skewable_client_clock = false;
  /// `hold_child` holds a child's row the way a transaction that writes it would, from a
  /// connection of its own (EQ-27). A store whose claims take children under a row lock
  /// declares it; protocol v1 has no such operation, so an exec adapter cannot.
  bool hold_child = false;
  /// Claims a child may receive before it is dead, if the store has a limit (EQ-18).
  std::optional<std::uint32_t> max_attempts{};
  /// The most sessions the store lets the suite hold open at once, if it has a limit (a
  /// server's free connections): the suite's races shrink to it and say so (EQ-01's 64).
  std::optional<std::size_t> max_sessions{};
  /// The store runs on several nodes, which the suite may fail one at a time: `node_count`,
  /// `leader`, `kill_node`, `restart_node`, `pause_node`, `resume_node` and `recover` work
  /// (EQ-28…EQ-30).
  bool nodes = false;
  /// With `nodes`: how long the cluster takes to notice that its leader is gone and to
  /// replace it (etcd's election timeout), if it replaces one on its own. EQ-30 pauses the
  /// leader for twice as long; without it, for one second.
  std::optional<std::chrono::milliseconds> election_timeout{};

  friend bool operator==(const Capabilities&, const Capabilities&) = default;
};

/// A child's row held by `Harness::hold_child`, until this is destroyed (which must not
/// throw: it ends the holding transaction).
class Hold {
 public:
  virtual ~Hold() = default;

 protected:
  Hold() = default;
  Hold(const Hold&) = default;
  Hold& operator=(const Hold&) = default;
};

/// Thrown by a harness or session operation whose capability is not declared (EQ-24).
struct Unsupported : std::logic_error {
  using std::logic_error::logic_error;
};

/// How EQ-22 ends a child's life before checking that its record still answers `Already`.
enum class Settlement : std::uint8_t { Complete, Fail, DeadLetter, Delete };

/// The snake_case token of `how`, as reports and protocol v1 write it: `complete`, `fail`,
/// `dead_letter` or `delete`.
[[nodiscard]] constexpr std::string_view name(Settlement how) noexcept {
  switch (how) {
    case Settlement::Complete:
      return "complete";
    case Settlement::Fail:
      return "fail";
    case Settlement::DeadLetter:
      return "dead_letter";
    case Settlement::Delete:
      return "delete";
  }
  return "complete";
}

/// Where EQ-23 kills the host process that is enqueueing.
enum class KillPoint : std::uint8_t {
  /// After `enqueue_once` returned its answer to the caller.
  AfterAnswer,
  /// Inside the enqueue transaction, at `HookPoint::BeforeCommit`: nothing may survive.
  InsideTransaction,
};

/// One independent connection to the store: its own connection or handle, never a shared
/// pool of one (queue-conformance.md EQ-01).
class Session {
 public:
  virtual ~Session() = default;
  /// The host's `MentionTurnQueue::enqueue_once` over this session.
  virtual Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) = 0;

  // ---- leases (only with `Capabilities::leases`; the defaults throw `Unsupported`) ----------
  /// Claims a claimable child for `duration` of store time; the store computes the expiry on
  /// its own clock and counts the attempt. Nothing when no child is claimable.
  virtual Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) {
    (void)duration;
    throw Unsupported("claim");
  }
  /// Extends the live lease `token` by `duration` from now; the expiry as stored.
  virtual Result<StoreTime, LeaseError> renew(const std::string& token,
                                              std::chrono::milliseconds duration) {
    (void)token;
    (void)duration;
    throw Unsupported("renew");
  }
  /// Completes the leased child; its state afterwards.
  virtual Result<TurnState, LeaseError> complete(const std::string& token) {
    (void)token;
    throw Unsupported("complete");
  }
  /// Gives the leased child back; its state afterwards. While attempts remain the child must
  /// be claimable again at once (run a host with retry backoff with none for the suite).
  virtual Result<TurnState, LeaseError> fail(const std::string& token) {
    (void)token;
    throw Unsupported("fail");
  }

 protected:
  Session() = default;
  Session(const Session&) = default;
  Session& operator=(const Session&) = default;
};

/// What survives a crash (only with `Capabilities::persistent`; EQ-05, EQ-23).
class Durability {
 public:
  virtual ~Durability() = default;
  /// Closes the harness's own connections and opens them again; what was committed must
  /// still be there. A reconnect, not a server restart: EQ-25 may call it often. Sessions
  /// opened earlier are closed by the suite first.
  virtual void reopen() = 0;
  /// Runs `request` through `enqueue_once` in a separate host process with its own
  /// connection, kills that process with SIGKILL at `when`, then restarts the store's server
  /// if it has one and reopens the store. Returns the answer the killed process had
  /// received: set for `AfterAnswer`, empty for `InsideTransaction` (EQ-23). A harness that
  /// cannot stop a process inside its transaction throws `Unsupported` for that point, and
  /// EQ-23 notes what it did not test. The child must open its own connection (never use one
  /// inherited across `fork`) and report its answer over a pipe; `StoreHarness` is an example.
  virtual std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) = 0;

 protected:
  Durability() = default;
  Durability(const Durability&) = default;
  Durability& operator=(const Durability&) = default;
};

/// A store on several nodes, which the suite fails one at a time (only with
/// `Capabilities::nodes`; EQ-28…EQ-30). Faults are made from the suite's own thread while
/// sessions call `enqueue_once` on theirs. A session whose node is gone answers as the host's
/// queue would (`Unavailable` or `Indeterminate`) and reaches the node that takes writes on a
/// later call.
class NodeFaults {
 public:
  virtual ~NodeFaults() = default;
  /// How many nodes the store runs on (two at the least), numbered from 0.
  [[nodiscard]] virtual std::size_t node_count() = 0;
  /// The node that takes writes now (the leader, or the primary), as the cluster says.
  /// Throws when no node does.
  [[nodiscard]] virtual std::size_t leader() = 0;
  /// Kills every process of node `node` with SIGKILL: whatever it had not made durable, or
  /// not yet passed on, is gone with it.
  virtual void kill_node(std::size_t node) = 0;
  /// Starts killed node `node` again the way the host's operators bring a node back: it
  /// rejoins the cluster (a primary that lost its place, as a standby of the new primary).
  virtual void restart_node(std::size_t node) = 0;
  /// Stops every process of node `node` with SIGSTOP, a stand-in for a partition that cuts
  /// it off, until `resume_node`.
  virtual void pause_node(std::size_t node) = 0;
  /// Continues the processes `pause_node` stopped, with SIGCONT.
  virtual void resume_node(std::size_t node) = 0;
  /// Returns once a node takes writes again, doing what the host's failover does after the
  /// faults so far (a replicated store whose primary is dead: promote a standby; a
  /// consensus store: wait for a leader). Commits may still wait for more than that node (a
  /// new primary whose only synchronous standby is the killed node, until `restart_node`
  /// rebuilds it). Throws when it cannot within its own bound.
  virtual void recover() = 0;

 protected:
  NodeFaults() = default;
  NodeFaults(const NodeFaults&) = default;
  NodeFaults& operator=(const NodeFaults&) = default;
};

/// The clocks the lease checks read and move (only with `Capabilities::leases`; EQ-14…EQ-19).
class Clocks {
 public:
  virtual ~Clocks() = default;
  /// The store's current time, read from the store's own clock (for SQL, the same
  /// expression its leases use, e.g. `statement_timestamp()` on PostgreSQL).
  [[nodiscard]] virtual StoreTime store_now() = 0;
  /// Moves the store's clock forward (only with `injected_store_clock`; the default throws
  /// `Unsupported`).
  virtual void advance_store_clock(std::chrono::milliseconds by) {
    (void)by;
    throw Unsupported("advance_store_clock");
  }
  /// The host process's own clock, which checks skew (EQ-14, EQ-15). A correct host never
  /// reads it for leases; a host with no client-side clock ignores it (the default).
  using ClientClock = std::function<StoreTime()>;
  virtual void set_client_clock(ClientClock clock) { (void)clock; }

 protected:
  Clocks() = default;
  Clocks(const Clocks&) = default;
  Clocks& operator=(const Clocks&) = default;
};

/// The host's side of the suite. One harness is used by one check at a time; sessions it
/// opens are used from many threads at once, one thread per session.
///
/// What only some stores can do comes in facets, each handed out as a pointer that is null
/// when the harness does not have it: `durability()`, `nodes()` and `clocks()`. A new
/// capability touches one facet and the stores that have it, not every class that wraps a
/// harness. A harness that cannot tell before it asks (an adapter in another process) may
/// hand a facet out whose members throw `Unsupported` for what its store refuses (EQ-24).
class Harness {
 public:
  virtual ~Harness() = default;

  /// The queue's short name, as reports show it, e.g. `memory`.
  [[nodiscard]] virtual std::string queue_name() const = 0;
  /// What the harness supports; checked both ways by EQ-24.
  [[nodiscard]] virtual Capabilities capabilities() const = 0;

  /// Empties the store: no replies, records or children; dispatch disabled; every pair
  /// authorized; no agent available; no hook. Called before every check run. Sessions
  /// opened earlier are closed by the suite before it resets.
  virtual void reset() = 0;
  /// A new independent session.
  [[nodiscard]] virtual std::unique_ptr<Session> open_session() = 0;

  // ---- the host's own writes, each committed before it returns ----------------------------
  /// Stores (or, for an existing conversation and sequence, edits) a committed reply.
  virtual void commit_reply(const CommittedReply& reply) = 0;
  /// The live dispatch policy every enqueue revalidates.
  virtual void set_policy(MentionDispatchPolicy policy) = 0;
  /// Allows or forbids `source_id` to hand turns to `target_id` (all pairs start allowed).
  virtual void set_authorized(const std::string& source_id, const std::string& target_id,
                              bool authorized) = 0;
  /// Marks `agent_id` available as a target, or not (all agents start unavailable).
  virtual void set_available(const std::string& agent_id, bool available) = 0;
  /// Installs a hook every later enqueue step calls (only with `capabilities().hooks`; the
  /// default throws `Unsupported`, EQ-24); an empty function removes it.
  virtual void set_hook(TransactionHook hook) {
    if (hook) throw Unsupported("set_hook");
  }

  // ---- lifecycle -----------------------------------------------------------------------------
  /// Ends child `child_id` the given way (complete, fail, dead-letter or delete/archive).
  virtual void settle(std::uint64_t child_id, Settlement how) = 0;
  /// Runs the host's maintenance and pruning, as it would in production.
  virtual void run_maintenance() = 0;
  /// Holds child `child_id`'s row from a connection of its own, in an open transaction that
  /// locks it as an update would (PostgreSQL: `SELECT … FOR UPDATE`; a store that locks the
  /// whole database: its write lock), until the returned `Hold` is destroyed (only with
  /// `capabilities().hold_child`; the default throws `Unsupported`). A claim meanwhile must
  /// skip that child or wait for it, never lease it twice (EQ-27).
  [[nodiscard]] virtual std::unique_ptr<Hold> hold_child(std::uint64_t child_id) {
    (void)child_id;
    throw Unsupported("hold_child");
  }

  // ---- inspector: raw rows, read outside any enqueue -----------------------------------------
  /// Every idempotency record, as stored.
  [[nodiscard]] virtual std::vector<IdempotencyRecord> records() = 0;
  /// Every child turn, as stored.
  [[nodiscard]] virtual std::vector<ChildTurn> children() = 0;
  /// The columns of the idempotency table's unique index, and whether it is partial (only
  /// with `capabilities().sql_schema`).
  [[nodiscard]] virtual std::optional<UniqueIndex> unique_key_index() { return std::nullopt; }

  // ---- facets ----------------------------------------------------------------------------------
  /// Crashes and reopening (`persistent`), or null.
  [[nodiscard]] virtual Durability* durability() { return nullptr; }
  /// Node faults (`nodes`), or null.
  [[nodiscard]] virtual NodeFaults* nodes() { return nullptr; }
  /// The store's clock and the client's (`leases`), or null.
  [[nodiscard]] virtual Clocks* clocks() { return nullptr; }

 protected:
  Harness() = default;
  Harness(const Harness&) = default;
  Harness& operator=(const Harness&) = default;
};

/// `*facet`, or `Unsupported(what)` when the harness has no such facet: a check reaches a
/// facet's member as it would a harness's, and meets the same exception when it is missing.
template <class Facet>
[[nodiscard]] Facet& require(Facet* facet, const char* what) {
  if (facet == nullptr) throw Unsupported(what);
  return *facet;
}

}  // namespace thm::conformance
