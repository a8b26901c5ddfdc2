// The PostgreSQL client: libpq behind the few calls the queue, its harness and its mutants
// make. Every failure is a value; nothing here throws.
#include "thm/postgres/client.hpp"

#include <libpq-fe.h>

#include <array>
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace thm::postgres::client {
namespace {

constexpr int kTextFormat = 0;
constexpr int kBinaryFormat = 1;

QueueError error(QueueErrorKind kind, std::string message) { return {kind, std::move(message)}; }

// A signed integer as PostgreSQL's binary format sends it: two's complement, big-endian.
template <class Signed>
std::string big_endian(Signed value) {
  std::string out(sizeof(Signed), '\0');
  auto bits = static_cast<std::make_unsigned_t<Signed>>(value);
  for (std::size_t i = sizeof(Signed); i-- > 0; bits = static_cast<decltype(bits)>(bits >> 8)) {
    out[i] = static_cast<char>(bits & 0xff);
  }
  return out;
}

}  // namespace

// ---- parameters ---------------------------------------------------------------------------

Params& Params::add(std::string value, bool null, int format, Oid type) {
  values_.push_back(std::move(value));
  null_.push_back(null);
  formats_.push_back(format);
  types_.push_back(type);
  return *this;
}

void Params::lay_out(std::vector<const char*>& pointers, std::vector<int>& lengths) const {
  for (std::size_t i = 0; i < values_.size(); ++i) {
    pointers.push_back(null_[i] ? nullptr : values_[i].c_str());
    lengths.push_back(static_cast<int>(values_[i].size()));
  }
}

Params& Params::bytes(std::string_view value) {
  return add(std::string(value), false, kBinaryFormat, kBytea);
}

Params& Params::text(std::string_view value) {
  return add(std::string(value), false, kBinaryFormat, kText);
}

Params& Params::integer(std::int64_t value) {
  return add(big_endian(value), false, kBinaryFormat, kInt8);
}

Params& Params::integer(std::optional<std::int64_t> value) {
  return value ? integer(*value) : add({}, true, kBinaryFormat, kInt8);
}

Params& Params::int4(std::int32_t value) {
  return add(big_endian(value), false, kBinaryFormat, kInt4);
}

Params& Params::u64(std::uint64_t value) {
  return add(std::to_string(value), false, kTextFormat, kNumeric);
}

Params& Params::u64(std::optional<std::uint64_t> value) {
  return value ? u64(*value) : add({}, true, kBinaryFormat, kNumeric);
}

Params& Params::boolean(bool value) {
  return add(std::string(1, value ? '\1' : '\0'), false, kBinaryFormat, kBool);
}

// ---- results ------------------------------------------------------------------------------

Rows::Rows(Rows&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

Rows::~Rows() { PQclear(result_); }

bool Rows::ok() const noexcept {
  const ExecStatusType status = PQresultStatus(result_);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

std::string Rows::field(int code) const {
  const char* value = result_ == nullptr ? nullptr : PQresultErrorField(result_, code);
  return value == nullptr ? std::string() : std::string(value);
}

std::string Rows::sqlstate() const { return field(PG_DIAG_SQLSTATE); }

std::string Rows::message() const { return field(PG_DIAG_MESSAGE_PRIMARY); }

int Rows::size() const noexcept { return PQntuples(result_); }

bool Rows::null(int row, int column) const noexcept {
  return PQgetisnull(result_, row, column) != 0;
}

std::string Rows::bytes(int row, int column) const {
  return {PQgetvalue(result_, row, column),
          static_cast<std::size_t>(PQgetlength(result_, row, column))};
}

std::int64_t Rows::integer(int row, int column) const noexcept {
  const auto* data = reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column));
  std::uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = (bits << 8) | data[i];
  return static_cast<std::int64_t>(bits);
}

bool Rows::boolean(int row, int column) const noexcept {
  return PQgetvalue(result_, row, column)[0] != 0;
}

std::size_t Rows::changed() const noexcept {
  const char* tuples = PQcmdTuples(result_);
  return tuples[0] == '\0' ? 0 : static_cast<std::size_t>(std::strtoull(tuples, nullptr, 10));
}

// ---- connections --------------------------------------------------------------------------

Result<std::unique_ptr<Connection>, QueueError> Connection::connect(
    const std::string& conninfo, const std::string& search_path) {
  PGconn* raw = nullptr;
  if (search_path.empty()) {
    raw = PQconnectdb(conninfo.c_str());
  } else {
    // `dbname` is expanded as a whole conninfo string or URI; `options` after it wins.
    const std::string options = "-csearch_path=" + search_path;
    const std::array<const char*, 3> keywords{"dbname", "options", nullptr};
    const std::array<const char*, 3> values{conninfo.c_str(), options.c_str(), nullptr};
    raw = PQconnectdbParams(keywords.data(), values.data(), 1);
  }
  if (raw == nullptr) {
    return unexpected{error(QueueErrorKind::Unavailable, "libpq is out of memory")};
  }
  std::unique_ptr<Connection> connection(new Connection(raw));
  PQsetNoticeProcessor(
      raw, [](void*, const char*) {}, nullptr);  // "relation already exists, skipping"
  if (!connection->alive()) {
    return unexpected{error(QueueErrorKind::Unavailable,
                            "cannot connect to PostgreSQL: " + connection->last_message())};
  }
  return connection;
}

Connection::~Connection() {
  if (alive() && PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  PQfinish(conn_);
}

bool Connection::alive() const noexcept { return PQstatus(conn_) == CONNECTION_OK; }

std::int32_t Connection::backend() const noexcept { return PQbackendPID(conn_); }

bool Connection::aborted() const noexcept { return PQtransactionStatus(conn_) == PQTRANS_INERROR; }

bool Connection::reconnect() {
  if (alive()) return true;
  PQreset(conn_);
  prepared_.clear();
  return alive();
}

Result<bool, QueueError> Connection::usable() {
  if (alive()) {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)command("ROLLBACK");
    return false;
  }
  if (reconnect()) return true;
  return unexpected{error(
      QueueErrorKind::Unavailable,
      "the PostgreSQL connection is lost and could not be re-established: " + last_message())};
}

Result<Rows, QueueError> Connection::run(const Sql& sql, const Params& params,
                                         std::string_view what) {
  if (!prepared_.contains(&sql)) {
    Rows prepared(
        PQprepare(conn_, sql.name, sql.text, static_cast<int>(sql.types.size()), sql.types.data()));
    if (!prepared.ok()) return unexpected{failure(prepared, what)};
    prepared_.insert(&sql);
  }
  std::vector<const char*> pointers;
  std::vector<int> lengths;
  params.lay_out(pointers, lengths);
  Rows rows(PQexecPrepared(conn_, sql.name, params.size(), pointers.data(), lengths.data(),
                           params.formats_.data(), 1));
  if (!rows.ok() && rows.sqlstate() == "26000" && prepared_.erase(&sql) > 0) {
    // The server forgot the statement (DISCARD ALL, a pooler): prepare it again, once.
    return run(sql, params, what);
  }
  if (!rows.ok()) return unexpected{failure(rows, what)};
  return rows;
}

Rows Connection::execute(const std::string& sql, const Params& params) {
  std::vector<const char*> pointers;
  std::vector<int> lengths;
  params.lay_out(pointers, lengths);
  return Rows(PQexecParams(conn_, sql.c_str(), params.size(), params.types_.data(), pointers.data(),
                           lengths.data(), params.formats_.data(), 1));
}

Rows Connection::script(const std::string& sql) { return Rows(PQexec(conn_, sql.c_str())); }

Result<Committed, QueueError> Connection::command(const char* text) {
  Rows rows(PQexec(conn_, text));
  if (!rows.ok()) return unexpected{failure(rows, text)};
  return Committed{};
}

QueueError Connection::failure(const Rows& rows, std::string_view what) const {
  const std::string state = rows.sqlstate();
  const bool transient = !alive() || state.starts_with("08") || state.starts_with("57P") ||
                         state.starts_with("53") || state == "40001" || state == "40P01" ||
                         state == "55P03" || state == "57014";
  return error(transient ? QueueErrorKind::Unavailable : QueueErrorKind::Internal,
               "PostgreSQL error while " + std::string(what) +
                   (state.empty() ? "" : " (SQLSTATE " + state + ")") + ": " + last_message());
}

std::string Connection::last_message() const {
  std::string message = PQerrorMessage(conn_);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  return message;
}

void Connection::on_notice(NoticeHandler handler, void* context) noexcept {
  handler_ = handler;
  context_ = context;
  PQsetNoticeReceiver(conn_, &Connection::receive, this);
}

void Connection::receive(void* self, const PGresult* notice) noexcept {
  const auto* connection = static_cast<const Connection*>(self);
  if (connection->handler_ != nullptr) {
    connection->handler_(connection->context_, PQresultErrorField(notice, PG_DIAG_MESSAGE_PRIMARY));
  }
}

// ---- transactions -------------------------------------------------------------------------

Transaction::~Transaction() {
  if (open_) (void)db_.command("ROLLBACK");
}

Result<Committed, QueueError> Transaction::begin() {
  auto begun = db_.command("BEGIN");
  open_ = begun.has_value();
  return begun;
}

Result<Committed, QueueError> Transaction::commit() {
  open_ = false;
  auto committed = db_.command("COMMIT");
  if (committed) return committed;
  QueueError failed = committed.error();
  failed.kind = db_.alive() ? QueueErrorKind::Unavailable : QueueErrorKind::Indeterminate;
  return unexpected{std::move(failed)};
}

}  // namespace thm::postgres::client
