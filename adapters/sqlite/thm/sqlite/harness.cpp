#include "thm/sqlite/harness.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "thm/conformance/crash.hpp"
#include "thm/conformance/store_harness.hpp"

namespace thm::sqlite {
namespace {

using Answer = Result<EnqueueOutcome, QueueError>;

using conformance::value_or_throw;

// The user tables of the database at `path` (read-only), or why it could not be read.
std::vector<std::string> user_tables(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("cannot read '" + path + "': " + message);
  }
  std::vector<std::string> tables;
  sqlite3_stmt* list = nullptr;
  int rc = sqlite3_prepare_v2(
      db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", -1,
      &list, nullptr);
  while (rc == SQLITE_OK && sqlite3_step(list) == SQLITE_ROW) {
    tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(list, 0)));
  }
  const std::string message = sqlite3_errmsg(db);
  sqlite3_finalize(list);
  sqlite3_close(db);
  if (rc != SQLITE_OK) {
    throw std::runtime_error("'" + path +
                             "' is not a SQLite database this build can read: " + message);
  }
  return tables;
}

constexpr const char* kScratchMark = "thm_conformance_scratch";

// The database's write lock, taken by `BEGIN IMMEDIATE` on a connection of its own and given
// back (rolled back, the connection closed) when this is destroyed.
class WriteHold final : public conformance::Hold {
 public:
  explicit WriteHold(const std::string& path) {
    const bool open =
        sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK;
    if (!open || sqlite3_busy_timeout(db_, 30'000) != SQLITE_OK ||
        sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw std::runtime_error("hold_child: cannot take the write lock: " + message);
    }
  }
  ~WriteHold() override {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  WriteHold(const WriteHold&) = delete;
  WriteHold& operator=(const WriteHold&) = delete;

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<SqliteHarness> SqliteHarness::open_scratch(const std::string& path) {
  std::error_code missing;
  const bool fresh =
      !std::filesystem::exists(path, missing) || std::filesystem::file_size(path, missing) == 0;
  if (!fresh) {
    const auto tables = user_tables(path);
    if (std::find(tables.begin(), tables.end(), kScratchMark) == tables.end()) {
      throw std::runtime_error("refusing to run the conformance suite on '" + path +
                               "': it is not empty and was not made by a conformance run, and "
                               "the suite deletes every row of the thm tables; name a new or "
                               "empty file");
    }
  }
  auto harness = std::make_unique<SqliteHarness>(path);
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  const int marked =
      rc == SQLITE_OK
          ? sqlite3_exec(db, "CREATE TABLE IF NOT EXISTS thm_conformance_scratch (made_by TEXT)",
                         nullptr, nullptr, nullptr)
          : rc;
  sqlite3_close(db);
  if (marked != SQLITE_OK)
    throw std::runtime_error("cannot mark '" + path + "' as a scratch database");
  return harness;
}

SqliteHarness::SqliteHarness() {
  std::string pattern = (std::filesystem::temp_directory_path() / "thm-sqlite-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory from " + pattern);
  }
  directory_ = pattern;
  path_ = directory_ + "/queue.db";
  admin_ = connect(options_);
}

SqliteHarness::SqliteHarness(std::string path, Options options)
    : path_(std::move(path)), options_(std::move(options)), admin_(connect(options_)) {}

SqliteHarness::~SqliteHarness() {
  admin_.reset();
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

std::unique_ptr<SqliteQueue> SqliteHarness::connect(Options options) const {
  options.hook = conformance::HookSlot::trampoline(hook_);
  return value_or_throw(SqliteQueue::open(path_, std::move(options)), "opening the database");
}

conformance::Capabilities SqliteHarness::capabilities() const {
  return {.hooks = true,
          .row_locking = true,
          .persistent = true,
          .sql_schema = true,
          .max_content_bytes = options_.max_content_bytes,
          .max_id_bytes = options_.max_id_bytes,
          .leases = true,
          .injected_store_clock = false,
          .skewable_client_clock = true,  // leases are SQLite's; no clock is read here
          .hold_child = true,
          .max_attempts = options_.max_attempts};
}

void SqliteHarness::reset() {
  set_hook({});
  value_or_throw(admin_->clear(), "clearing the tables");
}

std::unique_ptr<conformance::Session> SqliteHarness::open_session() {
  return std::make_unique<conformance::QueueSession<std::unique_ptr<SqliteQueue>>>(
      connect(options_));
}

void SqliteHarness::commit_reply(const CommittedReply& reply) {
  value_or_throw(admin_->commit_reply(reply), "committing a reply");
}
void SqliteHarness::set_policy(MentionDispatchPolicy policy) {
  value_or_throw(admin_->set_policy(policy), "writing the policy");
}
void SqliteHarness::set_authorized(const std::string& source_id, const std::string& target_id,
                                   bool authorized) {
  value_or_throw(admin_->set_authorized(source_id, target_id, authorized), "writing authorization");
}
void SqliteHarness::set_available(const std::string& agent_id, bool available) {
  value_or_throw(admin_->set_available(agent_id, available), "writing availability");
}

void SqliteHarness::set_hook(TransactionHook hook) { hook_->install(std::move(hook)); }

void SqliteHarness::settle(std::uint64_t child_id, conformance::Settlement how) {
  conformance::settle_child(*admin_, child_id, how);
}

void SqliteHarness::run_maintenance() { (void)value_or_throw(admin_->prune(), "pruning"); }

void SqliteHarness::reopen() {
  admin_.reset();
  admin_ = connect(options_);
}

std::optional<Answer> SqliteHarness::enqueue_then_kill(const MentionTurnRequest& request,
                                                       conformance::KillPoint when) {
  // Our own connection closes first: SQLite's file locks belong to the process, so a lock it
  // held would look like the child's.
  admin_.reset();
  std::optional<Answer> answer;
  try {
    answer = conformance::enqueue_in_killed_child(when, [&](TransactionHook hook) {
      Options options = options_;
      options.hook = std::move(hook);
      auto queue = SqliteQueue::open(path_, std::move(options));
      if (!queue) return Answer(unexpected{queue.error()});
      return (*queue)->enqueue_once(request);
    });
  } catch (...) {
    admin_ = connect(options_);
    throw;
  }
  admin_ = connect(options_);
  return answer;
}

StoreTime SqliteHarness::store_now() { return value_or_throw(admin_->now(), "reading the clock"); }

std::vector<conformance::RecordRow> SqliteHarness::records() {
  return conformance::record_rows(value_or_throw(admin_->records(), "reading records"));
}

std::vector<conformance::ChildRow> SqliteHarness::children() {
  return conformance::child_rows(value_or_throw(admin_->children(), "reading children"));
}

std::optional<conformance::Harness::UniqueIndex> SqliteHarness::unique_key_index() {
  // The first unique index SQLite lists: the schema has exactly one.
  auto indexes = value_or_throw(admin_->idempotency_indexes(), "reading the schema");
  if (indexes.empty()) return std::nullopt;
  return UniqueIndex{.columns = std::move(indexes.front().columns),
                     .partial = indexes.front().partial};
}

std::unique_ptr<conformance::Hold> SqliteHarness::hold_child(std::uint64_t child_id) {
  (void)child_id;
  return std::make_unique<WriteHold>(path_);
}

}  // namespace thm::sqlite
