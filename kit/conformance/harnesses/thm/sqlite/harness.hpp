#pragma once
/// \file
/// `thm::sqlite::SqliteHarness`: the conformance harness over `SqliteQueue`. Every session
/// is its own connection to one database file; the host's writes and the inspector use one
/// more. EQ-23 runs an enqueue in a forked child process and kills it with SIGKILL.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "thm/conformance/store_harness.hpp"
#include "thm/conformance/temporary_directory.hpp"
#include "thm/sqlite/sqlite_queue.hpp"

namespace thm::sqlite {

/// One database file. Capabilities: those of every SQL reference store (`BEGIN IMMEDIATE`
/// serialises writers; leases on SQLite's real clock), with `Options`' limits.
class SqliteSetup : public conformance::SqlStoreSetup<SqliteQueue, Options> {
 public:
  /// A fresh database in a new directory under the system's temporary directory, removed
  /// with the harness.
  SqliteSetup() : SqliteSetup(conformance::TemporaryDirectory("thm-sqlite")) {}
  /// The database at `path`: created when missing. `reset` deletes every row of the thm
  /// tables in it, so point it only at a scratch file.
  explicit SqliteSetup(std::string path, Options options = {})
      : SqlStoreSetup(std::move(path), std::move(options)) {}

  /// `sqlite`.
  [[nodiscard]] std::string queue_name() const { return "sqlite"; }
  /// SQLite has no row locks: the write lock (`BEGIN IMMEDIATE`) of a transaction on a
  /// connection of its own holds every row, the child's among them, until the `Hold` ends.
  [[nodiscard]] std::unique_ptr<conformance::Hold> hold_child(std::uint64_t child_id) const;

  /// The database file.
  [[nodiscard]] const std::string& path() const noexcept { return where(); }

 private:
  explicit SqliteSetup(conformance::TemporaryDirectory directory)
      : SqlStoreSetup(directory.path() + "/queue.db", {}), directory_(std::move(directory)) {}

  std::optional<conformance::TemporaryDirectory> directory_;  // when the setup made one
};

/// The harness: `SqliteHarness harness;` or `SqliteHarness harness(path, options)`.
using SqliteHarness = conformance::StoreHarness<SqliteSetup>;

}  // namespace thm::sqlite
