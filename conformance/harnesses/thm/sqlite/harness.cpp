#include "thm/sqlite/harness.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace thm::sqlite {
namespace {

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

std::unique_ptr<SqliteHarness> open_scratch_harness(const std::string& path) {
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

static_assert(SqlReferenceStore<SqliteQueue>);

SqliteSetup::SqliteSetup() {
  std::string pattern = (std::filesystem::temp_directory_path() / "thm-sqlite-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory from " + pattern);
  }
  directory_ = pattern;
  path_ = directory_ + "/queue.db";
}

SqliteSetup::SqliteSetup(std::string path, Options options)
    : path_(std::move(path)), options_(std::move(options)) {}

SqliteSetup::~SqliteSetup() {
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

conformance::Capabilities SqliteSetup::capabilities() const {
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

Result<std::unique_ptr<SqliteQueue>, QueueError> SqliteSetup::open(TransactionHook hook) const {
  Options options = options_;
  options.hook = std::move(hook);
  return SqliteQueue::open(path_, std::move(options));
}

std::unique_ptr<conformance::Hold> SqliteSetup::hold_child(std::uint64_t child_id) const {
  (void)child_id;
  return std::make_unique<WriteHold>(path_);
}

}  // namespace thm::sqlite
