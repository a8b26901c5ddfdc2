#pragma once
/// \file
/// `thm::sqlite::client`: the one wrapper over SQLite's C API, shared by `SqliteQueue`, its
/// conformance harness, its mutants and the `thm` tool: a connection, its statements and a
/// write transaction. Failures are values (`QueueError`, or SQLite's result code where a
/// caller tells codes apart); nothing throws. The header names SQLite's two handle types
/// only, so a consumer of `thm::sqlite` needs no SQLite include path.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "thm/queue/queue.hpp"
#include "thm/result.hpp"
#include "thm/store/store.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace thm::sqlite::client {

/// SQLite's result codes that callers compare a step with (`SQLITE_OK`, `SQLITE_ROW`,
/// `SQLITE_DONE`, `SQLITE_ERROR`, and the extended `SQLITE_CONSTRAINT_UNIQUE`); every other
/// code is a failure to hand to `Connection::failure`.
inline constexpr int kOk = 0;
inline constexpr int kError = 1;
inline constexpr int kRow = 100;
inline constexpr int kDone = 101;
inline constexpr int kConstraintUnique = 2067;

/// How a connection may use its file.
enum class Access : std::uint8_t {
  /// Reads only; the file must exist.
  ReadOnly,
  /// Reads and writes; the file must exist.
  ReadWrite,
  /// Reads and writes, creating the file when it is missing.
  ReadWriteCreate,
};

/// A prepared statement. Parameters are bound by position (`?1`) or by name (`:key`; a
/// name the statement lacks is skipped); the first failed prepare or bind is remembered and
/// is what `step` answers. Ids, keys and content are bound and read as bytes (BLOBs),
/// compared byte for byte. Moves only; one thread at a time.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  /// Finalizes the statement, or, for a connection's prepared one, resets and unbinds it.
  ~Statement();

  /// Bytes (a BLOB; empty bytes are an empty BLOB, never NULL).
  Statement& bind(int index, std::string_view bytes);
  Statement& bind(const char* name, std::string_view bytes);
  /// Text (lease tokens, which SQLite makes as text).
  Statement& bind_text(int index, std::string_view text);
  Statement& bind_text(const char* name, std::string_view text);
  /// An integer.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(const char* name, std::int64_t value);
  /// An integer, or NULL when empty.
  Statement& bind(int index, std::optional<std::int64_t> value);
  Statement& bind(const char* name, std::optional<std::int64_t> value);
  /// NULL.
  Statement& bind_null(int index);
  /// How many parameters the statement has (its largest `?N`).
  [[nodiscard]] int parameters() const noexcept;

  /// The next row: `kRow`, `kDone`, or the failure's result code (the remembered one first).
  [[nodiscard]] int step() noexcept;
  /// Runs to the end, skipping rows: `kDone`, or the failure's result code.
  [[nodiscard]] int finish() noexcept;

  /// Column `column` of the current row as bytes (NULL: empty).
  [[nodiscard]] std::string bytes(int column) const;
  /// Column `column` of the current row as an integer (NULL: 0).
  [[nodiscard]] std::int64_t integer(int column) const noexcept;
  /// Whether column `column` of the current row is NULL.
  [[nodiscard]] bool null(int column) const noexcept;

 private:
  friend class Connection;
  Statement(sqlite3_stmt* statement, bool owned, int rc) noexcept;
  // The parameter's index, or 0 when the statement lacks it or a failure is remembered.
  [[nodiscard]] int index(const char* name) const noexcept;
  Statement& remember(int rc) noexcept;

  sqlite3_stmt* statement_;
  bool owned_;  // finalized with the handle, rather than kept by the connection
  int rc_;      // the first failure, or kOk
};

/// One connection to a database file, closed (its open transaction rolled back, its
/// prepared statements finalized) with the object. Moves only; one thread at a time (it
/// is opened without SQLite's connection mutex).
class Connection {
 public:
  /// Opens the database at `path`. Statements wait up to `busy_timeout` for another
  /// connection's lock (zero: not at all); result codes are extended. `Unavailable` when
  /// the file cannot be opened.
  [[nodiscard]] static Result<Connection, QueueError> open(const std::string& path, Access access,
                                                           std::chrono::milliseconds busy_timeout);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  /// The statement for `sql`, prepared once per connection and kept for its lifetime;
  /// `sql` must be a string literal (the statements are kept by its address). Each handle
  /// resets and unbinds the statement when it goes.
  [[nodiscard]] Result<Statement, QueueError> prepared(const char* sql);
  /// A statement prepared for one use, finalized with the handle; a failed prepare is what
  /// its first `step` answers.
  [[nodiscard]] Statement statement(const std::string& sql) noexcept;
  /// Runs `sql` (a string literal, as for `prepared`) to the end, ignoring rows.
  [[nodiscard]] Result<Committed, QueueError> run(const char* sql);
  /// Runs every statement of `sql`, a script, ignoring rows. When one fails: `Unavailable`,
  /// whose message is SQLite's.
  [[nodiscard]] Result<Committed, QueueError> execute(const char* sql);

  /// The error for SQLite result code `rc` while doing `what`: a lock wait past
  /// `busy_timeout` or a table locked on this connection is `Unavailable` (a retry may
  /// succeed); anything else is `Internal`, with SQLite's words.
  [[nodiscard]] QueueError failure(int rc, std::string_view what) const;
  /// SQLite's message for the last failure on this connection.
  [[nodiscard]] std::string message() const;
  /// Rows the last INSERT, UPDATE or DELETE changed.
  [[nodiscard]] std::int64_t changes() const noexcept;
  /// Whether a transaction is open (SQLite is not in autocommit mode).
  [[nodiscard]] bool in_transaction() const noexcept;
  /// Caps the size of any string or BLOB at `bytes` (`SQLITE_LIMIT_LENGTH`); the cap it
  /// replaces.
  int limit_length(int bytes) noexcept;

 private:
  Connection(sqlite3* db, std::chrono::milliseconds busy_timeout) noexcept;

  sqlite3* db_;
  std::chrono::milliseconds busy_timeout_;
  std::map<const char*, sqlite3_stmt*> prepared_;
};

/// A write transaction (`BEGIN IMMEDIATE`) on one connection, rolled back when this goes
/// unless `commit` succeeded. It may begin again after a commit.
class Transaction {
 public:
  explicit Transaction(Connection& db) noexcept : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// Takes the write lock. A transaction an earlier failure left open on the connection is
  /// rolled back first.
  [[nodiscard]] Result<Committed, QueueError> begin();
  /// Commits. A failed COMMIT leaves the transaction open (busy) or already rolled back;
  /// the destructor's ROLLBACK settles either.
  [[nodiscard]] Result<Committed, QueueError> commit();

 private:
  Connection& db_;
  bool open_ = false;
};

}  // namespace thm::sqlite::client
