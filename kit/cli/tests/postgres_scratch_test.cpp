// The tool's guard for `thm conformance --queue postgres:CONNINFO`: the suite wipes the thm
// tables, so it runs only on a database with no tables or one it marked.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "thm/cli/scratch.hpp"
#include "thm/postgres/client.hpp"
#include "thm/postgres/postgres_queue.hpp"

namespace thm::cli {
namespace {

std::string conninfo() {
  const char* value = std::getenv("THM_POSTGRES");
  return value == nullptr ? std::string() : std::string(value);
}

void run(const char* sql) {
  auto connection = postgres::client::Connection::connect(conninfo());
  ASSERT_TRUE(connection.has_value()) << connection.error().message;
  (void)(*connection)->script(sql);
}

// A database that holds only thm's own tables may be a host's real queue.
TEST(PostgresScratchTest, ADatabaseWithThmTablesButNoMarkIsRefused) {
  run("DROP TABLE IF EXISTS thm_conformance_scratch");
  ASSERT_TRUE(postgres::PostgresQueue::open(conninfo()).has_value());  // the thm tables exist
  try {
    (void)postgres_scratch_harness(conninfo());
    FAIL() << "a database holding thm tables without the scratch mark was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("refusing"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(conninfo()), std::string::npos)
        << "the message quotes the conninfo, which may hold a password";
  }
}

// The guard looks at the whole database, not only at the schemas on the search path: a
// connection whose search path names an empty schema must not hide the tables elsewhere.
TEST(PostgresScratchTest, TablesOffTheSearchPathStillCount) {
  run("DROP TABLE IF EXISTS thm_conformance_scratch");
  ASSERT_TRUE(
      postgres::PostgresQueue::open(conninfo()).has_value());  // tables in the default schema
  run("CREATE SCHEMA IF NOT EXISTS thm_guard_empty");
  try {
    (void)postgres_scratch_harness(conninfo() + " options='-csearch_path=thm_guard_empty'");
    ADD_FAILURE() << "tables outside the search path were not seen";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("refusing"), std::string::npos) << e.what();
  }
  run("DROP SCHEMA thm_guard_empty CASCADE");
}

TEST(PostgresScratchTest, AMarkedDatabaseIsReused) {
  run("CREATE TABLE IF NOT EXISTS thm_conformance_scratch (made_by TEXT)");
  EXPECT_NO_THROW((void)postgres_scratch_harness(conninfo()));
  run("DROP TABLE IF EXISTS thm_conformance_scratch");
}

}  // namespace
}  // namespace thm::cli
