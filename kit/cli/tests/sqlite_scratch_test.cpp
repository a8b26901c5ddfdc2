// The tool's guard for `thm conformance --queue sqlite:PATH`: the suite wipes the thm tables,
// so it runs only on a new or empty file, or on one an earlier run marked.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "thm/cli/scratch.hpp"
#include "thm/conformance/temporary_directory.hpp"
#include "thm/sqlite/client.hpp"

namespace thm::cli {
namespace {

namespace client = sqlite::client;

// The tables of the database at `path`, by name.
std::vector<std::string> tables(const std::string& path) {
  auto db = client::Connection::open(path, client::Access::ReadOnly, std::chrono::seconds(1));
  EXPECT_TRUE(db.has_value()) << db.error().message;
  if (!db) return {};
  client::Statement list = db->statement("SELECT name FROM sqlite_master WHERE type = 'table'");
  std::vector<std::string> names;
  while (list.step() == client::kRow) names.push_back(list.bytes(0));
  return names;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(SqliteScratchTest, ANewFileBecomesAMarkedScratchDatabase) {
  const conformance::TemporaryDirectory directory("thm-scratch-test");
  const std::string path = directory.path() + "/new.db";
  EXPECT_NO_THROW((void)sqlite_scratch_harness(path));
  EXPECT_TRUE(has(tables(path), "thm_conformance_scratch"));
  EXPECT_TRUE(has(tables(path), "thm_child_turn"));
}

TEST(SqliteScratchTest, AMarkedDatabaseIsReused) {
  const conformance::TemporaryDirectory directory("thm-scratch-test");
  const std::string path = directory.path() + "/marked.db";
  ASSERT_NO_THROW((void)sqlite_scratch_harness(path));
  EXPECT_NO_THROW((void)sqlite_scratch_harness(path));
}

// A database the suite did not make may be a host's real one, thm tables or not.
TEST(SqliteScratchTest, ADatabaseWithoutTheMarkIsRefusedAndLeftAlone) {
  const conformance::TemporaryDirectory directory("thm-scratch-test");
  const std::string path = directory.path() + "/theirs.db";
  {
    auto db =
        client::Connection::open(path, client::Access::ReadWriteCreate, std::chrono::seconds(1));
    ASSERT_TRUE(db.has_value()) << db.error().message;
    ASSERT_TRUE(db->execute("CREATE TABLE notes (body TEXT)"));
  }
  try {
    (void)sqlite_scratch_harness(path);
    FAIL() << "a database without the scratch mark was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("refusing"), std::string::npos) << e.what();
  }
  EXPECT_EQ(tables(path), std::vector<std::string>{"notes"});
}

TEST(SqliteScratchTest, AFileThatIsNoDatabaseIsRefused) {
  const conformance::TemporaryDirectory directory("thm-scratch-test");
  const std::string path = directory.path() + "/notes.txt";
  std::ofstream(path) << "not a database, but a note somebody keeps\n";
  try {
    (void)sqlite_scratch_harness(path);
    FAIL() << "a file that is no SQLite database was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a SQLite database"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace thm::cli
