#pragma once
/// \file
/// `thm::postgres::PostgresHarness`: the conformance harness over `PostgresQueue`. Every
/// session is its own connection (its own server backend); the host's writes and the
/// inspector use one more. EQ-23 kills a forked child process mid-enqueue and, when given a
/// restart command, restarts the server before reconnecting.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "thm/conformance/harness.hpp"
#include "thm/conformance/store_harness.hpp"
#include "thm/postgres/postgres_queue.hpp"

namespace thm::postgres {

/// Capabilities: hooks, row locking (the reply is read `FOR SHARE`, policy tables locked in
/// SHARE mode), persistent, SQL schema, leases on the server's real clock, and `Options`'
/// limits. Members throw `std::runtime_error` with the server's message when it fails.
class PostgresHarness final : public conformance::Harness {
 public:
  /// Connects with `$THM_POSTGRES` as libpq conninfo, a scratch database (unset: throws
  /// `std::runtime_error`, never falling back to libpq's defaults); EQ-23 restarts the server
  /// with the shell command `$THM_POSTGRES_RESTART`, if set.
  PostgresHarness();
  /// Connects with `conninfo`; `restart_command`, if not empty, is a shell command that
  /// restarts the server (EQ-23). `reset` empties the thm tables: use a scratch database.
  explicit PostgresHarness(std::string conninfo, std::string restart_command = {},
                           Options options = {});
  ~PostgresHarness() override;
  PostgresHarness(const PostgresHarness&) = delete;
  PostgresHarness& operator=(const PostgresHarness&) = delete;

  /// The harness over a scratch database named by `conninfo`, for a user who names one
  /// (`thm conformance --queue postgres:CONNINFO`): a database with no tables in its schema
  /// search path (thm's included) becomes one (marked with a `thm_conformance_scratch`
  /// table); one already marked is reused; any other is refused with `std::runtime_error`
  /// saying why.
  [[nodiscard]] static std::unique_ptr<PostgresHarness> open_scratch(const std::string& conninfo);

  [[nodiscard]] std::string name() const override { return "postgres"; }
  /// Everything but `injected_store_clock`, with the reference queue's limits, and as
  /// `max_sessions` the sessions the server had room for when the harness was made.
  [[nodiscard]] conformance::Capabilities capabilities() const override;
  void reset() override;
  [[nodiscard]] std::unique_ptr<conformance::Session> open_session() override;
  void commit_reply(const CommittedReply& reply) override;
  void set_policy(MentionDispatchPolicy policy) override;
  void set_authorized(const std::string& source_id, const std::string& target_id,
                      bool authorized) override;
  void set_available(const std::string& agent_id, bool available) override;
  void set_hook(TransactionHook hook) override;
  void settle(std::uint64_t child_id, conformance::Settlement how) override;
  void run_maintenance() override;
  void reopen() override;
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(
      const MentionTurnRequest& request, conformance::KillPoint when) override;
  [[nodiscard]] StoreTime store_now() override;
  [[nodiscard]] std::vector<conformance::RecordRow> records() override;
  [[nodiscard]] std::vector<conformance::ChildRow> children() override;
  [[nodiscard]] std::optional<UniqueIndex> unique_key_index() override;
  /// `SELECT … FOR UPDATE` of the child's row on a connection of its own, in a transaction
  /// that the `Hold` rolls back.
  [[nodiscard]] std::unique_ptr<conformance::Hold> hold_child(std::uint64_t child_id) override;

 private:
  [[nodiscard]] std::unique_ptr<PostgresQueue> connect() const;

  std::string conninfo_;
  std::string restart_command_;
  Options options_;
  std::shared_ptr<conformance::HookSlot> hook_ = std::make_shared<conformance::HookSlot>();
  std::unique_ptr<PostgresQueue> admin_;
  std::size_t max_sessions_ = 0;
};

}  // namespace thm::postgres
