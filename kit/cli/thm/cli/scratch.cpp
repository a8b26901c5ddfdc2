#include "thm/cli/scratch.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "thm/postgres/client.hpp"
#include "thm/postgres/harness.hpp"
#include "thm/sqlite/client.hpp"
#include "thm/sqlite/harness.hpp"

namespace thm::cli {
namespace {

constexpr std::string_view kScratchMark = "thm_conformance_scratch";
constexpr const char* kMakeMark =
    "CREATE TABLE IF NOT EXISTS thm_conformance_scratch (made_by TEXT)";

// The user tables of the SQLite database at `path` (read-only), or why it could not be read.
std::vector<std::string> user_tables(const std::string& path) {
  namespace client = sqlite::client;
  auto db = client::Connection::open(path, client::Access::ReadOnly, std::chrono::milliseconds(0));
  if (!db) throw std::runtime_error(db.error().message);
  client::Statement list = db->statement(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  std::vector<std::string> tables;
  int rc = client::kRow;
  while ((rc = list.step()) == client::kRow) tables.push_back(list.bytes(0));
  if (rc != client::kDone) {
    throw std::runtime_error("'" + path +
                             "' is not a SQLite database this build can read: " + db->message());
  }
  return tables;
}

// The tables in the PostgreSQL database, in any schema but the system's, other than the
// scratch mark, and whether the mark is there (in the schema the suite will use, the first
// on the search path). (Messages never quote the conninfo: it may hold a password.)
std::pair<std::vector<std::string>, bool> foreign_tables(const std::string& conninfo) {
  auto db = postgres::client::Connection::connect(conninfo);
  if (!db) throw std::runtime_error(db.error().message);
  const postgres::client::Rows rows = (*db)->script(
      "SELECT n.nspname, c.relname, n.nspname = current_schema() FROM pg_class c"
      " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm')"
      " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
      " AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'");
  if (!rows.ok()) {
    throw std::runtime_error("cannot list the database's tables: " + (*db)->last_message());
  }
  std::vector<std::string> foreign;
  bool marked = false;
  for (int r = 0; r < rows.size(); ++r) {
    const std::string table = rows.bytes(r, 1);
    if (table == kScratchMark && rows.bytes(r, 2) == "t") {
      marked = true;
    } else {
      foreign.push_back(rows.bytes(r, 0) + "." + table);
    }
  }
  return {foreign, marked};
}

}  // namespace

std::unique_ptr<conformance::Harness> sqlite_scratch_harness(const std::string& path) {
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
  auto harness = std::make_unique<sqlite::SqliteHarness>(path);
  auto db = sqlite::client::Connection::open(path, sqlite::client::Access::ReadWrite,
                                             std::chrono::milliseconds(0));
  if (!db || !db->execute(kMakeMark)) {
    throw std::runtime_error("cannot mark '" + path + "' as a scratch database");
  }
  return harness;
}

std::unique_ptr<conformance::Harness> postgres_scratch_harness(const std::string& conninfo) {
  const auto [foreign, marked] = foreign_tables(conninfo);
  if (!marked && !foreign.empty()) {
    throw std::runtime_error(
        "refusing to run the conformance suite on this database: it holds "
        "tables (" +
        foreign.front() + (foreign.size() > 1 ? ", ..." : "") +
        ") and was not made by a conformance run, and the suite deletes "
        "every row of the thm tables; name an empty database");
  }
  auto harness = std::make_unique<postgres::PostgresHarness>(conninfo);
  auto db = postgres::client::Connection::connect(conninfo);
  if (!db || !(*db)->command(kMakeMark)) {
    throw std::runtime_error("cannot mark the database as a scratch database");
  }
  return harness;
}

}  // namespace thm::cli
