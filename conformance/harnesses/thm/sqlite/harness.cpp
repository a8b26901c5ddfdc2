#include "thm/sqlite/harness.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace thm::sqlite {
namespace {

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
