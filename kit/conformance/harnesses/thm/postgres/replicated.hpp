#pragma once
/// \file
/// `thm::postgres::ReplicatedPostgresHarness`: the PostgreSQL queue on a primary and a
/// streaming-replication standby, two throwaway clusters that
/// `kit/scripts/pg_replicated_cluster` starts, with the node faults of EQ-28…EQ-30. The queue
/// and its SQL functions are the single-server ones; sessions reach whichever node takes
/// writes through libpq's multi-host conninfo (`target_session_attrs=read-write`), and the
/// harness's `recover` is the failover a host's operators (or their failover manager) do.

#include <cstddef>
#include <cstdint>
#include <string>

#include "thm/conformance/store_harness.hpp"
#include "thm/postgres/harness.hpp"

namespace thm::postgres {

/// How the pair replicates, as `kit/scripts/pg_replicated_cluster start` was told.
enum class Replication : std::uint8_t {
  /// The standby is named synchronous: a commit returns once the standby has flushed it.
  Synchronous,
  /// Commits do not wait for the standby. The harness then holds the primary's WAL senders
  /// stopped except while the host's own writes replicate (it waits for them to be
  /// replayed): a standby as far behind as asynchronous replication lets it be, so that
  /// the enqueues a failover loses are lost every time rather than by luck.
  Asynchronous,
};

/// The pair in `directory` (`kit/scripts/pg_replicated_cluster start DIRECTORY PORT MODE`), with
/// that script at `script` for its faults. Capabilities: the single server's, and `nodes`
/// (node 0 was started as the primary, node 1 as its standby; either may be primary later).
class ReplicatedPostgresSetup : public PostgresSetup {
 public:
  /// `$THM_POSTGRES_REPLICATED` as the directory (unset: throws `std::runtime_error`), and
  /// this checkout's `kit/scripts/pg_replicated_cluster`.
  ReplicatedPostgresSetup();
  /// The pair in `directory`, whose mode and port the script wrote there; throws
  /// `std::runtime_error` when they cannot be read.
  ReplicatedPostgresSetup(std::string directory, std::string script);

  /// `postgres-replicated-sync` or `postgres-replicated-async`.
  [[nodiscard]] std::string queue_name() const;
  /// The server's capabilities with `nodes`; no restart command (EQ-23 kills its host
  /// process and reconnects).
  [[nodiscard]] conformance::Capabilities capabilities() const;
  /// How the pair replicates.
  [[nodiscard]] Replication replication() const noexcept { return replication_; }

  /// 2.
  [[nodiscard]] std::size_t node_count() const noexcept { return 2; }
  /// The node that is up and not in recovery; throws `std::runtime_error` when none is.
  [[nodiscard]] std::size_t leader() const;
  /// SIGKILL of the node's postmaster and every process it started.
  void kill_node(std::size_t node) const;
  /// Starts a killed node: a standby resumes streaming; a primary whose standby was
  /// promoted meanwhile is made again, by `pg_basebackup`, as the new primary's standby.
  void restart_node(std::size_t node) const;
  /// SIGSTOP and SIGCONT of the node's processes.
  void pause_node(std::size_t node) const;
  void resume_node(std::size_t node) const;
  /// A node that takes writes: the one there is, or else the standby, promoted. Never
  /// promotes while a primary answers, so two primaries never take writes at once.
  void recover() const;
  /// Asynchronous: lets the standby replay the host's write, then stops the WAL senders.
  void after_host_write() const;

 private:
  void run(const std::string& arguments) const;
  [[nodiscard]] std::string output_of(const std::string& arguments) const;

  std::string directory_;
  std::string script_;
  Replication replication_ = Replication::Synchronous;
};

/// The harness: `ReplicatedPostgresHarness harness;` or `harness(directory, script)`.
using ReplicatedPostgresHarness = conformance::StoreHarness<ReplicatedPostgresSetup>;

}  // namespace thm::postgres
