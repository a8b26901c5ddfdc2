#pragma once
/// \file
/// `thm::postgres::client`: the one wrapper over libpq, shared by `PostgresQueue`, its
/// conformance harness, its mutants and the `thm` tool: a connection, the statements
/// prepared on it, parameters, results and a transaction. Failures are values (`QueueError`,
/// or a result whose `ok()` is false where a caller reads its SQLSTATE); nothing throws.
/// Parameters and results travel in binary (u64s as decimal text), so ids and content keep
/// every byte. The header names libpq's two handle types only, so a consumer of
/// `thm::postgres` needs no libpq include path.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "thm/queue/queue.hpp"
#include "thm/result.hpp"
#include "thm/store/store.hpp"

struct pg_conn;
struct pg_result;

namespace thm::postgres::client {

/// A type OID from `pg_type` (libpq's `Oid`), for parameters.
using Oid = unsigned int;
inline constexpr Oid kBool = 16;
inline constexpr Oid kBytea = 17;
inline constexpr Oid kInt8 = 20;
inline constexpr Oid kInt4 = 23;
inline constexpr Oid kText = 25;
inline constexpr Oid kNumeric = 1700;

/// A statement prepared on each connection on its first use there, under `name`, with
/// parameters of `types`. Run through `Connection::run`, which keeps it by address: define
/// each one once, for the program's lifetime.
struct Sql {
  const char* name = nullptr;
  const char* text = nullptr;
  std::vector<Oid> types{};
};

/// Parameters for one statement, numbered `$1`, `$2`, … in the order they are added: binary,
/// except u64s, which travel as decimal text (for `NUMERIC`, so nothing rounds them). Each
/// carries its type, for a statement run without preparing it (`Connection::execute`).
class Params {
 public:
  /// `BYTEA`: ids, keys and content, byte for byte.
  Params& bytes(std::string_view value);
  /// `TEXT`.
  Params& text(std::string_view value);
  /// `BIGINT`.
  Params& integer(std::int64_t value);
  /// `BIGINT`, or NULL when empty.
  Params& integer(std::optional<std::int64_t> value);
  /// `INTEGER`.
  Params& int4(std::int32_t value);
  /// `NUMERIC`, as decimal text.
  Params& u64(std::uint64_t value);
  /// `NUMERIC`, or NULL when empty.
  Params& u64(std::optional<std::uint64_t> value);
  /// `BOOLEAN`.
  Params& boolean(bool value);

  /// How many parameters were added.
  [[nodiscard]] int size() const noexcept { return static_cast<int>(values_.size()); }

 private:
  friend class Connection;
  Params& add(std::string value, bool null, int format, Oid type);
  // Pointers and lengths for libpq; valid while this object lives unchanged.
  void lay_out(std::vector<const char*>& pointers, std::vector<int>& lengths) const;

  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> formats_;
  std::vector<Oid> types_;
};

/// One statement's result, freed with the object. Columns are binary (`run`, `execute`) or
/// text (`script`), as the statement was sent.
class Rows {
 public:
  Rows(Rows&& other) noexcept;
  Rows& operator=(Rows&&) = delete;
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  ~Rows();

  /// Whether the statement succeeded (with or without rows).
  [[nodiscard]] bool ok() const noexcept;
  /// The failure's SQLSTATE, or empty.
  [[nodiscard]] std::string sqlstate() const;
  /// The failure's primary message, or empty.
  [[nodiscard]] std::string message() const;
  /// How many rows came back.
  [[nodiscard]] int size() const noexcept;
  /// Whether the field at `row`, `column` is NULL.
  [[nodiscard]] bool null(int row, int column) const noexcept;
  /// The field at `row`, `column` as its bytes (NULL: empty).
  [[nodiscard]] std::string bytes(int row, int column) const;
  /// A binary `BIGINT` column.
  [[nodiscard]] std::int64_t integer(int row, int column) const noexcept;
  /// A binary `BOOLEAN` column.
  [[nodiscard]] bool boolean(int row, int column) const noexcept;
  /// How many rows a command changed.
  [[nodiscard]] std::size_t changed() const noexcept;

 private:
  friend class Connection;
  explicit Rows(pg_result* result) noexcept : result_(result) {}
  [[nodiscard]] std::string field(int code) const;

  pg_result* result_;
};

/// One libpq connection and the statements prepared on it, closed with the object (a
/// transaction left open is rolled back first). Held by `std::unique_ptr`, never moved (a
/// notice handler may point at it); one thread at a time.
class Connection {
 public:
  /// Connects with libpq `conninfo` (empty: the `PG*` environment variables), with the
  /// session's `search_path` set to `search_path` unless that is empty. Notices are dropped
  /// unless `on_notice` installs a handler. `Unavailable` when the server cannot be reached;
  /// the message never quotes `conninfo`, which may hold a password.
  [[nodiscard]] static Result<std::unique_ptr<Connection>, QueueError> connect(
      const std::string& conninfo, const std::string& search_path = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Whether the connection is up.
  [[nodiscard]] bool alive() const noexcept;
  /// The server process serving this connection (what `pg_backend_pid()` says there).
  [[nodiscard]] std::int32_t backend() const noexcept;
  /// Whether the connection is inside a transaction that a failed statement aborted.
  [[nodiscard]] bool aborted() const noexcept;
  /// Re-establishes a lost connection (a restarted server), with the same parameters; its
  /// prepared statements go with the old one. Whether it is up. A live connection is left
  /// as it is, inside any transaction it is in.
  [[nodiscard]] bool reconnect();
  /// Whether the connection works, as `reconnect` makes it, and a transaction some earlier
  /// failure left open rolled back: true when it had to be re-established (the caller
  /// configures its session again). `Unavailable` when it cannot be.
  [[nodiscard]] Result<bool, QueueError> usable();

  /// Runs `sql` with `params`, preparing it first if this connection has not; a statement
  /// the server forgot (`DISCARD ALL`, a pooler) is prepared again, once. A failure is the
  /// error for doing `what`.
  [[nodiscard]] Result<Rows, QueueError> run(const Sql& sql, const Params& params,
                                             std::string_view what);
  /// One statement, not prepared, with `params` (typed as added) and binary results.
  [[nodiscard]] Rows execute(const std::string& sql, const Params& params = {});
  /// Any number of statements, no parameters, text results (a schema script, `SELECT`s
  /// whose text a caller reads).
  [[nodiscard]] Rows script(const std::string& sql);
  /// A command without parameters (`BEGIN`, `COMMIT`, `SET`, a script); a failure is the
  /// error for doing `text`.
  [[nodiscard]] Result<Committed, QueueError> command(const char* text);

  /// The error for a failed result: `Unavailable` when retrying may succeed (a lost
  /// connection, a shut-down server, a serialization failure or deadlock, a lock wait past
  /// `lock_timeout`, too many connections); `Internal` otherwise.
  [[nodiscard]] QueueError failure(const Rows& rows, std::string_view what) const;
  /// libpq's message for the connection's last failure, on one line.
  [[nodiscard]] std::string last_message() const;

  /// Called with each notice's primary message, from inside the libpq call that runs the
  /// statement which raised it.
  using NoticeHandler = void (*)(void* context, const char* message) noexcept;
  /// Installs `handler`, called with `context`, for this connection's notices.
  void on_notice(NoticeHandler handler, void* context) noexcept;

 private:
  explicit Connection(pg_conn* connection) noexcept : conn_(connection) {}
  static void receive(void* self, const pg_result* notice) noexcept;

  pg_conn* conn_;
  std::set<const Sql*> prepared_;
  NoticeHandler handler_ = nullptr;
  void* context_ = nullptr;
};

/// A transaction (`BEGIN` … `COMMIT`) on one connection, rolled back when this goes unless
/// `commit` was reached. It may begin again after a commit.
class Transaction {
 public:
  explicit Transaction(Connection& db) noexcept : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// `BEGIN`, at the session's isolation level (READ COMMITTED by default); a failure is
  /// the server's error, and leaves no transaction open.
  [[nodiscard]] Result<Committed, QueueError> begin();
  /// A COMMIT that fails on a live connection rolled back (`Unavailable`); on a lost one,
  /// nobody knows (`Indeterminate`).
  [[nodiscard]] Result<Committed, QueueError> commit();
  /// Forgets the open transaction without ending it.
  void dismiss() noexcept { open_ = false; }

 private:
  Connection& db_;
  bool open_ = false;
};

}  // namespace thm::postgres::client
