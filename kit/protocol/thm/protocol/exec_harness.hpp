#pragma once
/// \file
/// `ExecHarness`: the conformance harness over an adapter program in any language, driven
/// through the JSON-lines protocol of kit/protocol/PROTOCOL.md. `thm conformance --queue
/// 'exec:COMMAND ARGS'` runs the suite with it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/protocol/protocol.hpp"

namespace thm::protocol {

namespace detail {
class AdapterProcess;
struct ExchangeClock;
}  // namespace detail

/// How the adapter program's sessions run (PROTOCOL.md §3), as its `hello` declares.
enum class SessionMode : std::uint8_t {
  /// One process per session, each answering one request at a time.
  Processes,
  /// One process; sessions are numbers, and requests of different sessions overlap.
  Multiplexed,
};

/// Drives the adapter program `command` (run with `/bin/sh -c`). Every member throws what
/// the protocol turns up: `Unsupported` for an `unsupported` answer, `std::runtime_error`
/// naming the operation for a `failure`, a malformed, invalid or late line, or an adapter
/// that exited; a check then fails with that message. A broken process is replaced at the
/// next `reset`, so one check's failure does not spill into the next. It hands out every
/// facet: what the adapter's store has is the adapter's to say, by answering or by
/// `unsupported` (EQ-24 holds it to what it declared).
class ExecHarness final : public Harness, public Durability, public NodeFaults, public Clocks {
 public:
  /// Starts the first process and exchanges `hello`. `timeout` bounds every response
  /// (not the time a check holds a hook). Throws `std::runtime_error` when the program
  /// cannot be started or its `hello` is not protocol version 1.
  explicit ExecHarness(std::string command,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30));
  ~ExecHarness() override;
  ExecHarness(const ExecHarness&) = delete;
  ExecHarness& operator=(const ExecHarness&) = delete;

  /// The adapter's own name from `hello`, e.g. `python-sqlite`.
  [[nodiscard]] std::string queue_name() const override { return name_; }
  [[nodiscard]] Capabilities capabilities() const override { return capabilities_; }
  /// How the adapter runs its sessions.
  [[nodiscard]] SessionMode session_mode() const noexcept { return mode_; }

  void reset() override;
  [[nodiscard]] std::unique_ptr<Session> open_session() override;
  void commit_reply(const CommittedReply& reply) override;
  void set_policy(MentionDispatchPolicy policy) override;
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override;
  void set_available(const std::string& agent_id, bool available) override;
  void set_hook(TransactionHook hook) override;
  void settle(std::uint64_t child_id, Settlement how) override;
  void run_maintenance() override;
  [[nodiscard]] std::vector<IdempotencyRecord> records() override;
  [[nodiscard]] std::vector<ChildTurn> children() override;
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override;
  [[nodiscard]] Durability* durability() override { return this; }
  [[nodiscard]] NodeFaults* nodes() override { return this; }
  [[nodiscard]] Clocks* clocks() override { return this; }

  void reopen() override;
  /// Starts a fresh instance of the program for `request` and SIGKILLs it after its answer,
  /// or (with hooks) while its hook call at `BeforeCommit` waits; then `restart_store` and
  /// `reopen` on the first process (PROTOCOL.md §5).
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, KillPoint when) override;
  // The node operations (PROTOCOL.md §4), each one request to the first process, never
  // queued behind a session's: the suite fails a node while sessions are enqueueing. Each is
  // answered `unsupported` by an adapter without `nodes`, and throws `Unsupported` then.
  /// The adapter's `count` from `node_count`: how many nodes its store runs on.
  [[nodiscard]] std::size_t node_count() override;
  /// The adapter's `node` from `leader`: the node that takes writes now. Throws
  /// `std::runtime_error` with the adapter's words when it answers `failure` (no leader).
  [[nodiscard]] std::size_t leader() override;
  /// Asks the adapter to kill every process of `node`; returns once it answered that they
  /// are dead. Throws `ProtocolError` for a `node` above 2^32-1, which the protocol cannot
  /// carry.
  void kill_node(std::size_t node) override;
  /// Asks the adapter to start killed node `node` again; returns once it rejoined.
  void restart_node(std::size_t node) override;
  /// Asks the adapter to stop every process of `node`; returns once they are stopped.
  void pause_node(std::size_t node) override;
  /// Asks the adapter to continue the processes of `node` that `pause_node` stopped.
  void resume_node(std::size_t node) override;
  /// Asks the adapter to do its failover; returns once a node takes writes again. Bounded
  /// by the answer timeout, like every request.
  void recover() override;
  [[nodiscard]] StoreTime store_now() override;
  void advance_store_clock(std::chrono::milliseconds by) override;
  /// With an adapter that declares `skewable_client_clock`, moves the system clock of its
  /// processes (libfaketime) to where `clock` says; otherwise does nothing, as for a host
  /// that reads no client clock (PROTOCOL.md §5).
  void set_client_clock(ClientClock clock) override;

 private:
  class ExecSession;
  struct HookState;
  struct IdleProcesses;

  [[nodiscard]] std::shared_ptr<detail::AdapterProcess> start_process();
  [[nodiscard]] std::shared_ptr<detail::AdapterProcess> control();

  std::string command_;
  std::shared_ptr<detail::ExchangeClock> clock_;
  std::shared_ptr<HookState> hooks_;
  std::shared_ptr<IdleProcesses> idle_;
  std::string name_;
  Capabilities capabilities_{};
  SessionMode mode_ = SessionMode::Processes;
  bool skewable_ = false;
  // With `skewable_client_clock`: every process runs under libfaketime, which reads the
  // offset from this file.
  std::string faketime_file_;
  std::vector<std::string> environment_;
  std::mutex control_mutex_;
  std::shared_ptr<detail::AdapterProcess> control_;
};

/// Ends every adapter program this process runs, for a run being interrupted (SIGINT,
/// SIGTERM): SIGKILLs the process group of each one started by any `ExecHarness` and not
/// yet reaped, so that every call waiting on one fails at once, and makes every later start
/// of one throw `std::runtime_error`, so no check starts another. For good: the process is
/// expected to end. Call it from a normal thread (it takes a lock), never from a signal
/// handler; calling it again does nothing more.
void interrupt_adapters() noexcept;

}  // namespace thm::protocol
