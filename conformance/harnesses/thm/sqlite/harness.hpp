#pragma once
/// \file
/// `thm::sqlite::SqliteHarness`: the conformance harness over `SqliteQueue`. Every session
/// is its own connection to one database file; the host's writes and the inspector use one
/// more. EQ-23 runs an enqueue in a forked child process and kills it with SIGKILL.

#include <cstdint>
#include <memory>
#include <string>

#include "thm/conformance/store_harness.hpp"
#include "thm/sqlite/sqlite_queue.hpp"

namespace thm::sqlite {

/// One database file. Capabilities: hooks, row locking (`BEGIN IMMEDIATE` serialises
/// writers), persistent, SQL schema, leases on SQLite's real clock, and `Options`' limits.
class SqliteSetup {
 public:
  using Store = SqliteQueue;
  /// A fresh database in a new directory under the system's temporary directory, removed
  /// with the harness.
  SqliteSetup();
  /// The database at `path`: created when missing. `reset` deletes every row of the thm
  /// tables in it, so point it only at a scratch file.
  explicit SqliteSetup(std::string path, Options options = {});
  ~SqliteSetup();
  SqliteSetup(const SqliteSetup&) = delete;
  SqliteSetup& operator=(const SqliteSetup&) = delete;

  [[nodiscard]] std::string name() const { return "sqlite"; }
  [[nodiscard]] conformance::Capabilities capabilities() const;
  /// A new connection whose steps call `hook`.
  [[nodiscard]] Result<std::unique_ptr<SqliteQueue>, QueueError> open(TransactionHook hook) const;
  /// SQLite has no row locks: the write lock (`BEGIN IMMEDIATE`) of a transaction on a
  /// connection of its own holds every row, the child's among them, until the `Hold` ends.
  [[nodiscard]] std::unique_ptr<conformance::Hold> hold_child(std::uint64_t child_id) const;

  /// The database file.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string directory_;  // the temporary directory, when the setup made one
  std::string path_;
  Options options_;
};

/// The harness: `SqliteHarness harness;` or `SqliteHarness harness(path, options)`.
using SqliteHarness = conformance::StoreHarness<SqliteSetup>;

}  // namespace thm::sqlite
