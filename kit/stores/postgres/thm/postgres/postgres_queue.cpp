// The PostgreSQL host queue through libpq, by way of the PostgreSQL client (client.hpp).
// SPEC §4's steps are the functions of thm_queue.sql, the same ones a host in any language
// calls; this file calls them. Every statement is prepared once per connection; parameters
// and results travel in binary (u64s as decimal text), so ids and content keep every byte.
#include "thm/postgres/postgres_queue.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "thm/postgres/client.hpp"
#include "thm/postgres/thm_queue_sql.hpp"

namespace thm::postgres {
namespace {

using client::Connection;
using client::kBool;
using client::kBytea;
using client::kInt4;
using client::kInt8;
using client::kNumeric;
using client::kText;
using client::Params;
using client::Rows;
using client::Sql;
using client::Transaction;

// The version thm_queue.sql stamps; version 1 (the tables alone) is upgraded by applying it.
constexpr int kSchemaVersion = 5;

// ---- the functions of thm_queue.sql: what a host in any language calls ----------------------

// u64 arguments travel as NUMERIC (Params::u64).
const Sql kEnqueueOnce{"thm_enqueue_once",
                       "SELECT outcome, reason FROM thm_enqueue_once($1, $2, $3, $4, $5, $6, $7)",
                       {kBytea, kNumeric, kNumeric, kBytea, kBytea, kBytea, kInt8}};
const Sql kCommitReply{"thm_commit_reply",
                       "SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)",
                       {kBytea, kNumeric, kNumeric, kBytea, kBytea, kInt8}};
// The claimed request's sequences come back through thm_u64_to_column, as the BIGINTs the
// tables keep, so request_from reads them as it reads a table row.
const Sql kClaim{"thm_claim",
                 "SELECT child_id, lease_token, lease_expires_at, attempt, desk_id,"
                 " thm_u64_to_column(thread_root), thm_u64_to_column(trigger_sequence),"
                 " source_id, target_id, content, child_hop FROM thm_claim($1, $2)",
                 {kInt8, kInt8}};
const Sql kRenew{"thm_renew", "SELECT thm_renew($1, $2)", {kText, kInt8}};
const Sql kComplete{"thm_complete", "SELECT thm_complete($1)", {kText}};
const Sql kFail{"thm_fail", "SELECT thm_fail($1, $2)", {kText, kInt8}};
const Sql kNow{"thm_now", "SELECT thm_now()", {}};

// ---- the hook seam (thm_hook_point), on the second connection -----------------------------

// The advisory locks (backend pid, kHookLockBase + ordinal) thm_hook_point waits for, at
// ordinals 0 to 4 (the HookPoints AfterBegin … BeforeCommit, each its enumerator's value).
constexpr int kHookLockBase = 7411270;
const Sql kHoldHookPoints{
    "thm_hold_hook_points",
    "SELECT pg_advisory_lock($1, $2 + point) FROM generate_series(0, 4) point",
    {kInt4, kInt4}};
// The go-ahead at ordinal `$2` (the lock thm_hook_point checks is taken first), then the
// point's own lock released.
const Sql kReleaseHookPoint{"thm_release_hook_point",
                            "SELECT pg_advisory_unlock($1, $2) FROM"
                            " (SELECT pg_advisory_lock($1, $2 + 10)) go_ahead",
                            {kInt4, kInt4}};
const Sql kReleaseHookPoints{"thm_release_hook_points", "SELECT pg_advisory_unlock_all()", {}};
const Sql kCancelStep{"thm_cancel_step", "SELECT pg_cancel_backend($1)", {kInt4}};

// ---- the host's other writes and the inspector: plain SQL on the tables --------------------

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

// ---- the queue's connections -------------------------------------------------------------------

// The step's connection and, with a hook installed, a second one that answers the hook
// points inside thm_enqueue_once (thm_hook_point in thm_queue.sql): the step's session has
// thm.hooks = on, so at each inner point the function sends a notice and waits for an
// advisory lock the second connection holds. The notice receiver runs the hook, then
// releases that lock (go on) or cancels the step's statement (fail there).
class PostgresQueue::Impl {
 public:
  Impl(std::unique_ptr<Connection> main, std::unique_ptr<Connection> hooks, Options options)
      : main_(std::move(main)), hooks_(std::move(hooks)), options_(std::move(options)) {
    if (hooks_) main_->on_notice(&Impl::on_notice, this);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  const Options& options() const { return options_; }
  bool alive() const { return main_->alive(); }
  // The step's connection.
  Connection& main() { return *main_; }

  // Both connections work, re-established and configured again if they were lost.
  std::optional<QueueError> connected() {
    const auto reconnected = main_->usable();
    if (!reconnected) return reconnected.error();
    if (*reconnected) {
      if (auto failed = configure()) return failed;
    }
    if (hooks_) {
      if (auto lost = hooks_->usable(); !lost) return lost.error();
    }
    return std::nullopt;
  }

  // The step's session settings.
  std::optional<QueueError> configure() {
    const std::string timeout =
        "SET lock_timeout = '" + std::to_string(options_.lock_timeout.count()) + "ms'";
    if (auto set = main_->command(timeout.c_str()); !set) return set.error();
    if (hooks_) {
      if (auto set = main_->command("SET thm.hooks = 'on'"); !set) return set.error();
    }
    return std::nullopt;
  }

  Result<Rows, QueueError> run(const Sql& sql, const Params& params, std::string_view what) {
    return main_->run(sql, params, what);
  }
  Result<Rows, QueueError> run(const Sql& sql, std::string_view what) {
    return main_->run(sql, Params{}, what);
  }
  Result<Committed, QueueError> command(const char* text) { return main_->command(text); }

  // Calls the hook at `point`: one inside the statement (through the seam), or after its
  // commit.
  bool pass(HookPoint point, const MentionTurnRequest& request) const {
    if (!options_.hook) return true;
    try {
      return options_.hook(point, request);
    } catch (...) {
      return false;  // a hook must not throw; one that does fails the step there
    }
  }

  // Runs thm_enqueue_once for `request`, answering its inner hook points. `refused_at` is
  // the point whose hook said no, if one did (the statement then failed, cancelled).
  Result<Rows, QueueError> enqueue(const Params& params, const MentionTurnRequest& request,
                                   std::optional<HookPoint>& refused_at) {
    refused_at.reset();
    if (!hooks_) return main_->run(kEnqueueOnce, params, "enqueueing");
    if (auto held =
            hooks_->run(kHoldHookPoints, Params().int4(main_->backend()).int4(kHookLockBase),
                        "holding the hook points");
        !held) {
      return unexpected{held.error()};
    }
    in_flight_ = &request;
    refused_at_.reset();
    auto rows = main_->run(kEnqueueOnce, params, "enqueueing");
    in_flight_ = nullptr;
    refused_at = refused_at_;
    (void)hooks_->run(kReleaseHookPoints, Params{}, "releasing the hook points");
    return rows;
  }

  Result<Committed, QueueError> apply_schema();

 private:
  // Called with every notice on the step's connection, from inside the libpq call that is
  // running the statement.
  static void on_notice(void* self, const char* message) noexcept {
    try {
      static_cast<Impl*>(self)->answer(message);
    } catch (...) {  // nothing may unwind through libpq; lock_timeout ends a step left waiting
    }
  }
  void answer(const char* message) {
    constexpr std::string_view kPrefix = "thm hook ";
    if (message == nullptr || in_flight_ == nullptr) return;
    const std::string_view text(message);
    if (!text.starts_with(kPrefix)) return;
    const auto point = hook_point_from_name(text.substr(kPrefix.size()));
    if (!point) return;
    const std::int32_t backend = main_->backend();
    if (pass(*point, *in_flight_)) {
      const std::int32_t ordinal = kHookLockBase + static_cast<std::int32_t>(*point);
      if (hooks_->run(kReleaseHookPoint, Params().int4(backend).int4(ordinal),
                      "releasing a hook point")) {
        return;
      }
    }
    // The hook said no (or the go-ahead could not be given): the statement fails here. If
    // even the cancel is lost, lock_timeout ends the wait.
    refused_at_ = *point;
    (void)hooks_->run(kCancelStep, Params().int4(backend), "cancelling the step");
  }

  std::unique_ptr<Connection> main_;
  std::unique_ptr<Connection> hooks_;
  Options options_;
  const MentionTurnRequest* in_flight_ = nullptr;
  std::optional<HookPoint> refused_at_;
};

}  // namespace thm::postgres

namespace thm::postgres {
namespace {

using Impl = PostgresQueue::Impl;

}  // namespace

Result<Committed, QueueError> PostgresQueue::Impl::apply_schema() {
  // The common case reads one row and takes no lock: the schema is there, at our version.
  // DDL (which locks the tables it names, even when they exist) runs only when it is not.
  Connection& db = *main_;
  const auto version = [&db]() -> Result<int, QueueError> {
    // Two statements: a missing table fails a query that names it even in a branch not taken.
    const Rows exists = db.script("SELECT to_regclass('thm_schema') IS NOT NULL");
    if (!exists.ok() || exists.size() != 1) {
      return unexpected{db.failure(exists, "looking for the thm schema")};
    }
    if (exists.bytes(0, 0) != "t") return 0;
    const Rows found = db.script("SELECT coalesce(max(version), 0)::text FROM thm_schema");
    if (!found.ok() || found.size() != 1) {
      return unexpected{db.failure(found, "reading the schema version")};
    }
    return std::stoi(found.bytes(0, 0));
  };
  // Versions before ours are upgraded by applying thm_queue.sql; later ones are refused.
  const auto newer = [](int found) -> std::optional<QueueError> {
    if (found <= kSchemaVersion) return std::nullopt;
    return error(QueueErrorKind::Internal,
                 "the database has thm schema version " + std::to_string(found) +
                     "; this build knows versions up to " + std::to_string(kSchemaVersion));
  };
  auto before = version();
  if (!before) return unexpected{before.error()};
  if (auto unknown = newer(*before)) return unexpected{*unknown};
  if (*before == kSchemaVersion) return Committed{};

  Transaction transaction(*main_);
  if (auto begun = transaction.begin(); !begun) return begun;
  // One opener at a time applies the migration; a constant key for thm's schema.
  if (auto locked = command("SELECT pg_advisory_xact_lock(7411262)"); !locked) return locked;
  auto now = version();
  if (!now) return unexpected{now.error()};
  if (auto unknown = newer(*now)) return unexpected{*unknown};
  if (*now < kSchemaVersion) {
    if (auto applied = command(kThmQueueSql); !applied) return applied;
  }
  return transaction.commit();
}

PostgresQueue::PostgresQueue(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PostgresQueue::~PostgresQueue() = default;

Result<std::unique_ptr<PostgresQueue>, QueueError> PostgresQueue::open(const std::string& conninfo,
                                                                       Options options) {
  auto main = Connection::connect(conninfo);
  if (!main) return unexpected{main.error()};
  std::unique_ptr<Connection> hooks;
  if (options.hook) {
    auto second = Connection::connect(conninfo);
    if (!second) return unexpected{second.error()};
    hooks = *std::move(second);
  }
  auto impl = std::make_unique<Impl>(*std::move(main), std::move(hooks), std::move(options));
  if (auto failed = impl->configure()) return unexpected{*failed};
  if (auto applied = impl->apply_schema(); !applied) return unexpected{applied.error()};
  return std::unique_ptr<PostgresQueue>(new PostgresQueue(std::move(impl)));
}

// ---- enqueue -----------------------------------------------------------------------------------

namespace {

// thm_enqueue_once's parameters for `request`, in its order.
Params enqueue_params(const MentionTurnRequest& request) {
  return Params()
      .bytes(request.conversation.desk_id)
      .u64(request.conversation.thread_root)
      .u64(request.key.trigger_sequence)
      .bytes(request.source_id)
      .bytes(request.target_id)
      .bytes(request.content)
      .integer(request.child_hop);
}

// What thm_enqueue_once's row says: `Enqueued` for an admitted request (the caller then
// commits), the other answers and errors as the port spells them.
Result<EnqueueOutcome, QueueError> answer_of(const Rows& step, const MentionTurnRequest& request) {
  const std::string outcome = step.bytes(0, 0);
  const std::string reason = step.null(0, 1) ? std::string() : step.bytes(0, 1);
  if (outcome == "enqueued") return Enqueued{};
  if (outcome == "already") return Already{};
  if (outcome == "refused") {
    if (const auto refusal = enqueue_refusal_from_name(reason)) return Refused{*refusal};
  }
  if (outcome == "trigger_missing") {
    return unexpected{error(QueueErrorKind::TriggerMissing,
                            "no committed reply under key " + turn_key(request).encoded())};
  }
  if (outcome == "trigger_mismatch") {
    return unexpected{error(QueueErrorKind::TriggerMismatch,
                            "the request's " + (reason == "child_hop" ? "child hop" : reason) +
                                " differs from the committed reply under key " +
                                turn_key(request).encoded())};
  }
  return unexpected{error(QueueErrorKind::Internal,
                          "thm_enqueue_once answered '" + outcome + "' '" + reason + "'")};
}

}  // namespace

Result<EnqueueOutcome, QueueError> PostgresQueue::enqueue_once(
    const MentionTurnRequest& request) noexcept {
  const std::scoped_lock guard(mutex_);
  Impl& db = *impl_;
  const Options& limits = db.options();
  if (auto over = exceeds_limits(request, limits.max_content_bytes, limits.max_id_bytes)) {
    return unexpected{*std::move(over)};
  }

  if (auto lost = db.connected()) return unexpected{*std::move(lost)};

  // One statement in autocommit, with or without the suite's hook: the call is the step's
  // one transaction, and every answer but `enqueued` wrote nothing. Five of the six hook
  // points are inside it (the seam); the sixth, after the commit, is here. A statement that
  // failed on a live connection rolled back; on a lost one nobody knows whether it committed.
  std::optional<HookPoint> refused_at;
  auto step = db.enqueue(enqueue_params(request), request, refused_at);
  if (refused_at) {
    return unexpected{rolled_back_at(*refused_at)};
  }
  if (!step) {
    QueueError failed = step.error();
    if (!db.alive()) failed.kind = QueueErrorKind::Indeterminate;
    return unexpected{std::move(failed)};
  }
  auto decided = answer_of(*step, request);
  if (decided && std::holds_alternative<Enqueued>(*decided) &&
      !db.pass(HookPoint::AfterCommitBeforeReturn, request)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return decided;
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
  return write(*impl_, kCommitReply,
               Params()
                   .bytes(reply.conversation.desk_id)
                   .u64(reply.conversation.thread_root)
                   .u64(reply.sequence)
                   .bytes(reply.author_id)
                   .bytes(reply.content)
                   .integer(reply.hop));
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
  auto taken = db.run(kClaim, Params().integer(duration.count()).integer(db.options().max_attempts),
                      "claiming");
  if (!taken) return unexpected{LeaseError::Unavailable};
  if (taken->size() == 0) return std::optional<Lease>();
  return Lease{.child_id = static_cast<std::uint64_t>(taken->integer(0, 0)),
               .token = taken->bytes(0, 1),
               .expires_at = store_time(taken->integer(0, 2)),
               .attempt = static_cast<std::uint32_t>(taken->integer(0, 3)),
               .request = request_from(*taken, 0, 4)};
}

Result<StoreTime, LeaseError> PostgresQueue::renew(const std::string& token,
                                                   std::chrono::milliseconds duration) {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  if (impl_->connected()) return unexpected{LeaseError::Unavailable};
  auto renewed = impl_->run(kRenew, Params().bytes(token).integer(duration.count()), "renewing");
  if (!renewed) return unexpected{LeaseError::Unavailable};
  if (renewed->null(0, 0)) return unexpected{LeaseError::StaleToken};
  return store_time(renewed->integer(0, 0));
}

namespace {

Result<TurnState, LeaseError> settle_lease(Impl& db, const Sql& sql, const Params& params) {
  if (db.connected()) return unexpected{LeaseError::Unavailable};
  auto settled = db.run(sql, params, "ending a lease");
  if (!settled) return unexpected{LeaseError::Unavailable};
  if (settled->null(0, 0)) return unexpected{LeaseError::StaleToken};
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
