// One SQLite host queue with a flaw switch, a `SqlReferenceStore` driven by the generic
// harness (`StoreHarness`) over a setup that makes the flaw's schema. The unbroken path
// is the reference queue's transaction (kit/stores/sqlite): BEGIN IMMEDIATE, re-read the
// committed reply and the policy, decide with one conditional insert on a unique key, insert
// the child, commit. Each flaw departs from it in as few lines as it can, marked with its
// mutant's name.
#include "broken_sqlite.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "thm/conformance/store_harness.hpp"
#include "thm/conformance/temporary_directory.hpp"
#include "thm/sqlite/client.hpp"

namespace thm::conformance::sqlite_mutants {
namespace {

namespace client = thm::sqlite::client;

using Answer = Result<EnqueueOutcome, QueueError>;

constexpr std::array kBrokenFlaws{
    SqlFlaw::CheckThenInsert,   SqlFlaw::CatchUniqueViolation, SqlFlaw::AutocommitRecord,
    SqlFlaw::ClientClockExpiry, SqlFlaw::ClientClockPredicate, SqlFlaw::HiddenAttempts,
    SqlFlaw::TruncatedKey,      SqlFlaw::LiveStateDedup,       SqlFlaw::ExpiredTokenAccepted,
    SqlFlaw::ChildIdToken,      SqlFlaw::ClaimWithoutRowLock,  SqlFlaw::FixedLeaseLength,
    SqlFlaw::FixedShortLease};

// The reference queue's defaults (`thm::sqlite::Options`), declared by every mutant.
constexpr std::size_t kMaxContentBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxIdBytes = 1024;
constexpr std::uint32_t kMaxAttempts = 3;
constexpr int kBusyTimeoutMs = 30'000;
// M11: how much of the encoded key survives, and the connections' blob limit.
constexpr std::size_t kTruncatedKeyBytes = 24;
constexpr int kLengthLimitBytes = 64 << 10;

// SQLite's clock in milliseconds since the Unix epoch (3.40 has no `unixepoch('subsec')`).
const std::string kStoreNow = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)";

// ---- schemas: the reference tables, then the record table each flaw keeps -----------------------

// Every variant's tables but the record table. Ids, keys and content are BLOBs (byte for
// byte); times are milliseconds on SQLite's clock.
constexpr const char* kTables = R"sql(
CREATE TABLE thm_reply (turn_key BLOB PRIMARY KEY, author_id BLOB NOT NULL,
                        content BLOB NOT NULL, hop INTEGER NOT NULL);
CREATE TABLE thm_policy (id INTEGER PRIMARY KEY CHECK (id = 1), enabled INTEGER NOT NULL,
                         max_hops INTEGER NOT NULL);
CREATE TABLE thm_forbidden_pair (source_id BLOB NOT NULL, target_id BLOB NOT NULL,
                                 PRIMARY KEY (source_id, target_id));
CREATE TABLE thm_available_agent (agent_id BLOB PRIMARY KEY);
CREATE TABLE thm_child_turn (
  id INTEGER PRIMARY KEY, turn_key BLOB NOT NULL, desk_id BLOB NOT NULL, thread_root INTEGER,
  trigger_sequence INTEGER NOT NULL, source_id BLOB NOT NULL, target_id BLOB NOT NULL,
  content BLOB NOT NULL, child_hop INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'completed', 'failed', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0, lease_token TEXT, lease_expires_at INTEGER);
CREATE UNIQUE INDEX thm_child_turn_lease ON thm_child_turn (lease_token);
)sql";

// The reference: one record per key, an unconditional unique index, kept when the child goes.
constexpr const char* kRecordTable = R"sql(
CREATE TABLE thm_idempotency (id INTEGER PRIMARY KEY, turn_key BLOB NOT NULL);
CREATE UNIQUE INDEX thm_idempotency_turn_key ON thm_idempotency (turn_key);
)sql";

// M1: the record table with no index on the key.
constexpr const char* kRecordTableWithoutIndex = R"sql(
CREATE TABLE thm_idempotency (id INTEGER PRIMARY KEY, turn_key BLOB NOT NULL);
)sql";

// M14: no record table; uniqueness only among pending children.
constexpr const char* kLiveStateIndex = R"sql(
CREATE UNIQUE INDEX thm_child_turn_live_key ON thm_child_turn (turn_key) WHERE state = 'pending';
)sql";

const char* record_schema(SqlFlaw flaw) {
  switch (flaw) {
    case SqlFlaw::CheckThenInsert:
      return kRecordTableWithoutIndex;
    case SqlFlaw::LiveStateDedup:
      return kLiveStateIndex;
    case SqlFlaw::None:
    case SqlFlaw::CatchUniqueViolation:
    case SqlFlaw::AutocommitRecord:
    case SqlFlaw::ClientClockExpiry:
    case SqlFlaw::ClientClockPredicate:
    case SqlFlaw::HiddenAttempts:
    case SqlFlaw::TruncatedKey:
    case SqlFlaw::ExpiredTokenAccepted:
    case SqlFlaw::ChildIdToken:
    case SqlFlaw::ClaimWithoutRowLock:
    case SqlFlaw::FixedLeaseLength:
    case SqlFlaw::FixedShortLease:
      return kRecordTable;
  }
  detail::unreachable();
}

// The table whose rows are the idempotency records (M14 keeps them in the child table).
std::string record_table(SqlFlaw flaw) {
  return flaw == SqlFlaw::LiveStateDedup ? "thm_child_turn" : "thm_idempotency";
}

// ---- the store, through the SQLite client (thm/sqlite/client.hpp) ---------------------------

using client::Statement;
using client::Transaction;

// Sequences are u64, SQLite integers i64: the two's-complement cast is injective.
std::int64_t to_column(std::uint64_t value) { return static_cast<std::int64_t>(value); }

StoreTime store_time(std::int64_t millis) { return StoreTime(std::chrono::milliseconds(millis)); }

// The child's request from a row whose columns `first`… are desk_id, thread_root,
// trigger_sequence, source_id, target_id, content, child_hop.
MentionTurnRequest request_from(const Statement& row, int first) {
  MentionTurnRequest request;
  request.conversation.desk_id = row.bytes(first);
  if (!row.null(first + 1)) {
    request.conversation.thread_root = static_cast<std::uint64_t>(row.integer(first + 1));
  }
  request.key.trigger_sequence = static_cast<std::uint64_t>(row.integer(first + 2));
  request.source_id = row.bytes(first + 3);
  request.target_id = row.bytes(first + 4);
  request.content = row.bytes(first + 5);
  request.child_hop = static_cast<std::uint32_t>(row.integer(first + 6));
  return request;
}
constexpr const char* kRequestColumns =
    "desk_id, thread_root, trigger_sequence, source_id, target_id, content, child_hop";

QueueError error(QueueErrorKind kind, std::string message) { return {kind, std::move(message)}; }

// ---- the broken queue ---------------------------------------------------------------------------

// What every connection of one harness shares, and a forked process inherits a copy of: the
// flaw, the client clock the suite installs, and M9's attempts.
struct Shared {
  explicit Shared(SqlFlaw broken) : flaw(broken) {}
  const SqlFlaw flaw;
  std::mutex mutex{};
  Clocks::ClientClock client_clock{};
  std::map<std::int64_t, std::uint32_t> hidden_attempts{};  // M9 only
};

// How a broken queue opens its database, in the shape `SqlStoreSetup` opens a reference
// store with (`thm::sqlite::Options`): the reference limits, the hook its steps call, and
// what the harness's connections share.
struct MutantOptions {
  std::shared_ptr<Shared> shared{};
  TransactionHook hook{};
  std::size_t max_content_bytes = kMaxContentBytes;
  std::size_t max_id_bytes = kMaxIdBytes;
  std::uint32_t max_attempts = kMaxAttempts;
};

// The queue over one connection, a `SqlReferenceStore` like `SqliteQueue`, so the generic
// harness drives it as it drives the reference. Never throws; one call at a time.
class BrokenQueue final : public MentionTurnQueue {
 public:
  // A queue on its own connection to the database at `path`.
  [[nodiscard]] static Result<std::unique_ptr<BrokenQueue>, QueueError> open(
      const std::string& path, MutantOptions options) noexcept {
    auto db = client::Connection::open(path, client::Access::ReadWrite,
                                       std::chrono::milliseconds(kBusyTimeoutMs));
    if (!db) return unexpected{db.error()};
    return std::unique_ptr<BrokenQueue>(new BrokenQueue(*std::move(db), std::move(options)));
  }

  Answer enqueue_once(const MentionTurnRequest& request) noexcept override;
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) noexcept;
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) noexcept;
  Result<TurnState, LeaseError> complete(const std::string& token) noexcept {
    return settle_lease("state = 'completed', lease_token = NULL", token);
  }
  Result<TurnState, LeaseError> fail(const std::string& token) noexcept {
    return settle_lease(
        "lease_token = NULL, lease_expires_at = NULL,"
        " state = CASE WHEN attempts >= :max THEN 'failed' ELSE 'pending' END",
        token);
  }
  Result<StoreTime, QueueError> now() noexcept;

  // The host's writes, each one statement in autocommit.
  Result<Committed, QueueError> commit_reply(const CommittedReply& reply) noexcept;
  Result<Committed, QueueError> set_policy(MentionDispatchPolicy policy) noexcept;
  Result<Committed, QueueError> set_authorized(const std::string& source_id,
                                               const std::string& target_id,
                                               bool authorized) noexcept;
  Result<Committed, QueueError> set_available(const std::string& agent_id, bool available) noexcept;

  // Lifecycle: a child settled or deleted by id, settled children pruned (the records stay
  // in their own table; M14 has none), every row and M9's attempts cleared.
  Result<bool, QueueError> settle(std::uint64_t id, TurnState state) noexcept;
  Result<bool, QueueError> remove(std::uint64_t id) noexcept;
  Result<std::size_t, QueueError> prune() noexcept;
  Result<Committed, QueueError> clear() noexcept;

  // Inspection: the rows as stored (M14's records are its children), and the record table's
  // unique indexes over `turn_key`, as SQLite lists them.
  Result<std::vector<IdempotencyRecord>, QueueError> records() noexcept;
  Result<std::vector<ChildTurn>, QueueError> children() noexcept;
  Result<std::vector<UniqueIndex>, QueueError> idempotency_indexes() noexcept;

 private:
  BrokenQueue(client::Connection db, MutantOptions options)
      : shared_(std::move(options.shared)),
        flaw_(shared_->flaw),
        hook_(std::move(options.hook)),
        limits_{options.max_content_bytes, options.max_id_bytes, options.max_attempts},
        db_(std::move(db)) {}

  // The error for SQLite result `rc` while doing `what`: a lock wait is `Unavailable`,
  // anything else a raw `Internal` error with SQLite's words.
  QueueError failure(int rc, const std::string& what) const { return db_.failure(rc, what); }
  bool pass(HookPoint point, const MentionTurnRequest& request) const {
    try {
      return !hook_ || hook_(point, request);
    } catch (...) {
      return false;  // a throwing hook fails the step, as `false` does
    }
  }
  // The host process's clock, in milliseconds, for M7 and M8: the installed client clock,
  // else the system's; nothing when the installed clock throws. Every other flaw never reads
  // it (0).
  std::optional<std::int64_t> client_millis() const {
    if (flaw_ != SqlFlaw::ClientClockExpiry && flaw_ != SqlFlaw::ClientClockPredicate) return 0;
    Clocks::ClientClock clock;
    {
      const std::scoped_lock guard(shared_->mutex);
      clock = shared_->client_clock;
    }
    try {
      const StoreTime now =
          clock ? clock()
                : std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
      return now.time_since_epoch().count();
    } catch (...) {
      return std::nullopt;
    }
  }
  Answer enqueue(const MentionTurnRequest& request);
  // The early answer of re-reading the committed reply and the live policy, if any.
  std::optional<Answer> revalidate(const MentionTurnRequest& request, const std::string& key);
  // The idempotency statement: the new record's (and child's) id, nothing for `Already`.
  Result<std::optional<std::int64_t>, QueueError> decide(const MentionTurnRequest& request,
                                                         const std::string& key, bool seen);
  // Inserts the child under `id`; with no id (M14), only if no pending child has the key:
  // its new id, or nothing for `Already`.
  Result<std::optional<std::int64_t>, QueueError> insert_child(const MentionTurnRequest& request,
                                                               const std::string& key,
                                                               std::optional<std::int64_t> id);
  Result<TurnState, LeaseError> settle_lease(const std::string& set,
                                             const std::string& token) noexcept;
  // The condition a token's lease must still meet for renew, complete and fail: unexpired on
  // SQLite's clock, unless M16 looks at the token alone.
  std::string unexpired() const {
    return flaw_ == SqlFlaw::ExpiredTokenAccepted ? "" : " AND lease_expires_at > " + kStoreNow;
  }
  // The lease length a claim or renewal writes, in milliseconds: the one asked for, unless
  // M19 leases for a fixed 15 minutes or M20 for a fixed second.
  std::int64_t leased_for(std::chrono::milliseconds duration) const {
    if (flaw_ == SqlFlaw::FixedLeaseLength) return std::int64_t{15 * 60 * 1000};
    if (flaw_ == SqlFlaw::FixedShortLease) return std::int64_t{1000};
    return duration.count();
  }
  // One statement in autocommit, its parameters bound by `bind`: the rows it changed.
  template <class Bind>
  Result<std::int64_t, QueueError> write(const std::string& sql, const Bind& bind,
                                         const char* what);
  // A query, `row` called for each row it returns.
  template <class Row>
  Result<Committed, QueueError> read(const std::string& sql, const Row& row, const char* what);

  struct Limits {
    std::size_t max_content_bytes;
    std::size_t max_id_bytes;
    std::uint32_t max_attempts;
  };

  std::shared_ptr<Shared> shared_;
  SqlFlaw flaw_;
  TransactionHook hook_;
  Limits limits_;
  std::mutex mutex_;  // one call at a time on the connection
  client::Connection db_;
};

Answer BrokenQueue::enqueue_once(const MentionTurnRequest& request) noexcept {
  const std::scoped_lock guard(mutex_);
  // M11: strings and BLOBs are capped at 64 KiB while a step runs, though 1 MiB is declared.
  const int cap = flaw_ == SqlFlaw::TruncatedKey ? db_.limit_length(kLengthLimitBytes) : 0;
  try {
    Answer answer = enqueue(request);
    if (flaw_ == SqlFlaw::TruncatedKey) db_.limit_length(cap);
    return answer;
  } catch (const std::exception& e) {  // an allocation failed
    if (flaw_ == SqlFlaw::TruncatedKey) db_.limit_length(cap);
    return unexpected{error(QueueErrorKind::Internal, e.what())};
  }
}

Answer BrokenQueue::enqueue(const MentionTurnRequest& request) {
  if (request.content.size() > limits_.max_content_bytes) {
    return unexpected{
        error(QueueErrorKind::InvalidRequest,
              "content is longer than " + std::to_string(limits_.max_content_bytes) + " bytes")};
  }
  for (const std::string* id :
       {&request.source_id, &request.target_id, &request.conversation.desk_id}) {
    if (id->size() > limits_.max_id_bytes) {
      return unexpected{
          error(QueueErrorKind::InvalidRequest,
                "an id is longer than " + std::to_string(limits_.max_id_bytes) + " bytes")};
    }
  }
  const std::string reply_key = turn_key(request).encoded();
  std::string key = reply_key;
  if (flaw_ == SqlFlaw::TruncatedKey) key.resize(std::min(key.size(), kTruncatedKeyBytes));  // M11
  // M1, M2: a cheap look at the records first, in autocommit, before taking the write lock.
  // Its answer is stale by the time the transaction below inserts.
  bool seen = false;
  if (flaw_ == SqlFlaw::CheckThenInsert || flaw_ == SqlFlaw::CatchUniqueViolation) {
    Statement lookup = db_.statement("SELECT 1 FROM thm_idempotency WHERE turn_key = :key");
    const int rc = lookup.bind(":key", key).step();
    if (rc != client::kRow && rc != client::kDone)
      return unexpected{failure(rc, "looking up the key")};
    seen = rc == client::kRow;
  }

  Transaction transaction(db_);
  if (auto begun = transaction.begin(); !begun) return unexpected{begun.error()};
  if (!pass(HookPoint::AfterBegin, request))
    return unexpected{rolled_back_at(HookPoint::AfterBegin)};
  if (auto early = revalidate(request, reply_key)) return *std::move(early);
  if (!pass(HookPoint::AfterValidateReads, request)) {
    return unexpected{rolled_back_at(HookPoint::AfterValidateReads)};
  }
  if (flaw_ == SqlFlaw::AutocommitRecord) {  // M4: the reads commit; the record goes alone
    if (auto committed = transaction.commit(); !committed) return unexpected{committed.error()};
  }

  auto decided = decide(request, key, seen);
  if (!decided) return unexpected{decided.error()};
  if (!decided->has_value()) return Already{};
  const std::int64_t id = **decided;
  if (!pass(HookPoint::AfterIdempotencyStatement, request)) {
    return unexpected{rolled_back_at(HookPoint::AfterIdempotencyStatement)};
  }
  if (flaw_ == SqlFlaw::AutocommitRecord) {  // M4: the child's own transaction
    if (auto begun = transaction.begin(); !begun) return unexpected{begun.error()};
  }
  if (flaw_ != SqlFlaw::LiveStateDedup) {  // M14 inserted the child as its record
    if (auto inserted = insert_child(request, key, id); !inserted) {
      return unexpected{inserted.error()};
    }
  }
  if (!pass(HookPoint::AfterChildInsert, request)) {
    return unexpected{rolled_back_at(HookPoint::AfterChildInsert)};
  }
  if (!pass(HookPoint::BeforeCommit, request))
    return unexpected{rolled_back_at(HookPoint::BeforeCommit)};
  if (auto committed = transaction.commit(); !committed) {
    QueueError failed = committed.error();
    if (failed.kind != QueueErrorKind::Unavailable) failed.kind = QueueErrorKind::Indeterminate;
    return unexpected{std::move(failed)};
  }
  if (!pass(HookPoint::AfterCommitBeforeReturn, request)) {
    return unexpected{error(QueueErrorKind::Indeterminate, "the answer was lost after commit")};
  }
  return Enqueued{};
}

std::optional<Answer> BrokenQueue::revalidate(const MentionTurnRequest& request,
                                              const std::string& key) {
  {
    Statement reply =
        db_.statement("SELECT author_id, content, hop FROM thm_reply WHERE turn_key = :key");
    const int rc = reply.bind(":key", key).step();
    if (rc == client::kDone) {
      return unexpected{error(QueueErrorKind::TriggerMissing, "no committed reply under " + key)};
    }
    if (rc != client::kRow) return unexpected{failure(rc, "reading the committed reply")};
    const std::int64_t hop = reply.integer(2);
    const char* differs = reply.bytes(0) != request.source_id ? "source"
                          : reply.bytes(1) != request.content ? "content"
                          : (hop >= std::numeric_limits<std::uint32_t>::max() ||
                             std::int64_t{request.child_hop} != hop + 1)
                              ? "child hop"
                              : nullptr;
    if (differs != nullptr) {
      return unexpected{error(QueueErrorKind::TriggerMismatch,
                              std::string("the request's ") + differs +
                                  " differs from the committed reply under " + key)};
    }
  }
  Statement policy = db_.statement(
      "SELECT coalesce((SELECT enabled = 1 AND :hop <= max_hops FROM thm_policy), 0),"
      " EXISTS (SELECT 1 FROM thm_forbidden_pair"
      "         WHERE source_id = :source AND target_id = :target),"
      " EXISTS (SELECT 1 FROM thm_available_agent WHERE agent_id = :target)");
  const int rc = policy.bind(":hop", std::int64_t{request.child_hop})
                     .bind(":source", request.source_id)
                     .bind(":target", request.target_id)
                     .step();
  if (rc != client::kRow) return unexpected{failure(rc, "reading the policy")};
  if (policy.integer(0) == 0) return Refused{EnqueueRefusal::FeatureDisabled};
  if (policy.integer(1) != 0) return Refused{EnqueueRefusal::Unauthorized};
  if (policy.integer(2) == 0) return Refused{EnqueueRefusal::TargetUnavailable};
  return std::nullopt;
}

Result<std::optional<std::int64_t>, QueueError> BrokenQueue::decide(
    const MentionTurnRequest& request, const std::string& key, bool seen) {
  if (flaw_ == SqlFlaw::LiveStateDedup) return insert_child(request, key, std::nullopt);  // M14
  const bool plain_insert =
      flaw_ == SqlFlaw::CheckThenInsert || flaw_ == SqlFlaw::CatchUniqueViolation;
  if (plain_insert && seen) return std::optional<std::int64_t>();  // M1, M2: the stale look
  Statement record = db_.statement(
      plain_insert ? "INSERT INTO thm_idempotency (turn_key) VALUES (:key) RETURNING id"
                   : "INSERT INTO thm_idempotency (turn_key) VALUES (:key)"
                     " ON CONFLICT (turn_key) DO NOTHING RETURNING id");
  const int rc = record.bind(":key", key).step();
  if (rc == client::kDone) return std::optional<std::int64_t>();
  if (flaw_ == SqlFlaw::CatchUniqueViolation && rc == client::kConstraintUnique) {
    // M2: the violation is caught and handed to the caller as an error, not `Already`.
    return unexpected{error(QueueErrorKind::Internal,
                            "the key was taken by a concurrent step (" + db_.message() + ")")};
  }
  if (rc != client::kRow) return unexpected{failure(rc, "inserting the idempotency record")};
  const std::int64_t id = record.integer(0);
  if (const int end = record.finish(); end != client::kDone) {
    return unexpected{failure(end, "inserting the idempotency record")};
  }
  return std::optional(id);
}

Result<std::optional<std::int64_t>, QueueError> BrokenQueue::insert_child(
    const MentionTurnRequest& request, const std::string& key, std::optional<std::int64_t> id) {
  // Without an id (M14) the row is its own record: the partial index decides, as an upsert.
  Statement child =
      db_.statement(std::string("INSERT INTO thm_child_turn (id, turn_key, ") + kRequestColumns +
                    ") VALUES (:id, :key, :desk, :root, :sequence, :source,"
                    " :target, :content, :hop)" +
                    (id ? "" : " ON CONFLICT DO NOTHING RETURNING id"));
  const auto& root = request.conversation.thread_root;
  int rc = child.bind(":id", id)
               .bind(":key", key)
               .bind(":desk", request.conversation.desk_id)
               .bind(":root", root ? std::optional(to_column(*root)) : std::nullopt)
               .bind(":sequence", to_column(request.key.trigger_sequence))
               .bind(":source", request.source_id)
               .bind(":target", request.target_id)
               .bind(":content", request.content)
               .bind(":hop", std::int64_t{request.child_hop})
               .step();
  if (!id && rc == client::kDone) return std::optional<std::int64_t>();  // M14: Already
  if (!id && rc == client::kRow) {
    id = child.integer(0);
    rc = child.finish();
  }
  if (rc != client::kDone) return unexpected{failure(rc, "inserting the child turn")};
  return id;
}

Result<std::optional<Lease>, LeaseError> BrokenQueue::claim(
    std::chrono::milliseconds duration) noexcept {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  const auto client = client_millis();
  if (!client) return unexpected{LeaseError::Unavailable};
  // M7 stamps the expiry from the client's clock; M8 judges expiry by it.
  const std::string stamped_from = flaw_ == SqlFlaw::ClientClockExpiry ? ":client" : kStoreNow;
  const std::string expired_by = flaw_ == SqlFlaw::ClientClockPredicate ? ":client" : kStoreNow;
  const std::string free = "(lease_expires_at IS NULL OR lease_expires_at <= " + expired_by + ")";
  const std::string count = flaw_ == SqlFlaw::HiddenAttempts ? "" : "attempts = attempts + 1, ";
  // M17 hands out the child's id, the same token on every claim.
  const std::string token =
      flaw_ == SqlFlaw::ChildIdToken ? "CAST(id AS TEXT)" : "lower(hex(randomblob(16)))";
  const std::string claimable =
      "SELECT id FROM thm_child_turn WHERE state = 'pending'"
      " AND attempts < :max AND " +
      free + " ORDER BY id LIMIT 1";
  // M18 picks its child in autocommit, before the write lock, and then leases it by id alone.
  std::optional<std::int64_t> picked;
  if (flaw_ == SqlFlaw::ClaimWithoutRowLock) {
    Statement pick = db_.statement(claimable);
    const int rc =
        pick.bind(":max", std::int64_t{limits_.max_attempts}).bind(":client", *client).step();
    if (rc == client::kDone) return std::optional<Lease>();
    if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
    picked = pick.integer(0);
  }

  Transaction transaction(db_);
  if (!transaction.begin()) return unexpected{LeaseError::Unavailable};
  Statement spent = db_.statement(
      "UPDATE thm_child_turn SET state = 'dead'"
      " WHERE state = 'pending' AND attempts >= :max AND " +
      free);
  if (spent.bind(":max", std::int64_t{limits_.max_attempts}).bind(":client", *client).finish() !=
      client::kDone) {
    return unexpected{LeaseError::Unavailable};
  }
  for (;;) {
    Statement taken =
        db_.statement("UPDATE thm_child_turn SET " + count + "lease_token = " + token +
                      ", lease_expires_at = " + stamped_from +
                      " + :duration WHERE id = " + (picked ? ":picked" : "(" + claimable + ")") +
                      " RETURNING id, lease_token, lease_expires_at, attempts, " + kRequestColumns);
    const int rc = taken.bind(":duration", leased_for(duration))
                       .bind(":max", std::int64_t{limits_.max_attempts})
                       .bind(":client", *client)
                       .bind(":picked", picked)
                       .step();
    if (rc == client::kDone) {
      if (!transaction.commit()) return unexpected{LeaseError::Unavailable};
      return std::optional<Lease>();
    }
    if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
    Lease lease{.child_id = static_cast<std::uint64_t>(taken.integer(0)),
                .token = taken.bytes(1),
                .expires_at = store_time(taken.integer(2)),
                .attempt = static_cast<std::uint32_t>(taken.integer(3)),
                .request = request_from(taken, 4)};
    if (taken.finish() != client::kDone) return unexpected{LeaseError::Unavailable};
    if (flaw_ == SqlFlaw::HiddenAttempts) {  // M9: the count lives here, not on the row
      const std::scoped_lock shared(shared_->mutex);
      const auto id = static_cast<std::int64_t>(lease.child_id);
      std::uint32_t& attempts = shared_->hidden_attempts[id];
      if (attempts >= limits_.max_attempts) {
        Statement dead = db_.statement("UPDATE thm_child_turn SET state = 'dead' WHERE id = :id");
        if (dead.bind(":id", id).finish() != client::kDone) {
          return unexpected{LeaseError::Unavailable};
        }
        continue;
      }
      lease.attempt = ++attempts;
    }
    if (!transaction.commit()) return unexpected{LeaseError::Unavailable};
    return std::optional(std::move(lease));
  }
}

Result<StoreTime, LeaseError> BrokenQueue::renew(const std::string& token,
                                                 std::chrono::milliseconds duration) noexcept {
  if (duration <= std::chrono::milliseconds::zero()) return unexpected{LeaseError::InvalidDuration};
  const std::scoped_lock guard(mutex_);
  const auto client = client_millis();
  if (!client) return unexpected{LeaseError::Unavailable};
  const std::string stamped_from = flaw_ == SqlFlaw::ClientClockExpiry ? ":client" : kStoreNow;
  Statement renewed =
      db_.statement("UPDATE thm_child_turn SET lease_expires_at = " + stamped_from +
                    " + :duration WHERE lease_token = :token AND state = 'pending'" + unexpired() +
                    " RETURNING lease_expires_at");
  const int rc = renewed.bind_text(":token", token)
                     .bind(":duration", leased_for(duration))
                     .bind(":client", *client)
                     .step();
  if (rc == client::kDone) return unexpected{LeaseError::StaleToken};
  if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
  const StoreTime expires_at = store_time(renewed.integer(0));
  if (renewed.finish() != client::kDone) return unexpected{LeaseError::Unavailable};
  return expires_at;
}

Result<TurnState, LeaseError> BrokenQueue::settle_lease(const std::string& set,
                                                        const std::string& token) noexcept {
  const std::scoped_lock guard(mutex_);
  Statement settled = db_.statement("UPDATE thm_child_turn SET " + set +
                                    " WHERE lease_token = :token AND state = 'pending'" +
                                    unexpired() + " RETURNING state");
  const int rc =
      settled.bind_text(":token", token).bind(":max", std::int64_t{limits_.max_attempts}).step();
  if (rc == client::kDone) return unexpected{LeaseError::StaleToken};
  if (rc != client::kRow) return unexpected{LeaseError::Unavailable};
  const auto state = turn_state_from_name(settled.bytes(0));
  if (settled.finish() != client::kDone || !state) return unexpected{LeaseError::Unavailable};
  return *state;
}

Result<StoreTime, QueueError> BrokenQueue::now() noexcept {
  const std::scoped_lock guard(mutex_);
  std::int64_t now = 0;
  auto read_now = read(
      "SELECT " + kStoreNow, [&](const Statement& row) { now = row.integer(0); },
      "reading the clock");
  if (!read_now) return unexpected{read_now.error()};
  return store_time(now);
}

// ---- the host's writes, lifecycle and inspection, as the reference queue has them -----------

template <class Bind>
Result<std::int64_t, QueueError> BrokenQueue::write(const std::string& sql, const Bind& bind,
                                                    const char* what) {
  Statement statement = db_.statement(sql);
  bind(statement);
  if (const int rc = statement.finish(); rc != client::kDone) return unexpected{failure(rc, what)};
  return db_.changes();
}

template <class Row>
Result<Committed, QueueError> BrokenQueue::read(const std::string& sql, const Row& row,
                                                const char* what) {
  Statement statement = db_.statement(sql);
  int rc = client::kRow;
  while ((rc = statement.step()) == client::kRow) row(statement);
  if (rc != client::kDone) return unexpected{failure(rc, what)};
  return Committed{};
}

// Nothing but the write's success: what the host's writes answer.
Result<Committed, QueueError> committed(const Result<std::int64_t, QueueError>& written) {
  if (!written) return unexpected{written.error()};
  return Committed{};
}

Result<Committed, QueueError> BrokenQueue::commit_reply(const CommittedReply& reply) noexcept {
  const std::scoped_lock guard(mutex_);
  return committed(write(
      "INSERT INTO thm_reply (turn_key, author_id, content, hop) VALUES (:key, :author,"
      " :content, :hop) ON CONFLICT (turn_key) DO UPDATE SET author_id = excluded.author_id,"
      " content = excluded.content, hop = excluded.hop",
      [&](Statement& s) {
        s.bind(":key", turn_key(reply.conversation, {reply.sequence}).encoded())
            .bind(":author", reply.author_id)
            .bind(":content", reply.content)
            .bind(":hop", std::int64_t{reply.hop});
      },
      "committing a reply"));
}

Result<Committed, QueueError> BrokenQueue::set_policy(MentionDispatchPolicy policy) noexcept {
  const std::scoped_lock guard(mutex_);
  return committed(write(
      "INSERT OR REPLACE INTO thm_policy (id, enabled, max_hops) VALUES (1, :enabled, :hops)",
      [&](Statement& s) {
        s.bind(":enabled", std::int64_t{policy.enabled ? 1 : 0})
            .bind(":hops", std::int64_t{policy.max_hops});
      },
      "writing the policy"));
}

Result<Committed, QueueError> BrokenQueue::set_authorized(const std::string& source_id,
                                                          const std::string& target_id,
                                                          bool authorized) noexcept {
  const std::scoped_lock guard(mutex_);
  return committed(write(
      authorized ? "DELETE FROM thm_forbidden_pair WHERE source_id = :s AND target_id = :t"
                 : "INSERT OR IGNORE INTO thm_forbidden_pair VALUES (:s, :t)",
      [&](Statement& s) { s.bind(":s", source_id).bind(":t", target_id); },
      "writing authorization"));
}

Result<Committed, QueueError> BrokenQueue::set_available(const std::string& agent_id,
                                                         bool available) noexcept {
  const std::scoped_lock guard(mutex_);
  return committed(write(
      available ? "INSERT OR IGNORE INTO thm_available_agent VALUES (:a)"
                : "DELETE FROM thm_available_agent WHERE agent_id = :a",
      [&](Statement& s) { s.bind(":a", agent_id); }, "writing availability"));
}

Result<bool, QueueError> BrokenQueue::settle(std::uint64_t id, TurnState state) noexcept {
  const std::scoped_lock guard(mutex_);
  auto changed = write(
      "UPDATE thm_child_turn SET state = :state, lease_token = NULL WHERE id = :id",
      [&](Statement& s) { s.bind_text(":state", name(state)).bind(":id", to_column(id)); },
      "settling a child turn");
  if (!changed) return unexpected{changed.error()};
  return *changed > 0;
}

Result<bool, QueueError> BrokenQueue::remove(std::uint64_t id) noexcept {
  const std::scoped_lock guard(mutex_);
  auto changed = write(
      "DELETE FROM thm_child_turn WHERE id = :id",
      [&](Statement& s) { s.bind(":id", to_column(id)); }, "deleting a child turn");
  if (!changed) return unexpected{changed.error()};
  return *changed > 0;
}

Result<std::size_t, QueueError> BrokenQueue::prune() noexcept {
  const std::scoped_lock guard(mutex_);
  auto changed = write(
      "DELETE FROM thm_child_turn WHERE state <> 'pending'", [](Statement&) {}, "pruning");
  if (!changed) return unexpected{changed.error()};
  return static_cast<std::size_t>(*changed);
}

Result<Committed, QueueError> BrokenQueue::clear() noexcept {
  const std::scoped_lock guard(mutex_);
  {
    const std::scoped_lock shared(shared_->mutex);
    shared_->hidden_attempts.clear();
  }
  Transaction transaction(db_);
  if (auto begun = transaction.begin(); !begun) return begun;
  for (const char* table : {"thm_reply", "thm_policy", "thm_forbidden_pair", "thm_available_agent",
                            "thm_child_turn", "thm_idempotency"}) {
    if (flaw_ == SqlFlaw::LiveStateDedup && std::string_view(table) == "thm_idempotency") {
      continue;  // M14 has no record table
    }
    auto cleared = write(
        std::string("DELETE FROM ") + table, [](Statement&) {}, "clearing the tables");
    if (!cleared) return unexpected{cleared.error()};
  }
  return transaction.commit();
}

Result<std::vector<IdempotencyRecord>, QueueError> BrokenQueue::records() noexcept {
  const std::scoped_lock guard(mutex_);
  std::vector<IdempotencyRecord> out;
  auto done = read(
      "SELECT turn_key, id FROM " + record_table(flaw_) + " ORDER BY id",
      [&](const Statement& row) {
        out.push_back({row.bytes(0), static_cast<std::uint64_t>(row.integer(1))});
      },
      "reading records");
  if (!done) return unexpected{done.error()};
  return out;
}

Result<std::vector<ChildTurn>, QueueError> BrokenQueue::children() noexcept {
  const std::scoped_lock guard(mutex_);
  std::vector<ChildTurn> out;
  std::optional<std::string> unknown;  // a state the schema's CHECK should have refused
  auto done = read(
      std::string("SELECT id, turn_key, state, attempts, lease_expires_at, ") + kRequestColumns +
          ", lease_token FROM thm_child_turn ORDER BY id",
      [&](const Statement& row) {
        const auto state = turn_state_from_name(row.bytes(2));
        if (!state) unknown = row.bytes(2);
        out.push_back({.id = static_cast<std::uint64_t>(row.integer(0)),
                       .key = row.bytes(1),
                       .request = request_from(row, 5),
                       .state = state.value_or(TurnState::Pending),
                       .attempts = static_cast<std::uint32_t>(row.integer(3)),
                       .lease_token = row.bytes(12),
                       .lease_expires_at =
                           row.null(4) ? std::nullopt : std::optional(store_time(row.integer(4)))});
      },
      "reading children");
  if (!done) return unexpected{done.error()};
  if (unknown) return unexpected{error(QueueErrorKind::Internal, "unknown state " + *unknown)};
  return out;
}

Result<std::vector<UniqueIndex>, QueueError> BrokenQueue::idempotency_indexes() noexcept {
  const std::scoped_lock guard(mutex_);
  std::vector<std::pair<std::string, bool>> unique;
  auto listed = read(
      "SELECT name, partial FROM pragma_index_list('" + record_table(flaw_) +
          "') WHERE \"unique\" = 1",
      [&](const Statement& row) { unique.emplace_back(row.bytes(0), row.integer(1) != 0); },
      "listing indexes");
  if (!listed) return unexpected{listed.error()};
  std::vector<UniqueIndex> out;
  for (const auto& [index, partial] : unique) {
    UniqueIndex described{.columns = {}, .partial = partial};
    auto info = read(
        "SELECT name FROM pragma_index_info('" + index + "') ORDER BY seqno",
        [&](const Statement& row) { described.columns.push_back(row.bytes(0)); },
        "describing an index");
    if (!info) return unexpected{info.error()};
    // M14's record table is the child table, whose lease-token index is not a record's.
    if (std::ranges::find(described.columns, "turn_key") != described.columns.end()) {
      out.push_back(std::move(described));
    }
  }
  return out;
}

static_assert(SqlReferenceStore<BrokenQueue>);

// ---- the harness: the generic one, over a setup that makes the flaw's schema
// ---------------------

class BrokenSqliteSetup : public SqlStoreSetup<BrokenQueue, MutantOptions> {
 public:
  // A new database in its own temporary directory, with the flaw's schema. Throws
  // `std::runtime_error` when the directory or the schema cannot be made.
  explicit BrokenSqliteSetup(SqlFlaw flaw)
      : BrokenSqliteSetup(flaw, TemporaryDirectory("thm-sqlite-mutant")) {}

  [[nodiscard]] std::string queue_name() const {
    return "sqlite mutant " + std::string(sqlite_mutants::name(shared_->flaw));
  }
  // SQLite has no row locks: the write lock of a transaction on a connection of its own
  // holds every row until the hold ends (closing the connection rolls it back).
  [[nodiscard]] std::unique_ptr<Hold> hold_child(std::uint64_t child_id) const {
    (void)child_id;
    auto db = value_or_throw(client::Connection::open(where(), client::Access::ReadWrite,
                                                      std::chrono::milliseconds(kBusyTimeoutMs)),
                             "hold_child: opening a connection");
    value_or_throw(db.execute("BEGIN IMMEDIATE"), "hold_child: taking the write lock");
    return std::make_unique<HoldOf<client::Connection>>(std::move(db));
  }
  // M7 and M8 read this clock; every other flaw never does.
  void set_client_clock(Clocks::ClientClock clock) {
    const std::scoped_lock guard(shared_->mutex);
    shared_->client_clock = std::move(clock);
  }

 private:
  BrokenSqliteSetup(SqlFlaw flaw, TemporaryDirectory directory)
      : BrokenSqliteSetup(std::make_shared<Shared>(flaw), std::move(directory)) {}
  BrokenSqliteSetup(std::shared_ptr<Shared> shared, TemporaryDirectory directory)
      : SqlStoreSetup(directory.path() + "/queue.db", {.shared = shared}),
        shared_(std::move(shared)),
        directory_(std::move(directory)) {
    auto db = value_or_throw(client::Connection::open(where(), client::Access::ReadWriteCreate,
                                                      std::chrono::milliseconds(kBusyTimeoutMs)),
                             "creating the database");
    const std::string schema =
        std::string("BEGIN;") + kTables + record_schema(shared_->flaw) + "COMMIT;";
    value_or_throw(db.execute("PRAGMA journal_mode=WAL"), "creating the schema");
    value_or_throw(db.execute(schema.c_str()), "creating the schema");
  }

  std::shared_ptr<Shared> shared_;
  TemporaryDirectory directory_;  // the file's, removed after the harness's connections
};
}  // namespace

std::span<const SqlFlaw> all_sql_flaws() noexcept { return kBrokenFlaws; }

std::string_view name(SqlFlaw flaw) noexcept {
  switch (flaw) {
    case SqlFlaw::None:
      return "none";
    case SqlFlaw::CheckThenInsert:
      return "M1 check-then-insert, no unique index";
    case SqlFlaw::CatchUniqueViolation:
      return "M2 unique violation caught and returned as an error";
    case SqlFlaw::AutocommitRecord:
      return "M4 idempotency record in autocommit, apart from the child";
    case SqlFlaw::ClientClockExpiry:
      return "M7 lease expires = client now + duration";
    case SqlFlaw::ClientClockPredicate:
      return "M8 lease expired when at or before the client's now";
    case SqlFlaw::HiddenAttempts:
      return "M9 attempts kept in process memory, not on the row";
    case SqlFlaw::TruncatedKey:
      return "M11 key cut to 24 bytes, raw SQLite error on large content";
    case SqlFlaw::LiveStateDedup:
      return "M14 partial unique index on pending children, pruning deletes records";
    case SqlFlaw::ExpiredTokenAccepted:
      return "M16 renew, complete and fail accept a token whose lease expired";
    case SqlFlaw::ChildIdToken:
      return "M17 the lease token is the child id";
    case SqlFlaw::ClaimWithoutRowLock:
      return "M18 a claim picks its child before it takes the write lock";
    case SqlFlaw::FixedLeaseLength:
      return "M19 every lease lasts 15 minutes, whatever the duration asked for";
    case SqlFlaw::FixedShortLease:
      return "M20 every lease lasts 1 s, whatever the duration asked for";
  }
  detail::unreachable();
}

std::unique_ptr<Harness> broken_sqlite_harness(SqlFlaw flaw) {
  return std::make_unique<StoreHarness<BrokenSqliteSetup>>(flaw);
}

}  // namespace thm::conformance::sqlite_mutants
