// The SQLite client: the sqlite3 C API behind the few calls the queue, its harness and its
// mutants make. Every failure is a value; nothing here throws.
#include "thm/sqlite/client.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <utility>

namespace thm::sqlite::client {

static_assert(kOk == SQLITE_OK && kError == SQLITE_ERROR && kRow == SQLITE_ROW &&
              kDone == SQLITE_DONE && kConstraintUnique == SQLITE_CONSTRAINT_UNIQUE);

namespace {

QueueError error(QueueErrorKind kind, std::string message) { return {kind, std::move(message)}; }

int open_flags(Access access) {
  switch (access) {
    case Access::ReadOnly:
      return SQLITE_OPEN_READONLY;
    case Access::ReadWrite:
      return SQLITE_OPEN_READWRITE;
    case Access::ReadWriteCreate:
      return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  }
  detail::unreachable();
}

// Empty bytes as a non-null pointer: a null one would bind NULL, not an empty value.
const char* non_null(std::string_view bytes) {
  static constexpr char kEmpty[] = "";
  return bytes.empty() ? kEmpty : bytes.data();
}

}  // namespace

// ---- statements ---------------------------------------------------------------------------

Statement::Statement(sqlite3_stmt* statement, bool owned, int rc) noexcept
    : statement_(statement), owned_(owned), rc_(rc) {}

Statement::Statement(Statement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)), owned_(other.owned_), rc_(other.rc_) {}

Statement::~Statement() {
  if (owned_) {
    sqlite3_finalize(statement_);
  } else if (statement_ != nullptr) {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
}

Statement& Statement::remember(int rc) noexcept {
  if (rc_ == kOk) rc_ = rc;
  return *this;
}

int Statement::index(const char* name) const noexcept {
  return rc_ == kOk ? sqlite3_bind_parameter_index(statement_, name) : 0;
}

Statement& Statement::bind(int index, std::string_view bytes) {
  if (rc_ != kOk) return *this;
  return remember(
      sqlite3_bind_blob64(statement_, index, non_null(bytes), bytes.size(), SQLITE_TRANSIENT));
}

Statement& Statement::bind_text(int index, std::string_view text) {
  if (rc_ != kOk) return *this;
  return remember(sqlite3_bind_text64(statement_, index, non_null(text), text.size(),
                                      SQLITE_TRANSIENT, SQLITE_UTF8));
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (rc_ != kOk) return *this;
  return remember(sqlite3_bind_int64(statement_, index, value));
}

Statement& Statement::bind(int index, std::optional<std::int64_t> value) {
  return value ? bind(index, *value) : bind_null(index);
}

Statement& Statement::bind_null(int index) {
  if (rc_ != kOk) return *this;
  return remember(sqlite3_bind_null(statement_, index));
}

Statement& Statement::bind(const char* name, std::string_view bytes) {
  if (const int i = index(name); i > 0) bind(i, bytes);
  return *this;
}

Statement& Statement::bind_text(const char* name, std::string_view text) {
  if (const int i = index(name); i > 0) bind_text(i, text);
  return *this;
}

Statement& Statement::bind(const char* name, std::int64_t value) {
  if (const int i = index(name); i > 0) bind(i, value);
  return *this;
}

Statement& Statement::bind(const char* name, std::optional<std::int64_t> value) {
  if (const int i = index(name); i > 0) bind(i, value);
  return *this;
}

int Statement::parameters() const noexcept { return sqlite3_bind_parameter_count(statement_); }

int Statement::step() noexcept { return rc_ == kOk ? sqlite3_step(statement_) : rc_; }

int Statement::finish() noexcept {
  int rc = kRow;
  while (rc == kRow) rc = step();
  return rc;
}

std::string Statement::bytes(int column) const {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement_, column));
  const auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement_, column));
  return data == nullptr ? std::string() : std::string(data, size);
}

std::int64_t Statement::integer(int column) const noexcept {
  return sqlite3_column_int64(statement_, column);
}

bool Statement::null(int column) const noexcept {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

// ---- connections --------------------------------------------------------------------------

Connection::Connection(sqlite3* db, std::chrono::milliseconds busy_timeout) noexcept
    : db_(db), busy_timeout_(busy_timeout) {}

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      busy_timeout_(other.busy_timeout_),
      prepared_(std::move(other.prepared_)) {
  other.prepared_.clear();
}

Connection::~Connection() {
  for (auto& [sql, statement] : prepared_) sqlite3_finalize(statement);
  if (db_ != nullptr && in_transaction()) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  sqlite3_close_v2(db_);
}

Result<Connection, QueueError> Connection::open(const std::string& path, Access access,
                                                std::chrono::milliseconds busy_timeout) {
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, open_flags(access) | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open SQLite database '" + path +
                          "': " + (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close_v2(db);
    return unexpected{error(QueueErrorKind::Unavailable, std::move(message))};
  }
  const auto timeout = static_cast<int>(
      std::min<std::int64_t>(busy_timeout.count(), std::numeric_limits<int>::max()));
  sqlite3_busy_timeout(db, timeout);
  sqlite3_extended_result_codes(db, 1);
  return Connection(db, busy_timeout);
}

Result<Statement, QueueError> Connection::prepared(const char* sql) {
  auto found = prepared_.find(sql);
  if (found == prepared_.end()) {
    sqlite3_stmt* statement = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
    if (rc != SQLITE_OK) return unexpected{failure(rc, "preparing a statement")};
    found = prepared_.emplace(sql, statement).first;
  }
  return Statement(found->second, false, kOk);
}

Statement Connection::statement(const std::string& sql) noexcept {
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr);
  return Statement(statement, true, rc);
}

Result<Committed, QueueError> Connection::run(const char* sql) {
  auto statement = prepared(sql);
  if (!statement) return unexpected{statement.error()};
  if (const int rc = statement->finish(); rc != kDone) return unexpected{failure(rc, sql)};
  return Committed{};
}

Result<Committed, QueueError> Connection::execute(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) == SQLITE_OK) return Committed{};
  QueueError failed =
      error(QueueErrorKind::Unavailable, message != nullptr ? message : "unknown error");
  sqlite3_free(message);
  return unexpected{std::move(failed)};
}

QueueError Connection::failure(int rc, std::string_view what) const {
  const int primary = rc & 0xff;
  if (primary == SQLITE_BUSY) {
    return error(QueueErrorKind::Unavailable,
                 "the database stayed locked by another connection for longer than "
                 "busy_timeout (" +
                     std::to_string(busy_timeout_.count()) + " ms) while " + std::string(what));
  }
  if (primary == SQLITE_LOCKED) {
    return error(QueueErrorKind::Unavailable,
                 "a table was locked by another statement on the same connection while " +
                     std::string(what));
  }
  return error(QueueErrorKind::Internal, "SQLite error while " + std::string(what) + ": " +
                                             sqlite3_errstr(rc) + " (" + message() + ")");
}

std::string Connection::message() const { return sqlite3_errmsg(db_); }

std::int64_t Connection::changes() const noexcept { return sqlite3_changes(db_); }

bool Connection::in_transaction() const noexcept { return sqlite3_get_autocommit(db_) == 0; }

int Connection::limit_length(int bytes) noexcept {
  return sqlite3_limit(db_, SQLITE_LIMIT_LENGTH, bytes);
}

// ---- transactions -------------------------------------------------------------------------

Transaction::~Transaction() {
  if (open_) (void)db_.run("ROLLBACK");
}

Result<Committed, QueueError> Transaction::begin() {
  // A transaction an earlier failure left open (a ROLLBACK that failed) ends here.
  if (db_.in_transaction()) (void)db_.run("ROLLBACK");
  auto begun = db_.run("BEGIN IMMEDIATE");
  open_ = begun.has_value();
  return begun;
}

Result<Committed, QueueError> Transaction::commit() {
  auto committed = db_.run("COMMIT");
  open_ = !committed.has_value() && db_.in_transaction();
  return committed;
}

}  // namespace thm::sqlite::client
