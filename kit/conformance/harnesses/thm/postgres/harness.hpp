#pragma once
/// \file
/// `thm::postgres::PostgresHarness`: the conformance harness over `PostgresQueue`. Every
/// session is its own connection (its own server backend); the host's writes and the
/// inspector use one more. EQ-23 kills a forked child process mid-enqueue and, when given a
/// restart command, restarts the server before reconnecting.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "thm/conformance/store_harness.hpp"
#include "thm/postgres/postgres_queue.hpp"

namespace thm::postgres {

/// One database on a server. Capabilities: those of every SQL reference store (the reply is
/// read `FOR SHARE`, the policy rows it reads locked until commit; leases on the server's
/// real clock), with `Options`' limits, and as `max_sessions` the sessions the server had
/// room for when the setup was made (`free_sessions`, thm/postgres/server.hpp).
class PostgresSetup : public conformance::SqlStoreSetup<PostgresQueue, Options>,
                      public conformance::RestartCommand {
 public:
  /// `$THM_POSTGRES` as libpq conninfo, a scratch database (unset: throws
  /// `std::runtime_error`, never falling back to libpq's defaults); EQ-23 restarts the server
  /// with the shell command `$THM_POSTGRES_RESTART`, if set.
  PostgresSetup();
  /// `conninfo`; `restart_command`, if not empty, is a shell command that restarts the
  /// server (EQ-23). `reset` empties the thm tables: use a scratch database.
  explicit PostgresSetup(std::string conninfo, std::string restart_command = {},
                         Options options = {});

  /// `postgres`.
  [[nodiscard]] std::string queue_name() const { return "postgres"; }
  /// The SQL stores' capabilities, and as `max_sessions` the free sessions counted at setup.
  [[nodiscard]] conformance::Capabilities capabilities() const;
  /// `SELECT … FOR UPDATE` of the child's row on a connection of its own, in a transaction
  /// that the `Hold` rolls back.
  [[nodiscard]] std::unique_ptr<conformance::Hold> hold_child(std::uint64_t child_id) const;

 private:
  std::size_t max_sessions_ = 0;
};

/// The harness: `PostgresHarness harness;` or `PostgresHarness harness(conninfo)`.
using PostgresHarness = conformance::StoreHarness<PostgresSetup>;

}  // namespace thm::postgres
