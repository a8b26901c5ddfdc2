// Enqueues per second on the SQL stores, each against its floor: the same rows written by one
// raw `INSERT … ON CONFLICT DO NOTHING` through the same client library, in autocommit, on
// the same kind of database, in the same run (bench/README.md reports the ratios).
//
// Each enqueue gets a fresh key whose committed reply is written outside the timed region.
// PostgreSQL runs when THM_POSTGRES names a server (CTest's fixture sets it). The same queue
// on a primary with a synchronous standby (issue 24) runs when THM_POSTGRES_PAIR names the
// pair (scripts/bench starts one), as a baseline of the single server: what the standby
// costs each enqueue.
#include <benchmark/benchmark.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "thm/postgres/postgres_queue.hpp"
#include "thm/sqlite/sqlite_queue.hpp"
#include "turns.hpp"

namespace {

using thm::bench::reply_for;
using thm::bench::request_for;

// A fresh directory under the temporary directory, removed with the object.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "thm-bench-XXXXXX").string();
    path = mkdtemp(pattern.data()) != nullptr ? pattern : std::string();
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// The floor's table: the record and the child's columns in one row.
constexpr const char* kFloorTable =
    "CREATE TABLE IF NOT EXISTS floor_turn (turn_key BLOB PRIMARY KEY, source_id BLOB, "
    "target_id BLOB, content BLOB, child_hop INTEGER)";

// ---- SQLite ------------------------------------------------------------------------------------

void BM_SqliteEnqueueOnce(benchmark::State& state) {
  ScratchDir dir;
  auto queue = thm::sqlite::SqliteQueue::open(dir.path + "/queue.db");
  if (!queue || !(*queue)->set_policy({.enabled = true, .max_hops = 10}) ||
      !(*queue)->set_available("bob", true)) {
    state.SkipWithError("cannot set up the SQLite queue");
    return;
  }
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto reply = reply_for(++sequence);
    (void)(*queue)->commit_reply(reply);
    const auto request = request_for(reply);
    state.ResumeTiming();
    const auto answer = (*queue)->enqueue_once(request);
    if (answer != thm::Result<thm::EnqueueOutcome, thm::QueueError>(thm::Enqueued{})) {
      state.SkipWithError("an enqueue was not Enqueued");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SqliteEnqueueOnce)
    ->Name("store_enqueue.sqlite/thm")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_SqliteRawInsertFloor(benchmark::State& state) {
  ScratchDir dir;
  sqlite3* db = nullptr;
  const std::string path = dir.path + "/floor.db";
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK ||
      sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) != SQLITE_OK ||
      // As the store sets it, so that both pay one WAL sync per commit.
      sqlite3_exec(db, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_exec(db, kFloorTable, nullptr, nullptr, nullptr) != SQLITE_OK) {
    state.SkipWithError("cannot set up the SQLite floor");
    sqlite3_close(db);
    return;
  }
  sqlite3_stmt* insert = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO floor_turn VALUES (?1, ?2, ?3, ?4, ?5) "
                     "ON CONFLICT (turn_key) DO NOTHING",
                     -1, &insert, nullptr);
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto request = request_for(reply_for(++sequence));
    const std::string key = thm::turn_key(request).encoded();
    state.ResumeTiming();
    sqlite3_bind_blob(insert, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 2, request.source_id.data(),
                      static_cast<int>(request.source_id.size()), SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 3, request.target_id.data(),
                      static_cast<int>(request.target_id.size()), SQLITE_TRANSIENT);
    sqlite3_bind_blob(insert, 4, request.content.data(), static_cast<int>(request.content.size()),
                      SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 5, request.child_hop);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      state.SkipWithError("the raw insert failed");
      break;
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  sqlite3_close(db);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SqliteRawInsertFloor)
    ->Name("store_enqueue.sqlite/floor")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// ---- PostgreSQL
// ----------------------------------------------------------------------------------

std::string postgres_conninfo() {
  const char* value = std::getenv("THM_POSTGRES");
  return value == nullptr ? std::string() : std::string(value);
}

// Enqueues through the PostgreSQL queue on the server (or servers) `variable` names.
void time_postgres_enqueues(benchmark::State& state, const char* variable) {
  const char* conninfo = std::getenv(variable);
  if (conninfo == nullptr) {
    state.SkipWithError((std::string(variable) + " is not set").c_str());
    return;
  }
  auto queue = thm::postgres::PostgresQueue::open(conninfo);
  if (!queue || !(*queue)->clear() || !(*queue)->set_policy({.enabled = true, .max_hops = 10}) ||
      !(*queue)->set_available("bob", true)) {
    state.SkipWithError("cannot set up the PostgreSQL queue");
    return;
  }
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto reply = reply_for(++sequence);
    (void)(*queue)->commit_reply(reply);
    const auto request = request_for(reply);
    state.ResumeTiming();
    const auto answer = (*queue)->enqueue_once(request);
    if (answer != thm::Result<thm::EnqueueOutcome, thm::QueueError>(thm::Enqueued{})) {
      state.SkipWithError("an enqueue was not Enqueued");
      break;
    }
  }
  (void)(*queue)->clear();
  state.SetItemsProcessed(state.iterations());
}

void BM_PostgresEnqueueOnce(benchmark::State& state) {
  time_postgres_enqueues(state, "THM_POSTGRES");
}
BENCHMARK(BM_PostgresEnqueueOnce)
    ->Name("store_enqueue.postgres/thm")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_PostgresPairEnqueueOnce(benchmark::State& state) {
  time_postgres_enqueues(state, "THM_POSTGRES_PAIR");
}
BENCHMARK(BM_PostgresPairEnqueueOnce)
    ->Name("store_enqueue.postgres/standby_sync")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// `sql` on `connection`, and whether it succeeded.
bool exec(PGconn* connection, const char* sql) {
  PGresult* result = PQexec(connection, sql);
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  return ok;
}

// A connection to THM_POSTGRES with the floor's table there and empty, or null when the
// bench cannot run (it is then skipped, saying why).
PGconn* open_floor(benchmark::State& state) {
  if (std::getenv("THM_POSTGRES") == nullptr) {
    state.SkipWithError("THM_POSTGRES is not set");
    return nullptr;
  }
  PGconn* connection = PQconnectdb(postgres_conninfo().c_str());
  if (PQstatus(connection) != CONNECTION_OK ||
      !exec(connection,
            "CREATE TABLE IF NOT EXISTS floor_turn (turn_key BYTEA PRIMARY KEY, source_id BYTEA,"
            " target_id BYTEA, content BYTEA, child_hop BIGINT)") ||
      !exec(connection, "TRUNCATE floor_turn")) {
    state.SkipWithError("cannot set up the PostgreSQL floor");
    PQfinish(connection);
    return nullptr;
  }
  return connection;
}

// Drops the floor's table and closes `connection`.
void close_floor(PGconn* connection) {
  exec(connection, "DROP TABLE floor_turn");
  PQfinish(connection);
}

void BM_PostgresRawInsertFloor(benchmark::State& state) {
  PGconn* connection = open_floor(state);
  if (connection == nullptr) return;
  const Oid types[] = {17, 17, 17, 17, 20};
  PQclear(PQprepare(connection, "floor",
                    "INSERT INTO floor_turn VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING", 5,
                    types));
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto request = request_for(reply_for(++sequence));
    const std::string key = thm::turn_key(request).encoded();
    const std::string hop = std::to_string(request.child_hop);
    state.ResumeTiming();
    const char* values[] = {key.data(), request.source_id.data(), request.target_id.data(),
                            request.content.data(), hop.c_str()};
    const int lengths[] = {static_cast<int>(key.size()), static_cast<int>(request.source_id.size()),
                           static_cast<int>(request.target_id.size()),
                           static_cast<int>(request.content.size()), 0};
    const int formats[] = {1, 1, 1, 1, 0};
    PGresult* result = PQexecPrepared(connection, "floor", 5, values, lengths, formats, 0);
    const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
    if (!ok) {
      state.SkipWithError("the raw insert failed");
      break;
    }
  }
  close_floor(connection);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PostgresRawInsertFloor)
    ->Name("store_enqueue.postgres/floor")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The same floor as pgbench runs it (bench/pgbench_floor.sql): a process of the server's own
// tools sends the raw insert, `-M prepared`, one client, so the floor does not rest on thm's
// client code. One iteration is one pgbench run of kPgbenchTransactions; its wall time
// includes starting pgbench and connecting (a few ms of about a second).
constexpr int kPgbenchTransactions = 500;

void BM_PostgresPgbenchFloor(benchmark::State& state) {
  PGconn* connection = open_floor(state);
  if (connection == nullptr) return;
  // pgbench takes the conninfo string as its database name, quoted here for the shell
  // (with any quotes inside it, as in options='-c …').
  std::string quoted = "'";
  for (const char c : postgres_conninfo())
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  const std::string command = std::string(THM_PGBENCH) + " -n -M prepared -c 1 -t " +
                              std::to_string(kPgbenchTransactions) + " -f " + THM_PGBENCH_SCRIPT +
                              " " + quoted + " > /dev/null 2>&1";
  for (auto _ : state) {
    if (std::system(command.c_str()) != 0) {
      state.SkipWithError(("pgbench failed; run it by hand: " + command).c_str());
      break;
    }
  }
  close_floor(connection);
  state.SetItemsProcessed(state.iterations() * kPgbenchTransactions);
}
BENCHMARK(BM_PostgresPgbenchFloor)
    ->Name("store_enqueue.postgres/pgbench")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
