// Enqueues per second on the SQL stores, each against its floor: the same rows written by one
// raw `INSERT … ON CONFLICT DO NOTHING` through the same client library, in autocommit, on
// the same kind of database, in the same run (bench/README.md reports the ratios).
//
// Each enqueue gets a fresh key whose committed reply is written outside the timed region.
// PostgreSQL runs when THM_POSTGRES names a server (CTest's fixture sets it). It adds
// baselines of that single server, each run once by one client and once by 8 concurrent
// clients (`clients:8`, one connection per client and server):
// - `standby_sync`: the same queue on a primary with a synchronous standby, when
//   THM_POSTGRES_PAIR names the pair: what the standby costs each enqueue;
// - `shards_2`: two servers (THM_POSTGRES_SHARDS, two conninfos separated by `;`), each
//   running the same migration, every enqueue sent to the shard of its conversation
//   (`shard_of` below), its reply committed there, and the policy and availability written
//   to both, as a host does.
// A row whose variable is unset is skipped with an error, which report.py shows as skipped.
#include <benchmark/benchmark.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <latch>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

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

// ---- sharding by conversation ---------------------------------------------------------------

// The conversations the PostgreSQL rows spread their enqueues over: threads 1..64 of #eng.
constexpr thm::Sequence kConversations = 64;

// The reply committed under `sequence`, in thread 1 + sequence % kConversations of #eng, so
// that the sharded rows have conversations to spread (every row enqueues the same ones).
thm::CommittedReply threaded_reply_for(thm::Sequence sequence) {
  auto reply = reply_for(sequence);
  reply.conversation.thread_root = 1 + sequence % kConversations;
  return reply;
}

// 64-bit FNV-1a of `bytes`: stable across processes, builds and machines, unlike std::hash.
std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

// The shard, among `shards`, that holds `conversation`: the FNV-1a hash of the canonical
// conversation, the part of the canonical turn key (`TurnKey::encoded()`, SPEC §3.3) before
// the trigger sequence, folded to 32 bits (the low bits of FNV-1a depend only on the low bits
// of each byte: mod 2 alone would be the parity of the bytes), modulo the shard count.
// Every General spelling is one desk there, so all of them share a shard. A host routes the
// reply it commits and the enqueue of its child by this same function, so the enqueue finds
// its reply on its own shard. (Bench code: the library itself never routes.)
std::size_t shard_of(const thm::DispatchConversation& conversation, std::size_t shards) {
  std::string key = thm::turn_key(conversation, thm::DispatchKey{}).encoded();
  key.resize(key.rfind('/') + 1);  // `v1/3:eng/t42/`: the sequence after the last '/' goes
  const std::uint64_t hash = fnv1a(key);
  return static_cast<std::size_t>((hash ^ (hash >> 32)) % shards);
}

// Whether the router folds what SPEC §3.3 folds: `General`, `main` and `""` (with the
// same thread root) route alike, and a conversation's keys stay together whatever their
// sequence. Checked before any bench runs.
bool router_folds_general() {
  for (std::size_t shards = 2; shards <= 16; ++shards) {
    for (thm::Sequence root = 1; root <= 64; ++root) {
      const auto general = shard_of({.desk_id = "General", .thread_root = root}, shards);
      for (const char* spelling : {"main", "", "MAIN", "general"})
        if (shard_of({.desk_id = spelling, .thread_root = root}, shards) != general) return false;
    }
    if (shard_of({.desk_id = "General"}, shards) != shard_of({.desk_id = "main"}, shards) ||
        shard_of({.desk_id = "General"}, shards) != shard_of({.desk_id = ""}, shards))
      return false;
  }
  const auto request = request_for(threaded_reply_for(3));
  auto later = request;
  later.key.trigger_sequence += kConversations * 7;  // the same conversation, another sequence
  return shard_of(request.conversation, 5) == shard_of(later.conversation, 5);
}

// The conninfos `variable` names, separated by `;` (one for a single server or a pair, two
// for THM_POSTGRES_SHARDS); empty, after skipping the run with the reason, when the variable
// is unset or names other than `servers` of them.
std::vector<std::string> conninfos_or_skip(benchmark::State& state, const char* variable,
                                           std::size_t servers) {
  const char* value = std::getenv(variable);
  if (value == nullptr) {
    state.SkipWithError((std::string(variable) + " is not set").c_str());
    return {};
  }
  std::vector<std::string> out;
  std::string_view rest = value;
  for (;;) {
    const auto end = rest.find(';');
    out.emplace_back(rest.substr(0, end));
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
  if (out.size() != servers) {
    state.SkipWithError((std::string(variable) + " names " + std::to_string(out.size()) +
                         " conninfos separated by ';', this row needs " + std::to_string(servers))
                            .c_str());
    return {};
  }
  return out;
}

using Queue = std::unique_ptr<thm::postgres::PostgresQueue>;

// One client's queues: one connection to each server, in the order of `conninfos`. The first
// client (`fresh`) also empties every server and writes the policy and availability to each,
// as a host writes them to every shard. Empty when a server cannot be set up.
std::vector<Queue> open_client(const std::vector<std::string>& conninfos, bool fresh) {
  std::vector<Queue> queues;
  for (const auto& conninfo : conninfos) {
    auto queue = thm::postgres::PostgresQueue::open(conninfo);
    if (!queue ||
        (fresh && (!(*queue)->clear() || !(*queue)->set_policy({.enabled = true, .max_hops = 10}) ||
                   !(*queue)->set_available("bob", true))))
      return {};
    queues.push_back(*std::move(queue));
  }
  return queues;
}

// The queue among `client`'s that holds `conversation`.
thm::postgres::PostgresQueue& route(const std::vector<Queue>& client,
                                    const thm::DispatchConversation& conversation) {
  return *client[shard_of(conversation, client.size())];
}

// Enqueues through the PostgreSQL queue by one client, one at a time, on the `servers`
// servers `variable` names (each enqueue on its conversation's shard).
void time_postgres_enqueues(benchmark::State& state, const char* variable,
                            std::size_t servers = 1) {
  const auto conninfos = conninfos_or_skip(state, variable, servers);
  if (conninfos.empty()) return;
  const auto client = open_client(conninfos, true);
  if (client.empty()) {
    state.SkipWithError("cannot set up the PostgreSQL queue");
    return;
  }
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto reply = threaded_reply_for(++sequence);
    auto& queue = route(client, reply.conversation);
    (void)queue.commit_reply(reply);
    const auto request = request_for(reply);
    state.ResumeTiming();
    const auto answer = queue.enqueue_once(request);
    if (answer != thm::Result<thm::EnqueueOutcome, thm::QueueError>(thm::Enqueued{})) {
      state.SkipWithError("an enqueue was not Enqueued");
      break;
    }
  }
  for (const auto& queue : client) (void)queue->clear();
  state.SetItemsProcessed(state.iterations());
}

// Enqueues each client makes in one iteration of the concurrent rows.
constexpr thm::Sequence kEnqueuesPerClient = 32;

// One iteration of a bench of `clients` at once: each client prepares its kEnqueuesPerClient
// calls (`prepare(client, first sequence)`, untimed), then all start together and each runs
// its own (`run(client)`); the wall time from the common start to the last one's end is the
// iteration's (manual time). `next` is the last sequence used, moved past this iteration's.
template <class Prepare, class Run>
void time_clients(benchmark::State& state, std::size_t clients, thm::Sequence& next,
                  Prepare prepare, Run run) {
  std::latch ready(static_cast<std::ptrdiff_t>(clients));
  std::latch start(1);
  std::vector<std::jthread> workers;
  workers.reserve(clients);
  for (std::size_t client = 0; client < clients; ++client) {
    const thm::Sequence first = next + 1 + client * kEnqueuesPerClient;
    workers.emplace_back([&, client, first] {
      prepare(client, first);
      ready.count_down();
      start.wait();
      run(client);
    });
  }
  ready.wait();
  const auto begin = std::chrono::steady_clock::now();
  start.count_down();
  workers.clear();  // joins
  state.SetIterationTime(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count());
  next += clients * kEnqueuesPerClient;
}

// `state.range(0)` clients enqueue at once, each over its own connections, on the `servers`
// servers `variable` names. One iteration: every client commits the replies of its next
// kEnqueuesPerClient keys (on their shards, untimed), then all start together, and the
// iteration's time is the wall time from that start to the last client's end (manual time,
// as the queue bench does: Google Benchmark's own thread timing would count each thread's
// time apart, and on 2 cores threads run one after another).
void time_concurrent_postgres_enqueues(benchmark::State& state, const char* variable,
                                       std::size_t servers = 1) {
  const auto clients = static_cast<int>(state.range(0));
  const auto conninfos = conninfos_or_skip(state, variable, servers);
  if (conninfos.empty()) return;
  std::vector<std::vector<Queue>> queues;
  for (int client = 0; client < clients; ++client) {
    queues.push_back(open_client(conninfos, client == 0));
    if (queues.back().empty()) {
      state.SkipWithError("cannot set up the PostgreSQL queue");
      return;
    }
  }
  std::atomic<bool> failed = false;
  thm::Sequence next = 0;  // the last sequence used
  std::vector<std::vector<thm::MentionTurnRequest>> requests(static_cast<std::size_t>(clients));
  for (auto _ : state) {
    time_clients(
        state, static_cast<std::size_t>(clients), next,
        [&](std::size_t client, thm::Sequence first) {
          requests[client].clear();
          for (thm::Sequence sequence = first; sequence < first + kEnqueuesPerClient; ++sequence) {
            const auto reply = threaded_reply_for(sequence);
            if (!route(queues[client], reply.conversation).commit_reply(reply)) failed = true;
            requests[client].push_back(request_for(reply));
          }
        },
        [&](std::size_t client) {
          for (const auto& request : requests[client]) {
            const auto answer = route(queues[client], request.conversation).enqueue_once(request);
            if (!answer || !std::holds_alternative<thm::Enqueued>(*answer)) failed = true;
          }
        });
  }
  for (const auto& queue : queues.front()) (void)queue->clear();
  if (failed) state.SkipWithError("an enqueue or a reply's commit failed");
  state.SetItemsProcessed(state.iterations() * clients *
                          static_cast<benchmark::IterationCount>(kEnqueuesPerClient));
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

void BM_PostgresShardsEnqueueOnce(benchmark::State& state) {
  time_postgres_enqueues(state, "THM_POSTGRES_SHARDS", 2);
}
BENCHMARK(BM_PostgresShardsEnqueueOnce)
    ->Name("store_enqueue.postgres/shards_2")
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// The three setups again, with 8 clients at once.
void BM_PostgresEnqueueConcurrent(benchmark::State& state) {
  time_concurrent_postgres_enqueues(state, "THM_POSTGRES");
}
BENCHMARK(BM_PostgresEnqueueConcurrent)
    ->Name("store_enqueue.postgres/thm")
    ->ArgName("clients")
    ->Arg(8)
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

void BM_PostgresPairEnqueueConcurrent(benchmark::State& state) {
  time_concurrent_postgres_enqueues(state, "THM_POSTGRES_PAIR");
}
BENCHMARK(BM_PostgresPairEnqueueConcurrent)
    ->Name("store_enqueue.postgres/standby_sync")
    ->ArgName("clients")
    ->Arg(8)
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

void BM_PostgresShardsEnqueueConcurrent(benchmark::State& state) {
  time_concurrent_postgres_enqueues(state, "THM_POSTGRES_SHARDS", 2);
}
BENCHMARK(BM_PostgresShardsEnqueueConcurrent)
    ->Name("store_enqueue.postgres/shards_2")
    ->ArgName("clients")
    ->Arg(8)
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

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

// Prepares the floor's insert on `connection`.
void prepare_floor(PGconn* connection) {
  const Oid types[] = {17, 17, 17, 17, 20};
  PQclear(PQprepare(connection, "floor",
                    "INSERT INTO floor_turn VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING", 5,
                    types));
}

// The floor's insert of the rows `request` stands for, in autocommit; false when it failed.
bool insert_floor_row(PGconn* connection, const thm::MentionTurnRequest& request) {
  const std::string key = thm::turn_key(request).encoded();
  const std::string hop = std::to_string(request.child_hop);
  const char* values[] = {key.data(), request.source_id.data(), request.target_id.data(),
                          request.content.data(), hop.c_str()};
  const int lengths[] = {static_cast<int>(key.size()), static_cast<int>(request.source_id.size()),
                         static_cast<int>(request.target_id.size()),
                         static_cast<int>(request.content.size()), 0};
  const int formats[] = {1, 1, 1, 1, 0};
  PGresult* result = PQexecPrepared(connection, "floor", 5, values, lengths, formats, 0);
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  return ok;
}

void BM_PostgresRawInsertFloor(benchmark::State& state) {
  PGconn* connection = open_floor(state);
  if (connection == nullptr) return;
  prepare_floor(connection);
  thm::Sequence sequence = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const auto request = request_for(reply_for(++sequence));
    state.ResumeTiming();
    if (!insert_floor_row(connection, request)) {
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

// The floor by `state.range(0)` clients at once, each over a connection of its own, timed as
// the concurrent queue rows are: kEnqueuesPerClient fresh rows per client and iteration, the
// wall time from a common start to the last client's end.
void BM_PostgresRawInsertFloorConcurrent(benchmark::State& state) {
  const auto clients = static_cast<std::size_t>(state.range(0));
  PGconn* table = open_floor(state);  // creates and empties the table
  if (table == nullptr) return;
  std::vector<PGconn*> connections;
  for (std::size_t client = 0; client < clients; ++client) {
    connections.push_back(PQconnectdb(postgres_conninfo().c_str()));
    prepare_floor(connections.back());
  }
  std::atomic<bool> failed = false;
  thm::Sequence next = 0;  // the last sequence used
  std::vector<std::vector<thm::MentionTurnRequest>> requests(clients);
  for (auto _ : state) {
    time_clients(
        state, clients, next,
        [&](std::size_t client, thm::Sequence first) {
          requests[client].clear();
          for (thm::Sequence sequence = first; sequence < first + kEnqueuesPerClient; ++sequence)
            requests[client].push_back(request_for(reply_for(sequence)));
        },
        [&](std::size_t client) {
          for (const auto& request : requests[client])
            if (!insert_floor_row(connections[client], request)) failed = true;
        });
  }
  for (PGconn* connection : connections) PQfinish(connection);
  close_floor(table);
  if (failed) state.SkipWithError("a raw insert failed");
  state.SetItemsProcessed(state.iterations() *
                          static_cast<benchmark::IterationCount>(clients * kEnqueuesPerClient));
}
BENCHMARK(BM_PostgresRawInsertFloorConcurrent)
    ->Name("store_enqueue.postgres/floor")
    ->ArgName("clients")
    ->Arg(8)
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

// The same floor as pgbench runs it (kit/bench/pgbench_floor.sql): a process of the server's own
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

int main(int argc, char** argv) {
  if (!router_folds_general()) {
    std::cerr << "store_bench: shard_of routes General spellings, or one conversation's keys, "
                 "apart\n";
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
