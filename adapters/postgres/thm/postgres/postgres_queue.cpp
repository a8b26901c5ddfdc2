// The PostgreSQL host queue: SPEC §4's transaction over the tables of schema.sql, through
// libpq. Every statement is prepared once per connection; parameters and results travel in
// binary, so ids and content keep every byte.
#include "thm/postgres/postgres_queue.hpp"

#include <libpq-fe.h>

#include <array>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "thm/postgres/schema_sql.hpp"

namespace thm::postgres {
namespace {

constexpr int kSchemaVersion = 1;

// The server's clock at the start of the statement, in milliseconds since the Unix epoch.
// Statement time, not transaction time (`now()`), so a claim's expiry does not fall short by
// however long its transaction has been open (queue-conformance.md EQ-17).
#define THM_PG_NOW "(floor(extract(epoch FROM statement_timestamp()) * 1000))::bigint"

// Type OIDs from pg_type, for prepared statements' parameters.
constexpr Oid kBool = 16;
constexpr Oid kBytea = 17;
constexpr Oid kInt8 = 20;
constexpr Oid kText = 25;

// A statement, prepared on first use under `name`.
struct Sql {
  const char* name;
  const char* text;
  std::vector<Oid> types;
};

const Sql kReadReply{"thm_read_reply",
                     "SELECT author_id, content, hop FROM thm_reply WHERE turn_key = $1 FOR SHARE",
                     {kBytea}};
const Sql kLockPolicy{
    "thm_lock_policy",
    "LOCK TABLE thm_policy, thm_forbidden_pair, thm_available_agent IN SHARE MODE",
    {}};
const Sql kReadPolicy{
    "thm_read_policy",
    "SELECT (SELECT enabled AND $1 <= max_hops FROM thm_policy WHERE id = 1),"
    " EXISTS (SELECT 1 FROM thm_forbidden_pair WHERE source_id = $2 AND target_id = $3),"
    " EXISTS (SELECT 1 FROM thm_available_agent WHERE agent_id = $3)",
    {kInt8, kBytea, kBytea}};
const Sql kInsertRecord{"thm_insert_record",
                        "INSERT INTO thm_idempotency (turn_key) VALUES ($1)"
                        " ON CONFLICT (turn_key) DO NOTHING RETURNING id",
                        {kBytea}};
const Sql kInsertChild{
    "thm_insert_child",
    "INSERT INTO thm_child_turn (id, turn_key, desk_id, thread_root, trigger_sequence,"
    " source_id, target_id, content, child_hop) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    {kInt8, kBytea, kBytea, kInt8, kInt8, kBytea, kBytea, kBytea, kInt8}};
const Sql kCommitReply{"thm_commit_reply",
                       "INSERT INTO thm_reply (turn_key, author_id, content, hop)"
                       " VALUES ($1, $2, $3, $4) ON CONFLICT (turn_key) DO UPDATE SET"
                       " author_id = excluded.author_id, content = excluded.content,"
                       " hop = excluded.hop",
                       {kBytea, kBytea, kBytea, kInt8}};
const Sql kSetPolicy{"thm_set_policy",
                     "INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2)"
                     " ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled,"
                     " max_hops = excluded.max_hops",
                     {kBool, kInt8}};
const Sql kForbid{"thm_forbid",
                  "INSERT INTO thm_forbidden_pair (source_id, target_id) VALUES ($1, $2)"
                  " ON CONFLICT DO NOTHING",
                  {kBytea, kBytea}};
const Sql kAllow{"thm_allow",
                 "DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2",
                 {kBytea, kBytea}};
const Sql kMakeAvailable{
    "thm_make_available",
    "INSERT INTO thm_available_agent (agent_id) VALUES ($1) ON CONFLICT DO NOTHING",
    {kBytea}};
const Sql kMakeUnavailable{
    "thm_make_unavailable", "DELETE FROM thm_available_agent WHERE agent_id = $1", {kBytea}};
const Sql kMarkDead{"thm_mark_dead",
                    "UPDATE thm_child_turn SET state = 'dead' WHERE id IN (SELECT id FROM"
                    " thm_child_turn WHERE state = 'pending' AND attempts >= $1 AND"
                    " (lease_expires_at IS NULL OR lease_expires_at <= " THM_PG_NOW
                    ")"
                    " FOR UPDATE SKIP LOCKED)",
                    {kInt8}};
const Sql kClaim{
    "thm_claim",
    "UPDATE thm_child_turn SET attempts = attempts + 1,"
    " lease_token = gen_random_uuid()::text,"
    " lease_expires_at = " THM_PG_NOW
    " + $1"
    " WHERE id = (SELECT id FROM thm_child_turn WHERE state = 'pending'"
    "   AND attempts < $2 AND (lease_expires_at IS NULL OR lease_expires_at <= " THM_PG_NOW
    ")"
    "   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)"
    " RETURNING id, lease_token, lease_expires_at, attempts, desk_id, thread_root,"
    " trigger_sequence, source_id, target_id, content, child_hop",
    {kInt8, kInt8}};
const Sql kRenew{"thm_renew",
                 "UPDATE thm_child_turn SET lease_expires_at = " THM_PG_NOW
                 " + $2"
                 " WHERE lease_token = $1 AND state = 'pending' AND lease_expires_at > " THM_PG_NOW
                 " RETURNING lease_expires_at",
                 {kText, kInt8}};
const Sql kComplete{
    "thm_complete",
    "UPDATE thm_child_turn SET state = 'completed', lease_token = NULL"
    " WHERE lease_token = $1 AND state = 'pending' AND lease_expires_at > " THM_PG_NOW
    " RETURNING state",
    {kText}};
const Sql kFail{"thm_fail",
                "UPDATE thm_child_turn SET lease_token = NULL, lease_expires_at = NULL,"
                " state = CASE WHEN attempts >= $2 THEN 'failed' ELSE 'pending' END"
                " WHERE lease_token = $1 AND state = 'pending' AND lease_expires_at > " THM_PG_NOW
                " RETURNING state",
                {kText, kInt8}};
const Sql kNow{"thm_now", "SELECT " THM_PG_NOW, {}};
const Sql kSettle{"thm_settle",
                  "UPDATE thm_child_turn SET state = $2, lease_token = NULL WHERE id = $1",
                  {kInt8, kText}};
const Sql kRemove{"thm_remove", "DELETE FROM thm_child_turn WHERE id = $1", {kInt8}};
const Sql kPrune{"thm_prune", "DELETE FROM thm_child_turn WHERE state <> 'pending'", {}};
const Sql kClear{"thm_clear",
                 "TRUNCATE thm_reply, thm_policy, thm_forbidden_pair, thm_available_agent,"
                 " thm_idempotency, thm_child_turn",
                 {}};
const Sql kRecords{"thm_records", "SELECT turn_key, id FROM thm_idempotency ORDER BY id", {}};
const Sql kChildren{"thm_children",
                    "SELECT id, turn_key, state, attempts, lease_expires_at, desk_id, thread_root,"
                    " trigger_sequence, source_id, target_id, content, child_hop, lease_token"
                    " FROM thm_child_turn ORDER BY id",
                    {}};
const Sql kIndexes{"thm_indexes",
                   "SELECT i.indpred IS NOT NULL, array_to_string(array(SELECT a.attname::text"
                   " FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)"
                   " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
                   " ORDER BY k.ord), ',')"
                   " FROM pg_index i WHERE i.indrelid = 'thm_idempotency'::regclass"
                   " AND i.indisunique AND NOT i.indisprimary ORDER BY i.indexrelid",
                   {}};

// Sequences are u64; PostgreSQL has signed BIGINT. The two's-complement cast is injective.
std::int64_t to_column(std::uint64_t value) { return static_cast<std::int64_t>(value); }
std::uint64_t from_column(std::int64_t value) { return static_cast<std::uint64_t>(value); }

QueueError error(QueueErrorKind kind, std::string message) { return {kind, std::move(message)}; }

StoreTime store_time(std::int64_t millis) { return StoreTime(std::chrono::milliseconds(millis)); }

// Binary parameters for one statement.
class Params {
 public:
  Params& bytes(std::string_view value) {
    values_.emplace_back(value);
    null_.push_back(false);
    return *this;
  }
  Params& integer(std::int64_t value) {
    std::string big_endian(8, '\0');
    auto bits = static_cast<std::uint64_t>(value);
    for (int i = 7; i >= 0; --i, bits >>= 8)
      big_endian[static_cast<std::size_t>(i)] = static_cast<char>(bits & 0xff);
    values_.push_back(std::move(big_endian));
    null_.push_back(false);
    return *this;
  }
  Params& boolean(bool value) {
    values_.emplace_back(1, value ? '\1' : '\0');
    null_.push_back(false);
    return *this;
  }
  Params& null() {
    values_.emplace_back();
    null_.push_back(true);
    return *this;
  }

  int size() const { return static_cast<int>(values_.size()); }
  // Pointers, lengths and formats for libpq; valid while this object lives unchanged.
  void lay_out(std::vector<const char*>& pointers, std::vector<int>& lengths,
               std::vector<int>& formats) const {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      pointers.push_back(null_[i] ? nullptr : values_[i].data());
      lengths.push_back(static_cast<int>(values_[i].size()));
      formats.push_back(1);
    }
  }

 private:
  std::vector<std::string> values_;
  std::vector<bool> null_;
};

// A result in binary format; freed with the object.
class Rows {
 public:
  explicit Rows(PGresult* result) : result_(result) {}
  ~Rows() { PQclear(result_); }
  Rows(Rows&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;
  Rows& operator=(Rows&&) = delete;

  // Whether the statement succeeded (with or without rows).
  bool ok() const {
    const ExecStatusType status = PQresultStatus(result_);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
  }
  // The SQLSTATE of a failure, or empty.
  std::string sqlstate() const {
    const char* state =
        result_ == nullptr ? nullptr : PQresultErrorField(result_, PG_DIAG_SQLSTATE);
    return state == nullptr ? std::string() : std::string(state);
  }
  int size() const { return PQntuples(result_); }
  bool null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  std::string bytes(int row, int column) const {
    return {PQgetvalue(result_, row, column),
            static_cast<std::size_t>(PQgetlength(result_, row, column))};
  }
  std::int64_t integer(int row, int column) const {
    const auto* data = reinterpret_cast<const unsigned char*>(PQgetvalue(result_, row, column));
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = (bits << 8) | data[i];
    return static_cast<std::int64_t>(bits);
  }
  bool boolean(int row, int column) const { return PQgetvalue(result_, row, column)[0] != 0; }
  // The number of rows a command changed.
  std::size_t changed() const {
    const char* tuples = PQcmdTuples(result_);
    return tuples[0] == '\0' ? 0 : std::stoul(tuples);
  }

 private:
  PGresult* result_;
};

MentionTurnRequest request_from(const Rows& rows, int row, int first) {
  MentionTurnRequest request;
  request.conversation.desk_id = rows.bytes(row, first);
  if (!rows.null(row, first + 1)) {
    request.conversation.thread_root = from_column(rows.integer(row, first + 1));
  }
  request.key.trigger_sequence = from_column(rows.integer(row, first + 2));
  request.source_id = rows.bytes(row, first + 3);
  request.target_id = rows.bytes(row, first + 4);
  request.content = rows.bytes(row, first + 5);
  request.child_hop = static_cast<std::uint32_t>(rows.integer(row, first + 6));
  return request;
}

}  // namespace

// ---- the connection ----------------------------------------------------------------------------

class PostgresQueue::Impl {
 public:
  Impl(PGconn* connection, Options options) : conn_(connection), options_(std::move(options)) {}
  ~Impl() { PQfinish(conn_); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  const Options& options() const { return options_; }

  // Re-establishes a broken connection (a restarted server); prepared statements go with it.
  // A transaction some earlier failure left open is rolled back first.
  std::optional<QueueError> connected() {
    if (PQstatus(conn_) == CONNECTION_OK) {
      if (PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)command("ROLLBACK");
      return std::nullopt;
    }
    PQreset(conn_);
    prepared_.clear();
    if (PQstatus(conn_) == CONNECTION_OK) return configure();
    return error(
        QueueErrorKind::Unavailable,
        "the PostgreSQL connection is lost and could not be re-established: " + last_message());
  }

  // Per-connection settings.
  std::optional<QueueError> configure() {
    const std::string timeout =
        "SET lock_timeout = '" + std::to_string(options_.lock_timeout.count()) + "ms'";
    if (auto set = command(timeout.c_str()); !set) return set.error();
    return std::nullopt;
  }

  // Runs `sql` with `params`; a failure becomes the error for doing `what`.
  Result<Rows, QueueError> run(const Sql& sql, const Params& params, std::string_view what) {
    if (!prepared_.contains(&sql)) {
      Rows prepared(PQprepare(conn_, sql.name, sql.text, static_cast<int>(sql.types.size()),
                              sql.types.data()));
      if (!prepared.ok()) return unexpected{failure(prepared, what)};
      prepared_.insert(&sql);
    }
    std::vector<const char*> pointers;
    std::vector<int> lengths;
    std::vector<int> formats;
    params.lay_out(pointers, lengths, formats);
    Rows rows(PQexecPrepared(conn_, sql.name, params.size(), pointers.data(), lengths.data(),
                             formats.data(), 1));
    if (!rows.ok() && rows.sqlstate() == "26000" && prepared_.erase(&sql) > 0) {
      // The server forgot the statement (DISCARD ALL, a pooler): prepare it again, once.
      return run(sql, params, what);
    }
    if (!rows.ok()) return unexpected{failure(rows, what)};
    return rows;
  }
  Result<Rows, QueueError> run(const Sql& sql, std::string_view what) {
    return run(sql, Params{}, what);
  }

  // A command without parameters or rows (BEGIN, COMMIT, ROLLBACK).
  Result<Committed, QueueError> command(const char* text) {
    Rows rows(PQexec(conn_, text));
    if (!rows.ok()) return unexpected{failure(rows, text)};
    return Committed{};
  }

  // The error for a failed result: `Unavailable` when retrying may succeed (a lost
  // connection, a shut-down server, a serialization failure or deadlock, too many
  // connections); `Internal` otherwise.
  QueueError failure(const Rows& rows, std::string_view what) const {
    const std::string state = rows.sqlstate();
    const bool transient = PQstatus(conn_) != CONNECTION_OK || state.starts_with("08") ||
                           state.starts_with("57P") || state.starts_with("53") ||
                           state == "40001" || state == "40P01" || state == "55P03";
    return error(transient ? QueueErrorKind::Unavailable : QueueErrorKind::Internal,
                 "PostgreSQL error while " + std::string(what) +
                     (state.empty() ? "" : " (SQLSTATE " + state + ")") + ": " + last_message());
  }

  bool alive() const { return PQstatus(conn_) == CONNECTION_OK; }
  bool pass(HookPoint point, const MentionTurnRequest& request) const {
    return !options_.hook || options_.hook(point, request);
  }

  Result<Committed, QueueError> apply_schema();

 private:
  std::string last_message() const {
    std::string message = PQerrorMessage(conn_);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    return message;
  }

  PGconn* conn_;
  Options options_;
  std::set<const Sql*> prepared_;
};

}  // namespace thm::postgres

namespace thm::postgres {
namespace {

using Impl = PostgresQueue::Impl;

// Rolls an open transaction back unless `commit` was reached.
class Transaction {
 public:
  explicit Transaction(Impl& impl) : impl_(impl) {}
  ~Transaction() {
    if (open_) (void)impl_.command("ROLLBACK");
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Result<Committed, QueueError> begin() {
    auto begun = impl_.command("BEGIN");
    open_ = begun.has_value();
    return begun;
  }
  // A COMMIT that fails on a live connection rolled back; on a lost one, nobody knows.
  Result<Committed, QueueError> commit() {
    open_ = false;
    auto committed = impl_.command("COMMIT");
    if (committed) return committed;
    QueueError failed = committed.error();
    failed.kind = impl_.alive() ? QueueErrorKind::Unavailable : QueueErrorKind::Indeterminate;
    return unexpected{std::move(failed)};
  }

 private:
  Impl& impl_;
  bool open_ = false;
};

}  // namespace

Result<Committed, QueueError> PostgresQueue::Impl::apply_schema() {
  // The common case reads one row and takes no lock: the schema is there, at our version.
  // DDL (which locks the tables it names, even when they exist) runs only when it is not.
  const auto version = [this]() -> Result<std::string, QueueError> {
    // Two statements: a missing table fails a query that names it even in a branch not taken.
    Rows exists(PQexec(conn_, "SELECT to_regclass('thm_schema') IS NOT NULL"));
    if (!exists.ok() || exists.size() != 1) {
      return unexpected{failure(exists, "looking for the thm schema")};
    }
    if (exists.bytes(0, 0) != "t") return std::string("0");
    Rows found(PQexec(conn_, "SELECT coalesce(max(version), 0)::text FROM thm_schema"));
    if (!found.ok() || found.size() != 1) {
      return unexpected{failure(found, "reading the schema version")};
    }
    return found.bytes(0, 0);
  };
  const auto known = [](const std::string& found) -> std::optional<QueueError> {
    if (found == "0" || found == std::to_string(kSchemaVersion)) return std::nullopt;
    return error(QueueErrorKind::Internal, "the database has thm schema version " + found +
                                               "; this build knows version " +
                                               std::to_string(kSchemaVersion));
  };
  auto before = version();
  if (!before) return unexpected{before.error()};
  if (auto unknown = known(*before)) return unexpected{*unknown};
  if (*before == std::to_string(kSchemaVersion)) return Committed{};

  Transaction transaction(*this);
  if (auto begun = transaction.begin(); !begun) return begun;
  // One opener at a time creates the tables; a constant key for thm's schema.
  if (auto locked = command("SELECT pg_advisory_xact_lock(7411262)"); !locked) return locked;
  if (auto created = command(kSchemaSql); !created) return created;
  auto now = version();
  if (!now) return unexpected{now.error()};
  if (auto unknown = known(*now)) return unexpected{*unknown};
  if (*now == "0") {
    if (auto stamped = command("INSERT INTO thm_schema (version) VALUES (1)"); !stamped) {
      return stamped;
    }
  }
  return transaction.commit();
}

PostgresQueue::PostgresQueue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresQueue::~PostgresQueue() = default;

Result<std::unique_ptr<PostgresQueue>, QueueError> PostgresQueue::open(const std::string& conninfo,
                                                                       Options options) {
  PGconn* connection = PQconnectdb(conninfo.c_str());
  if (connection == nullptr)
    return unexpected{error(QueueErrorKind::Unavailable, "libpq is out of memory")};
  // Notices ("relation already exists, skipping") are not the host's business.
  PQsetNoticeProcessor(
      connection, [](void*, const char*) {}, nullptr);
  auto impl = std::make_unique<Impl>(connection, std::move(options));
  if (PQstatus(connection) != CONNECTION_OK) {
    std::string message = PQerrorMessage(connection);
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return unexpected{
        error(QueueErrorKind::Unavailable, "cannot connect to PostgreSQL: " + message)};
  }
  if (auto failed = impl->configure()) return unexpected{*failed};
  if (auto applied = impl->apply_schema(); !applied) return unexpected{applied.error()};
  return std::unique_ptr<PostgresQueue>(new PostgresQueue(std::move(impl)));
}

// ---- enqueue -----------------------------------------------------------------------------------

Result<EnqueueOutcome, QueueError> PostgresQueue::enqueue_once(
    const MentionTurnRequest& request) noexcept {
  const std::scoped_lock guard(mutex_);
  Impl& db = *impl_;
  const Options& limits = db.options();
  if (auto over = exceeds_limits(request, limits.max_content_bytes, limits.max_id_bytes)) {
    return unexpected{*std::move(over)};
  }

  if (auto lost = db.connected()) return unexpected{*std::move(lost)};
  const std::string key = turn_key(request).encoded();
  const auto rolled_back = [](HookPoint point) {
    return unexpected{error(QueueErrorKind::Unavailable,
                            "the step was rolled back at " + std::string(name(point)))};
  };

  Transaction transaction(db);
  if (auto begun = transaction.begin(); !begun) return unexpected{begun.error()};
  if (!db.pass(HookPoint::AfterBegin, request)) return rolled_back(HookPoint::AfterBegin);
  {
    auto reply = db.run(kReadReply, Params().bytes(key), "reading the committed reply");
    if (!reply) return unexpected{reply.error()};
    if (reply->size() == 0) {
      return unexpected{
          error(QueueErrorKind::TriggerMissing, "no committed reply under key " + key)};
    }
    if (auto differs = trigger_mismatch(request, reply->bytes(0, 0), reply->bytes(0, 1),
                                        reply->integer(0, 2), key)) {
      return unexpected{*std::move(differs)};
    }
  }
  {
    if (auto locked = db.run(kLockPolicy, "locking the policy"); !locked)
      return unexpected{locked.error()};
    auto policy = db.run(
        kReadPolicy,
        Params().integer(request.child_hop).bytes(request.source_id).bytes(request.target_id),
        "reading the policy");
    if (!policy) return unexpected{policy.error()};
    if (policy->null(0, 0) || !policy->boolean(0, 0))
      return Refused{EnqueueRefusal::FeatureDisabled};
    if (policy->boolean(0, 1)) return Refused{EnqueueRefusal::Unauthorized};
    if (!policy->boolean(0, 2)) return Refused{EnqueueRefusal::TargetUnavailable};
  }
  if (!db.pass(HookPoint::AfterValidateReads, request)) {
    return rolled_back(HookPoint::AfterValidateReads);
  }
  std::int64_t id = 0;
  {  // the decision: one conditional insert on the unique key
    auto record = db.run(kInsertRecord, Params().bytes(key), "inserting the idempotency record");
    if (!record) return unexpected{record.error()};
    if (record->size() == 0) return Already{};
    id = record->integer(0, 0);
  }
  if (!db.pass(HookPoint::AfterIdempotencyStatement, request)) {
    return rolled_back(HookPoint::AfterIdempotencyStatement);
  }
  {
    Params child;
    child.integer(id).bytes(key).bytes(request.conversation.desk_id);
    if (request.conversation.thread_root) {
      child.integer(to_column(*request.conversation.thread_root));
    } else {
      child.null();
    }
    child.integer(to_column(request.key.trigger_sequence))
        .bytes(request.source_id)
        .bytes(request.target_id)
        .bytes(request.content)
        .integer(request.child_hop);
    if (auto inserted = db.run(kInsertChild, child, "inserting the child turn"); !inserted) {
      return unexpected{inserted.error()};
    }
  }
  if (!db.pass(HookPoint::AfterChildInsert, request))
    return rolled_back(HookPoint::AfterChildInsert);
  if (!db.pass(HookPoint::BeforeCommit, request)) return rolled_back(HookPoint::BeforeCommit);
  if (auto committed = transaction.commit(); !committed) return unexpected{committed.error()};
  if (!db.pass(HookPoint::AfterCommitBeforeReturn, request)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

// ---- the host's writes -------------------------------------------------------------------------

namespace {

// One statement in autocommit. If the connection is lost under it, the server may have
// committed it before the answer was lost: `Indeterminate`.
Result<Committed, QueueError> write(Impl& db, const Sql& sql, const Params& params) {
  if (auto lost = db.connected()) return unexpected{*std::move(lost)};
  auto done = db.run(sql, params, "writing");
  if (!done) {
    QueueError failed = done.error();
    if (!db.alive()) failed.kind = QueueErrorKind::Indeterminate;
    return unexpected{std::move(failed)};
  }
  return Committed{};
}

}  // namespace

Result<Committed, QueueError> PostgresQueue::commit_reply(const CommittedReply& reply) {
  const std::scoped_lock guard(mutex_);
  const std::string key = turn_key(reply.conversation, {reply.sequence}).encoded();
  return write(*impl_, kCommitReply,
               Params().bytes(key).bytes(reply.author_id).bytes(reply.content).integer(reply.hop));
}

Result<Committed, QueueError> PostgresQueue::set_policy(MentionDispatchPolicy policy) {
  const std::scoped_lock guard(mutex_);
  return write(*impl_, kSetPolicy, Params().boolean(policy.enabled).integer(policy.max_hops));
}

Result<Committed, QueueError> PostgresQueue::set_authorized(const std::string& source_id,
                                                            const std::string& target_id,
                                                            bool authorized) {
  const std::scoped_lock guard(mutex_);
  return write(*impl_, authorized ? kAllow : kForbid, Params().bytes(source_id).bytes(target_id));
}

Result<Committed, QueueError> PostgresQueue::set_available(const std::string& agent_id,
                                                           bool available) {
  const std::scoped_lock guard(mutex_);
  return write(*impl_, available ? kMakeAvailable : kMakeUnavailable, Params().bytes(agent_id));
}

// ---- leases -------------------------------------------------------------------------------------

Result<std::optional<Lease>, LeaseError> PostgresQueue::claim(std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  Impl& db = *impl_;
  if (db.connected()) return unexpected{LeaseError::Unavailable};
  const auto max_attempts = std::int64_t{db.options().max_attempts};
  Transaction transaction(db);
  if (!transaction.begin()) return unexpected{LeaseError::Unavailable};
  if (!db.run(kMarkDead, Params().integer(max_attempts), "marking spent children dead")) {
    return unexpected{LeaseError::Unavailable};
  }
  auto taken = db.run(kClaim, Params().integer(duration.count()).integer(max_attempts), "claiming");
  if (!taken) return unexpected{LeaseError::Unavailable};
  std::optional<Lease> lease;
  if (taken->size() == 1) {
    lease = Lease{.child_id = static_cast<std::uint64_t>(taken->integer(0, 0)),
                  .token = taken->bytes(0, 1),
                  .expires_at = store_time(taken->integer(0, 2)),
                  .attempt = static_cast<std::uint32_t>(taken->integer(0, 3)),
                  .request = request_from(*taken, 0, 4)};
  }
  if (!transaction.commit()) return unexpected{LeaseError::Unavailable};
  return lease;
}

Result<StoreTime, LeaseError> PostgresQueue::renew(const std::string& token,
                                                   std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  if (impl_->connected()) return unexpected{LeaseError::Unavailable};
  auto renewed = impl_->run(kRenew, Params().bytes(token).integer(duration.count()), "renewing");
  if (!renewed) return unexpected{LeaseError::Unavailable};
  if (renewed->size() == 0) return unexpected{LeaseError::StaleToken};
  return store_time(renewed->integer(0, 0));
}

namespace {

Result<TurnState, LeaseError> settle_lease(Impl& db, const Sql& sql, const Params& params) {
  if (db.connected()) return unexpected{LeaseError::Unavailable};
  auto settled = db.run(sql, params, "ending a lease");
  if (!settled) return unexpected{LeaseError::Unavailable};
  if (settled->size() == 0) return unexpected{LeaseError::StaleToken};
  const auto state = turn_state_from_name(settled->bytes(0, 0));
  if (!state) return unexpected{LeaseError::Unavailable};
  return *state;
}

}  // namespace

Result<TurnState, LeaseError> PostgresQueue::complete(const std::string& token) {
  const std::scoped_lock guard(mutex_);
  return settle_lease(*impl_, kComplete, Params().bytes(token));
}

Result<TurnState, LeaseError> PostgresQueue::fail(const std::string& token) {
  const std::scoped_lock guard(mutex_);
  return settle_lease(*impl_, kFail, Params().bytes(token).integer(impl_->options().max_attempts));
}

Result<StoreTime, QueueError> PostgresQueue::now() {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto now = impl_->run(kNow, "reading the server's clock");
  if (!now) return unexpected{now.error()};
  return store_time(now->integer(0, 0));
}

// ---- lifecycle ----------------------------------------------------------------------------------

Result<bool, QueueError> PostgresQueue::settle(std::uint64_t id, TurnState state) {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto done = impl_->run(kSettle, Params().integer(to_column(id)).bytes(name(state)), "settling");
  if (!done) return unexpected{done.error()};
  return done->changed() > 0;
}

Result<bool, QueueError> PostgresQueue::remove(std::uint64_t id) {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto done = impl_->run(kRemove, Params().integer(to_column(id)), "deleting a child turn");
  if (!done) return unexpected{done.error()};
  return done->changed() > 0;
}

Result<std::size_t, QueueError> PostgresQueue::prune() {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto done = impl_->run(kPrune, "pruning");
  if (!done) return unexpected{done.error()};
  return done->changed();
}

Result<Committed, QueueError> PostgresQueue::clear() {
  const std::scoped_lock guard(mutex_);
  return write(*impl_, kClear, Params());
}

// ---- inspection ---------------------------------------------------------------------------------

Result<std::vector<IdempotencyRecord>, QueueError> PostgresQueue::records() {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto rows = impl_->run(kRecords, "reading idempotency records");
  if (!rows) return unexpected{rows.error()};
  std::vector<IdempotencyRecord> out;
  for (int r = 0; r < rows->size(); ++r) {
    out.push_back({rows->bytes(r, 0), static_cast<std::uint64_t>(rows->integer(r, 1))});
  }
  return out;
}

Result<std::vector<ChildTurn>, QueueError> PostgresQueue::children() {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto rows = impl_->run(kChildren, "reading child turns");
  if (!rows) return unexpected{rows.error()};
  std::vector<ChildTurn> out;
  for (int r = 0; r < rows->size(); ++r) {
    const auto state = turn_state_from_name(rows->bytes(r, 2));
    if (!state) {
      return unexpected{
          error(QueueErrorKind::Internal, "child turn " + std::to_string(rows->integer(r, 0)) +
                                              " has an unknown state '" + rows->bytes(r, 2) + "'")};
    }
    out.push_back({.id = static_cast<std::uint64_t>(rows->integer(r, 0)),
                   .key = rows->bytes(r, 1),
                   .request = request_from(*rows, r, 5),
                   .state = *state,
                   .attempts = static_cast<std::uint32_t>(rows->integer(r, 3)),
                   .lease_token = rows->null(r, 12) ? std::string() : rows->bytes(r, 12),
                   .lease_expires_at = rows->null(r, 4)
                                           ? std::nullopt
                                           : std::optional(store_time(rows->integer(r, 4)))});
  }
  return out;
}

Result<std::vector<UniqueIndex>, QueueError> PostgresQueue::idempotency_indexes() {
  const std::scoped_lock guard(mutex_);
  if (auto lost = impl_->connected()) return unexpected{*std::move(lost)};
  auto rows = impl_->run(kIndexes, "reading the idempotency table's indexes");
  if (!rows) return unexpected{rows.error()};
  std::vector<UniqueIndex> out;
  for (int r = 0; r < rows->size(); ++r) {
    UniqueIndex index{.columns = {}, .partial = rows->boolean(r, 0)};
    const std::string columns = rows->bytes(r, 1);
    std::size_t start = 0;
    while (start <= columns.size()) {
      const std::size_t comma = columns.find(',', start);
      index.columns.push_back(columns.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    out.push_back(std::move(index));
  }
  return out;
}

}  // namespace thm::postgres
