// The SQLite host queue: SPEC §4's transaction over the tables of schema.sql, through the
// SQLite client (client.hpp). Every statement is prepared once per connection and reset
// after use.
#include "thm/sqlite/sqlite_queue.hpp"

#include <optional>
#include <string>
#include <utility>

#include "thm/sqlite/client.hpp"
#include "thm/sqlite/schema_sql.hpp"

namespace thm::sqlite {
namespace {

// The schema version this code writes and reads (`PRAGMA user_version`).
constexpr int kSchemaVersion = 1;

// SQLite's clock in milliseconds since the Unix epoch. SQLite 3.40 has no
// `unixepoch('subsec')`; `julianday('now')` keeps milliseconds, and 'now' is one instant
// for the whole of a statement's step.
#define THM_SQLITE_NOW "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)"

// Sequences are u64; SQLite integers are i64. The two's-complement cast is injective.
std::int64_t to_column(std::uint64_t value) { return static_cast<std::int64_t>(value); }
std::uint64_t from_column(std::int64_t value) { return static_cast<std::uint64_t>(value); }

QueueError error(QueueErrorKind kind, std::string message) { return {kind, std::move(message)}; }

}  // namespace

// ---- the connection -----------------------------------------------------------------------

// The connection (with the statements prepared on it) and the options it was opened with.
class SqliteQueue::Impl {
 public:
  Impl(client::Connection connection, Options opened)
      : db(std::move(connection)), options(std::move(opened)) {}

  // Whether the step may go on at `point`: the hook says so, or there is none.
  bool pass(HookPoint point, const MentionTurnRequest& request) const {
    return !options.hook || options.hook(point, request);
  }

  client::Connection db;
  const Options options;
};

namespace {

using client::Statement;
using client::Transaction;

// One statement run in its own transaction (the host's writes).
template <class Bind>
Result<Committed, QueueError> write(client::Connection& db, const char* sql, Bind&& bind) {
  auto statement = db.prepared(sql);
  if (!statement) return unexpected{statement.error()};
  bind(*statement);
  const int rc = statement->step();
  if (rc != client::kDone) return unexpected{db.failure(rc, "writing")};
  return Committed{};
}

MentionTurnRequest request_from(const Statement& row, int first) {
  MentionTurnRequest request;
  request.conversation.desk_id = row.bytes(first);
  if (!row.null(first + 1)) request.conversation.thread_root = from_column(row.integer(first + 1));
  request.key.trigger_sequence = from_column(row.integer(first + 2));
  request.source_id = row.bytes(first + 3);
  request.target_id = row.bytes(first + 4);
  request.content = row.bytes(first + 5);
  request.child_hop = static_cast<std::uint32_t>(row.integer(first + 6));
  return request;
}

StoreTime store_time(std::int64_t millis) { return StoreTime(std::chrono::milliseconds(millis)); }

}  // namespace

// ---- opening ---------------------------------------------------------------------------------

SqliteQueue::SqliteQueue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SqliteQueue::~SqliteQueue() = default;

Result<std::unique_ptr<SqliteQueue>, QueueError> SqliteQueue::open(const std::string& path,
                                                                   Options options) {
  auto opened =
      client::Connection::open(path, client::Access::ReadWriteCreate, options.busy_timeout);
  if (!opened) return unexpected{opened.error()};
  auto impl = std::make_unique<Impl>(*std::move(opened), std::move(options));
  client::Connection& db = impl->db;

  const auto exec = [&](const char* sql) -> std::optional<QueueError> {
    auto done = db.execute(sql);
    if (done) return std::nullopt;
    return error(QueueErrorKind::Unavailable,
                 "cannot set up SQLite database '" + path + "': " + done.error().message);
  };
  // WAL, so readers never wait for the writer; FULL, so a commit survives power loss too
  // (set here rather than trusted to the build's default).
  {
    auto mode = db.prepared("PRAGMA journal_mode=WAL");
    if (!mode) return unexpected{mode.error()};
    if (mode->step() != client::kRow || mode->bytes(0) != "wal") {
      return unexpected{error(QueueErrorKind::Unavailable,
                              "SQLite database '" + path + "' cannot use WAL mode (it reports '" +
                                  mode->bytes(0) + "')")};
    }
  }
  if (auto failed = exec("PRAGMA synchronous=FULL")) return unexpected{*failed};
  if (auto failed = exec("BEGIN IMMEDIATE")) return unexpected{*failed};
  {
    auto version = db.prepared("PRAGMA user_version");
    if (!version) return unexpected{version.error()};
    if (version->step() != client::kRow)
      return unexpected{error(QueueErrorKind::Internal, "no user_version")};
    const auto found = version->integer(0);
    if (found > kSchemaVersion) {
      (void)exec("ROLLBACK");
      return unexpected{error(QueueErrorKind::Internal,
                              "SQLite database '" + path + "' has thm schema version " +
                                  std::to_string(found) + "; this build knows version " +
                                  std::to_string(kSchemaVersion))};
    }
  }
  if (auto failed = exec(kSchemaSql)) {
    (void)exec("ROLLBACK");
    return unexpected{*failed};
  }
  if (auto failed = exec("PRAGMA user_version = 1")) return unexpected{*failed};
  if (auto failed = exec("COMMIT")) return unexpected{*failed};
  return std::unique_ptr<SqliteQueue>(new SqliteQueue(std::move(impl)));
}

// ---- enqueue -----------------------------------------------------------------------------------

namespace {

// The steps of the enqueue transaction, each on the step's connection; each answers what
// ends the step early (an error, or an outcome), or nothing to go on.

// The committed reply, read inside the transaction that will insert, must match the request.
std::optional<QueueError> verify_reply(client::Connection& db, const MentionTurnRequest& request,
                                       const std::string& key) {
  auto reply = db.prepared("SELECT author_id, content, hop FROM thm_reply WHERE turn_key = ?1");
  if (!reply) return reply.error();
  reply->bind(1, key);
  const int rc = reply->step();
  if (rc == client::kDone) {
    return error(QueueErrorKind::TriggerMissing, "no committed reply under key " + key);
  }
  if (rc != client::kRow) return db.failure(rc, "reading the committed reply");
  return trigger_mismatch(request, reply->bytes(0), reply->bytes(1), reply->integer(2), key);
}

// The live policy, the pair's authorization, the target's availability.
std::optional<Result<EnqueueOutcome, QueueError>> revalidate(client::Connection& db,
                                                             const MentionTurnRequest& request) {
  auto policy = db.prepared(
      "SELECT (SELECT enabled AND ?1 <= max_hops FROM thm_policy WHERE id = 1),"
      " EXISTS (SELECT 1 FROM thm_forbidden_pair WHERE source_id = ?2 AND target_id = ?3),"
      " EXISTS (SELECT 1 FROM thm_available_agent WHERE agent_id = ?3)");
  if (!policy) return unexpected{policy.error()};
  policy->bind(1, std::int64_t{request.child_hop})
      .bind(2, request.source_id)
      .bind(3, request.target_id);
  const int rc = policy->step();
  if (rc != client::kRow) return unexpected{db.failure(rc, "reading the policy")};
  if (policy->null(0) || policy->integer(0) == 0) return Refused{EnqueueRefusal::FeatureDisabled};
  if (policy->integer(1) != 0) return Refused{EnqueueRefusal::Unauthorized};
  if (policy->integer(2) == 0) return Refused{EnqueueRefusal::TargetUnavailable};
  return std::nullopt;
}

// The decision: one conditional insert on the unique key. The new record's id, or nothing
// when the key had one (`Already`).
Result<std::optional<std::int64_t>, QueueError> insert_record(client::Connection& db,
                                                              const std::string& key) {
  auto record = db.prepared(
      "INSERT INTO thm_idempotency (turn_key) VALUES (?1)"
      " ON CONFLICT (turn_key) DO NOTHING RETURNING id");
  if (!record) return unexpected{record.error()};
  record->bind(1, key);
  const int rc = record->step();
  if (rc == client::kDone) return std::optional<std::int64_t>{};
  if (rc != client::kRow) return unexpected{db.failure(rc, "inserting the idempotency record")};
  const std::int64_t id = record->integer(0);
  if (record->step() != client::kDone) {
    return unexpected{db.failure(client::kError, "finishing the idempotency insert")};
  }
  return std::optional<std::int64_t>{id};
}

// The child, under the record's id.
std::optional<QueueError> insert_child(client::Connection& db, const MentionTurnRequest& request,
                                       const std::string& key, std::int64_t id) {
  auto child = db.prepared(
      "INSERT INTO thm_child_turn (id, turn_key, desk_id, thread_root, trigger_sequence,"
      " source_id, target_id, content, child_hop) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!child) return child.error();
  Statement& insert = *child;
  insert.bind(1, id).bind(2, key).bind(3, request.conversation.desk_id);
  if (request.conversation.thread_root) {
    insert.bind(4, to_column(*request.conversation.thread_root));
  } else {
    insert.bind_null(4);
  }
  insert.bind(5, to_column(request.key.trigger_sequence))
      .bind(6, request.source_id)
      .bind(7, request.target_id)
      .bind(8, request.content)
      .bind(9, std::int64_t{request.child_hop});
  const int rc = insert.step();
  if (rc != client::kDone) return db.failure(rc, "inserting the child turn");
  return std::nullopt;
}

}  // namespace

Result<EnqueueOutcome, QueueError> SqliteQueue::enqueue_once(
    const MentionTurnRequest& request) noexcept {
  const std::scoped_lock guard(mutex_);
  Impl& impl = *impl_;
  client::Connection& db = impl.db;
  const Options& limits = impl.options;
  if (auto over = exceeds_limits(request, limits.max_content_bytes, limits.max_id_bytes)) {
    return unexpected{*std::move(over)};
  }
  // The steps in order, each until the hook at the point after it; the transaction rolls
  // back when it is left uncommitted.
  const auto stopped_at = [&](HookPoint point) { return !impl.pass(point, request); };
  const std::string key = turn_key(request).encoded();
  Transaction transaction(db);
  if (auto begun = transaction.begin(); !begun) return unexpected{begun.error()};
  if (stopped_at(HookPoint::AfterBegin)) return unexpected{rolled_back_at(HookPoint::AfterBegin)};
  if (auto failed = verify_reply(db, request, key)) return unexpected{*std::move(failed)};
  if (auto ended = revalidate(db, request)) return *std::move(ended);
  if (stopped_at(HookPoint::AfterValidateReads)) {
    return unexpected{rolled_back_at(HookPoint::AfterValidateReads)};
  }
  const auto id = insert_record(db, key);
  if (!id) return unexpected{id.error()};
  if (!*id) return Already{};
  if (stopped_at(HookPoint::AfterIdempotencyStatement)) {
    return unexpected{rolled_back_at(HookPoint::AfterIdempotencyStatement)};
  }
  if (auto failed = insert_child(db, request, key, **id)) return unexpected{*std::move(failed)};
  for (const HookPoint point : {HookPoint::AfterChildInsert, HookPoint::BeforeCommit}) {
    if (stopped_at(point)) return unexpected{rolled_back_at(point)};
  }
  if (auto committed = transaction.commit(); !committed) {
    QueueError failed = committed.error();
    if (failed.kind != QueueErrorKind::Unavailable) failed.kind = QueueErrorKind::Indeterminate;
    return unexpected{std::move(failed)};
  }
  if (stopped_at(HookPoint::AfterCommitBeforeReturn)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

// ---- the host's writes -------------------------------------------------------------------------

Result<Committed, QueueError> SqliteQueue::commit_reply(const CommittedReply& reply) {
  const std::scoped_lock guard(mutex_);
  const std::string key = turn_key(reply.conversation, {reply.sequence}).encoded();
  return write(impl_->db,
               "INSERT INTO thm_reply (turn_key, author_id, content, hop) VALUES (?1, ?2, ?3, ?4)"
               " ON CONFLICT (turn_key) DO UPDATE SET author_id = excluded.author_id,"
               " content = excluded.content, hop = excluded.hop",
               [&](Statement& s) {
                 s.bind(1, key)
                     .bind(2, reply.author_id)
                     .bind(3, reply.content)
                     .bind(4, std::int64_t{reply.hop});
               });
}

Result<Committed, QueueError> SqliteQueue::set_policy(MentionDispatchPolicy policy) {
  const std::scoped_lock guard(mutex_);
  return write(
      impl_->db,
      "INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, ?1, ?2)"
      " ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled,"
      " max_hops = excluded.max_hops",
      [&](Statement& s) {
        s.bind(1, std::int64_t{policy.enabled ? 1 : 0}).bind(2, std::int64_t{policy.max_hops});
      });
}

Result<Committed, QueueError> SqliteQueue::set_authorized(const std::string& source_id,
                                                          const std::string& target_id,
                                                          bool authorized) {
  const std::scoped_lock guard(mutex_);
  const char* sql =
      authorized
          ? "DELETE FROM thm_forbidden_pair WHERE source_id = ?1 AND target_id = ?2"
          : "INSERT OR IGNORE INTO thm_forbidden_pair (source_id, target_id) VALUES (?1, ?2)";
  return write(impl_->db, sql, [&](Statement& s) { s.bind(1, source_id).bind(2, target_id); });
}

Result<Committed, QueueError> SqliteQueue::set_available(const std::string& agent_id,
                                                         bool available) {
  const std::scoped_lock guard(mutex_);
  const char* sql = available ? "INSERT OR IGNORE INTO thm_available_agent (agent_id) VALUES (?1)"
                              : "DELETE FROM thm_available_agent WHERE agent_id = ?1";
  return write(impl_->db, sql, [&](Statement& s) { s.bind(1, agent_id); });
}

// ---- leases -------------------------------------------------------------------------------------

Result<std::optional<Lease>, LeaseError> SqliteQueue::claim(std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  client::Connection& db = impl_->db;
  const auto max_attempts = std::int64_t{impl_->options.max_attempts};
  // Store time is read by each statement itself; the write lock makes the two one step.
  Transaction transaction(db);
  if (!transaction.begin()) return unexpected{LeaseError::Unavailable};
  {
    auto dead = db.prepared(
        "UPDATE thm_child_turn SET state = 'dead' WHERE state = 'pending' AND attempts >= ?1"
        " AND (lease_expires_at IS NULL OR lease_expires_at <= " THM_SQLITE_NOW ")");
    if (!dead) return unexpected{LeaseError::Unavailable};
    dead->bind(1, max_attempts);
    if (dead->step() != client::kDone) return unexpected{LeaseError::Unavailable};
  }
  std::optional<Lease> lease;
  {
    auto taken = db.prepared(
        "UPDATE thm_child_turn SET attempts = attempts + 1,"
        " lease_token = lower(hex(randomblob(16))),"
        " lease_expires_at = " THM_SQLITE_NOW
        " + ?1"
        " WHERE id = (SELECT id FROM thm_child_turn WHERE state = 'pending' AND attempts < ?2"
        "   AND (lease_expires_at IS NULL OR lease_expires_at <= " THM_SQLITE_NOW
        ")"
        "   ORDER BY id LIMIT 1)"
        " RETURNING id, lease_token, lease_expires_at, attempts, desk_id, thread_root,"
        " trigger_sequence, source_id, target_id, content, child_hop");
    if (!taken) return unexpected{LeaseError::Unavailable};
    taken->bind(1, std::int64_t{duration.count()}).bind(2, max_attempts);
    const int rc = taken->step();
    if (rc == client::kRow) {
      const Statement& row = *taken;
      lease = Lease{.child_id = static_cast<std::uint64_t>(row.integer(0)),
                    .token = row.bytes(1),
                    .expires_at = store_time(row.integer(2)),
                    .attempt = static_cast<std::uint32_t>(row.integer(3)),
                    .request = request_from(row, 4)};
      if (taken->step() != client::kDone) return unexpected{LeaseError::Unavailable};
    } else if (rc != client::kDone) {
      return unexpected{LeaseError::Unavailable};
    }
  }
  if (!transaction.commit()) return unexpected{LeaseError::Unavailable};
  return lease;
}

Result<StoreTime, LeaseError> SqliteQueue::renew(const std::string& token,
                                                 std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  auto renewed = impl_->db.prepared(
      "UPDATE thm_child_turn SET lease_expires_at = " THM_SQLITE_NOW
      " + ?2"
      " WHERE lease_token = ?1 AND state = 'pending' AND lease_expires_at > " THM_SQLITE_NOW
      " RETURNING lease_expires_at");
  if (!renewed) return unexpected{LeaseError::Unavailable};
  renewed->bind_text(1, token).bind(2, std::int64_t{duration.count()});
  const int rc = renewed->step();
  if (rc == client::kDone) return unexpected{LeaseError::StaleToken};
  if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
  const StoreTime expires_at = store_time(renewed->integer(0));
  if (renewed->step() != client::kDone) return unexpected{LeaseError::Unavailable};
  return expires_at;
}

namespace {

// Ends the live lease `token` with one statement (`sql` binds the token as ?1 and, if it
// has a second parameter, the attempt limit as ?2, and returns the new state).
Result<TurnState, LeaseError> settle_lease(SqliteQueue::Impl& impl, const char* sql,
                                           const std::string& token) {
  auto settled = impl.db.prepared(sql);
  if (!settled) return unexpected{LeaseError::Unavailable};
  settled->bind_text(1, token);
  if (settled->parameters() >= 2) settled->bind(2, std::int64_t{impl.options.max_attempts});
  const int rc = settled->step();
  if (rc == client::kDone) return unexpected{LeaseError::StaleToken};
  if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
  const auto state = turn_state_from_name(settled->bytes(0));
  if (settled->step() != client::kDone || !state) return unexpected{LeaseError::Unavailable};
  return *state;
}

}  // namespace

Result<TurnState, LeaseError> SqliteQueue::complete(const std::string& token) {
  const std::scoped_lock guard(mutex_);
  return settle_lease(*impl_,
                      "UPDATE thm_child_turn SET state = 'completed', lease_token = NULL"
                      " WHERE lease_token = ?1 AND state = 'pending'"
                      " AND lease_expires_at > " THM_SQLITE_NOW " RETURNING state",
                      token);
}

Result<TurnState, LeaseError> SqliteQueue::fail(const std::string& token) {
  const std::scoped_lock guard(mutex_);
  return settle_lease(*impl_,
                      "UPDATE thm_child_turn SET lease_token = NULL, lease_expires_at = NULL,"
                      " state = CASE WHEN attempts >= ?2 THEN 'failed' ELSE 'pending' END"
                      " WHERE lease_token = ?1 AND state = 'pending'"
                      " AND lease_expires_at > " THM_SQLITE_NOW " RETURNING state",
                      token);
}

Result<StoreTime, QueueError> SqliteQueue::now() {
  const std::scoped_lock guard(mutex_);
  auto now = impl_->db.prepared("SELECT " THM_SQLITE_NOW);
  if (!now) return unexpected{now.error()};
  const int rc = now->step();
  if (rc != client::kRow) return unexpected{impl_->db.failure(rc, "reading the store's clock")};
  return store_time(now->integer(0));
}

// ---- lifecycle ----------------------------------------------------------------------------------

Result<bool, QueueError> SqliteQueue::settle(std::uint64_t id, TurnState state) {
  const std::scoped_lock guard(mutex_);
  auto written =
      write(impl_->db, "UPDATE thm_child_turn SET state = ?2, lease_token = NULL WHERE id = ?1",
            [&](Statement& s) { s.bind(1, to_column(id)).bind_text(2, name(state)); });
  if (!written) return unexpected{written.error()};
  return impl_->db.changes() > 0;
}

Result<bool, QueueError> SqliteQueue::remove(std::uint64_t id) {
  const std::scoped_lock guard(mutex_);
  auto written = write(impl_->db, "DELETE FROM thm_child_turn WHERE id = ?1",
                       [&](Statement& s) { s.bind(1, to_column(id)); });
  if (!written) return unexpected{written.error()};
  return impl_->db.changes() > 0;
}

Result<std::size_t, QueueError> SqliteQueue::prune() {
  const std::scoped_lock guard(mutex_);
  auto written = impl_->db.run("DELETE FROM thm_child_turn WHERE state <> 'pending'");
  if (!written) return unexpected{written.error()};
  return static_cast<std::size_t>(impl_->db.changes());
}

Result<Committed, QueueError> SqliteQueue::clear() {
  const std::scoped_lock guard(mutex_);
  Transaction transaction(impl_->db);
  if (auto begun = transaction.begin(); !begun) return begun;
  for (const char* sql : {"DELETE FROM thm_reply", "DELETE FROM thm_policy",
                          "DELETE FROM thm_forbidden_pair", "DELETE FROM thm_available_agent",
                          "DELETE FROM thm_idempotency", "DELETE FROM thm_child_turn"}) {
    if (auto done = impl_->db.run(sql); !done) return done;
  }
  return transaction.commit();
}

// ---- inspection ---------------------------------------------------------------------------------

Result<std::vector<IdempotencyRecord>, QueueError> SqliteQueue::records() {
  const std::scoped_lock guard(mutex_);
  auto rows = impl_->db.prepared("SELECT turn_key, id FROM thm_idempotency ORDER BY id");
  if (!rows) return unexpected{rows.error()};
  std::vector<IdempotencyRecord> out;
  int rc = client::kRow;
  while ((rc = rows->step()) == client::kRow) {
    out.push_back({rows->bytes(0), static_cast<std::uint64_t>(rows->integer(1))});
  }
  if (rc != client::kDone) return unexpected{impl_->db.failure(rc, "reading idempotency records")};
  return out;
}

Result<std::vector<ChildTurn>, QueueError> SqliteQueue::children() {
  const std::scoped_lock guard(mutex_);
  auto rows = impl_->db.prepared(
      "SELECT id, turn_key, state, attempts, lease_expires_at, desk_id, thread_root,"
      " trigger_sequence, source_id, target_id, content, child_hop, lease_token"
      " FROM thm_child_turn ORDER BY id");
  if (!rows) return unexpected{rows.error()};
  std::vector<ChildTurn> out;
  int rc = client::kRow;
  while ((rc = rows->step()) == client::kRow) {
    const Statement& row = *rows;
    const auto state = turn_state_from_name(row.bytes(2));
    if (!state) {
      return unexpected{
          error(QueueErrorKind::Internal, "child turn " + std::to_string(row.integer(0)) +
                                              " has an unknown state '" + row.bytes(2) + "'")};
    }
    out.push_back({.id = static_cast<std::uint64_t>(row.integer(0)),
                   .key = row.bytes(1),
                   .request = request_from(row, 5),
                   .state = *state,
                   .attempts = static_cast<std::uint32_t>(row.integer(3)),
                   .lease_token = row.bytes(12),
                   .lease_expires_at =
                       row.null(4) ? std::nullopt : std::optional(store_time(row.integer(4)))});
  }
  if (rc != client::kDone) return unexpected{impl_->db.failure(rc, "reading child turns")};
  return out;
}

Result<std::vector<UniqueIndex>, QueueError> SqliteQueue::idempotency_indexes() {
  const std::scoped_lock guard(mutex_);
  // PRAGMA index_list: seq, name, unique, origin, partial.
  auto list = impl_->db.prepared(
      "SELECT name, \"unique\", partial FROM pragma_index_list('thm_idempotency')");
  if (!list) return unexpected{list.error()};
  std::vector<std::pair<std::string, bool>> unique;
  int rc = client::kRow;
  while ((rc = list->step()) == client::kRow) {
    if (list->integer(1) != 0) unique.emplace_back(list->bytes(0), list->integer(2) != 0);
  }
  if (rc != client::kDone) return unexpected{impl_->db.failure(rc, "listing indexes")};
  std::vector<UniqueIndex> out;
  for (const auto& [index, partial] : unique) {
    auto info = impl_->db.prepared("SELECT name FROM pragma_index_info(?1) ORDER BY seqno");
    if (!info) return unexpected{info.error()};
    info->bind_text(1, index);
    UniqueIndex described{.columns = {}, .partial = partial};
    while ((rc = info->step()) == client::kRow) described.columns.push_back(info->bytes(0));
    if (rc != client::kDone) return unexpected{impl_->db.failure(rc, "describing an index")};
    out.push_back(std::move(described));
  }
  return out;
}

}  // namespace thm::sqlite
