// PostgresQueue on its own, against the throwaway server CTest starts: byte-exact rows,
// typed errors, several processes racing on one key, and a session that outlives a server
// restart.
#include "thm/postgres/postgres_queue.hpp"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "thm/postgres/thm_queue_sql.hpp"

namespace thm::postgres {
namespace {

using Answer = Result<EnqueueOutcome, QueueError>;

std::string conninfo() {
  const char* value = std::getenv("THM_POSTGRES");
  return value == nullptr ? std::string() : std::string(value);
}

class PostgresQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    queue_ = open_queue();
    ASSERT_NE(queue_, nullptr);
    ASSERT_TRUE(queue_->clear());
  }

  static std::unique_ptr<PostgresQueue> open_queue() {
    auto queue = PostgresQueue::open(conninfo());
    EXPECT_TRUE(queue.has_value()) << (queue ? "" : queue.error().message);
    return queue ? *std::move(queue) : nullptr;
  }

  // A reply, enabled policy and an available target, and the request that matches.
  MentionTurnRequest ready(std::string content = "@bob go") {
    const CommittedReply reply{.conversation = {.desk_id = "eng", .thread_root = 5},
                               .sequence = 7,
                               .author_id = "alice",
                               .content = content,
                               .hop = 0};
    EXPECT_TRUE(queue_->commit_reply(reply));
    EXPECT_TRUE(queue_->set_policy({.enabled = true, .max_hops = 3}));
    EXPECT_TRUE(queue_->set_available("bob", true));
    return {.key = {7},
            .source_id = "alice",
            .target_id = "bob",
            .content = std::move(content),
            .conversation = reply.conversation,
            .child_hop = 1};
  }

  std::unique_ptr<PostgresQueue> queue_;
};

TEST_F(PostgresQueueTest, KeepsEveryByteOfContentAndIds) {
  const std::string content("@bob \0\xff\xfe not utf-8", 19);
  const auto request = ready(content);
  ASSERT_EQ(queue_->enqueue_once(request), Answer(Enqueued{}));
  EXPECT_EQ(queue_->enqueue_once(request), Answer(Already{}));
  const auto children = queue_->children();
  ASSERT_TRUE(children && children->size() == 1U);
  EXPECT_EQ((*children)[0].request, request);
}

TEST_F(PostgresQueueTest, AMismatchedRequestIsATypedErrorAndTheSessionGoesOn) {
  auto request = ready();
  auto wrong = request;
  wrong.child_hop = 2;
  const auto answer = queue_->enqueue_once(wrong);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, QueueErrorKind::TriggerMismatch);
  EXPECT_TRUE(queue_->records()->empty());
  EXPECT_EQ(queue_->enqueue_once(request), Answer(Enqueued{}));
}

TEST_F(PostgresQueueTest, AnUnreachableServerIsUnavailableNotAThrow) {
  const auto queue = PostgresQueue::open("host=/nonexistent port=1 connect_timeout=2");
  ASSERT_FALSE(queue);
  EXPECT_EQ(queue.error().kind, QueueErrorKind::Unavailable);
  EXPECT_NE(queue.error().message.find("/nonexistent"), std::string::npos);
}

// Four processes, each with its own connection, released together onto one key.
TEST_F(PostgresQueueTest, ProcessesRacingOnOneKeyAdmitOneChild) {
  const auto request = ready();
  int release[2];
  ASSERT_EQ(pipe(release), 0);
  std::vector<pid_t> racers;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(release[1]);
      auto queue = PostgresQueue::open(conninfo());
      char go = 0;
      (void)read(release[0], &go, 1);  // returns when the parent closes the pipe
      if (!queue) _exit(3);
      const auto answer = (*queue)->enqueue_once(request);
      _exit(answer == Answer(Enqueued{}) ? 0 : answer == Answer(Already{}) ? 1 : 2);
    }
    racers.push_back(pid);
  }
  close(release[0]);
  close(release[1]);
  int enqueued = 0;
  int already = 0;
  for (const pid_t pid : racers) {
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    enqueued += WEXITSTATUS(status) == 0 ? 1 : 0;
    already += WEXITSTATUS(status) == 1 ? 1 : 0;
  }
  EXPECT_EQ(enqueued, 1);
  EXPECT_EQ(already, 3);
  EXPECT_EQ(queue_->children()->size(), 1U);
}

TEST_F(PostgresQueueTest, ASessionReconnectsAfterTheServerRestarts) {
  const char* restart = std::getenv("THM_POSTGRES_RESTART");
  if (restart == nullptr) GTEST_SKIP() << "THM_POSTGRES_RESTART is not set";
  const auto request = ready();
  ASSERT_EQ(queue_->enqueue_once(request), Answer(Enqueued{}));
  ASSERT_EQ(std::system(restart), 0);
  // The first call after the restart may find the connection dead; the next one reconnects.
  auto answer = queue_->enqueue_once(request);
  if (!answer) answer = queue_->enqueue_once(request);
  EXPECT_EQ(answer, Answer(Already{}));
}

// The first column of the first row of `query` on a new connection, or "" (no row, or an
// error).
std::string first_value(const std::string& query) {
  PGconn* side = PQconnectdb(conninfo().c_str());
  PGresult* result = PQexec(side, query.c_str());
  std::string value;
  if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0) {
    value = PQgetvalue(result, 0, 0);
  }
  PQclear(result);
  PQfinish(side);
  return value;
}

// The test server's log: server.log in the directory of its socket, the host of
// THM_POSTGRES (kit/scripts/pg_test_cluster).
std::string server_log() {
  const std::string info = conninfo();
  const std::size_t host = info.find("host=");
  if (host == std::string::npos) return {};
  const std::size_t begin = host + 5;
  const std::string directory = info.substr(begin, info.find(' ', begin) - begin);
  std::ifstream file(directory + "/server.log", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

// The statements the session `application` sent while `call` ran, as the server logged
// them (the session runs with log_statement = all): `statement: …` for a simple query,
// `execute …` for a prepared one. Every statement is one round trip.
template <class Call>
int statements_of(const std::string& application, Call call) {
  const std::string pid = first_value(
      "SELECT pid FROM pg_stat_activity WHERE application_name = '" + application + "'");
  const std::size_t before = server_log().size();
  call();
  const std::string log = server_log();
  int statements = 0;
  for (const std::string& mark :
       {"[" + pid + "] LOG:  statement: ", "[" + pid + "] LOG:  execute "}) {
    for (std::size_t at = log.find(mark, before); at != std::string::npos;
         at = log.find(mark, at + 1)) {
      ++statements;
    }
  }
  return statements;
}

// A queue whose session is named `application` and logs every statement it runs.
std::unique_ptr<PostgresQueue> logged_queue(const std::string& application, Options options = {}) {
  auto queue = PostgresQueue::open(
      conninfo() + " application_name=" + application + " options='-c log_statement=all'",
      std::move(options));
  EXPECT_TRUE(queue.has_value()) << (queue ? "" : queue.error().message);
  return queue ? *std::move(queue) : nullptr;
}

// An enqueue is one round trip (the call in autocommit, its own
// transaction), whatever it answers.
TEST_F(PostgresQueueTest, WithoutAHookAnEnqueueIsOneStatement) {
  const auto queue = logged_queue("thm_one_trip");
  ASSERT_NE(queue, nullptr);
  ASSERT_FALSE(server_log().empty()) << "the test server's log cannot be read";
  const auto request = ready();
  EXPECT_EQ(statements_of("thm_one_trip",
                          [&] { EXPECT_EQ(queue->enqueue_once(request), Answer(Enqueued{})); }),
            1);
  EXPECT_EQ(statements_of("thm_one_trip",
                          [&] { EXPECT_EQ(queue->enqueue_once(request), Answer(Already{})); }),
            1);
  MentionTurnRequest stranger = request;
  stranger.key.trigger_sequence = 99;
  EXPECT_EQ(statements_of("thm_one_trip",
                          [&] {
                            const auto missing = queue->enqueue_once(stranger);
                            EXPECT_FALSE(missing.has_value());
                          }),
            1);
  EXPECT_EQ(queue_->children()->size(), 1U);
}

// With a hook the step is the statement production runs: thm_enqueue_once in autocommit,
// five hook points inside it (the seam) and the sixth after its commit; no BEGIN or COMMIT.
TEST_F(PostgresQueueTest, WithAHookTheStepIsTheStatementProductionRuns) {
  Options options;
  std::vector<HookPoint> seen;
  options.hook = [&](HookPoint point, const MentionTurnRequest&) {
    seen.push_back(point);
    return true;
  };
  const auto queue = logged_queue("thm_hooked", std::move(options));
  ASSERT_NE(queue, nullptr);
  const auto request = ready();
  const std::size_t before = server_log().size();
  EXPECT_EQ(queue->enqueue_once(request), Answer(Enqueued{}));
  const std::string log = server_log().substr(before);
  EXPECT_NE(log.find("thm_enqueue_once"), std::string::npos) << log;
  EXPECT_EQ(log.find("statement: BEGIN"), std::string::npos) << log;
  EXPECT_EQ(log.find("statement: COMMIT"), std::string::npos) << log;
  EXPECT_EQ(seen, std::vector<HookPoint>(kAllHookPoints.begin(), kAllHookPoints.end()));
}

// A connection lost under the autocommit call may have committed: Indeterminate; a retry
// settles to the one child.
TEST_F(PostgresQueueTest, AnEnqueueOnALostConnectionIsIndeterminateAndARetrySettles) {
  const auto request = ready();
  PGconn* side = PQconnectdb(conninfo().c_str());
  PQclear(PQexec(side,
                 "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                 " WHERE datname = current_database() AND pid <> pg_backend_pid()"));
  PQfinish(side);
  const auto lost = queue_->enqueue_once(request);
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().kind, QueueErrorKind::Indeterminate) << lost.error().message;
  EXPECT_EQ(queue_->enqueue_once(request), Answer(Enqueued{}));
  EXPECT_EQ(queue_->enqueue_once(request), Answer(Already{}));
  EXPECT_EQ(queue_->children()->size(), 1U);
}

// Run `sql` on a connection of the test's own; it stays open (and holds what it locked)
// until `finish`.
PGconn* side_connection(const char* sql) {
  PGconn* side = PQconnectdb(conninfo().c_str());
  PQclear(PQexec(side, sql));
  return side;
}

// Connecting reads the schema version and takes no table lock while the schema is there.
TEST_F(PostgresQueueTest, OpeningDoesNotWaitForTrafficOnTheTables) {
  PGconn* side = side_connection("BEGIN; LOCK TABLE thm_child_turn IN EXCLUSIVE MODE");
  Options options;
  options.lock_timeout = std::chrono::milliseconds(500);
  const auto queue = PostgresQueue::open(conninfo(), options);
  PQfinish(side);
  EXPECT_TRUE(queue.has_value()) << (queue ? "" : queue.error().message);
}

// A host write whose connection dies under it may have committed: Indeterminate, and the
// next call reconnects.
TEST_F(PostgresQueueTest, AWriteOnALostConnectionIsIndeterminateAndTheNextCallReconnects) {
  ready();
  PGconn* side = side_connection(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
      " WHERE datname = current_database() AND pid <> pg_backend_pid()");
  PQfinish(side);
  const auto lost = queue_->set_policy({.enabled = true, .max_hops = 4});
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().kind, QueueErrorKind::Indeterminate) << lost.error().message;
  EXPECT_TRUE(queue_->set_policy({.enabled = true, .max_hops = 4}));
}

TEST_F(PostgresQueueTest, LeasesUseTheServerClockAndCountAttempts) {
  ASSERT_EQ(queue_->enqueue_once(ready()), Answer(Enqueued{}));
  const auto before = queue_->now();
  ASSERT_TRUE(before);
  const auto lease = queue_->claim(std::chrono::minutes(5));
  ASSERT_TRUE(lease && lease->has_value());
  EXPECT_EQ((*lease)->attempt, 1U);
  EXPECT_GE((*lease)->expires_at, *before + std::chrono::minutes(5));
  const auto renewed = queue_->renew((*lease)->token, std::chrono::minutes(10));
  ASSERT_TRUE(renewed);
  EXPECT_EQ(queue_->children()->front().lease_expires_at, *renewed);
  EXPECT_EQ(queue_->complete((*lease)->token),
            (Result<TurnState, LeaseError>(TurnState::Completed)));
  EXPECT_EQ(queue_->fail((*lease)->token),
            (Result<TurnState, LeaseError>(unexpected{LeaseError::StaleToken})));
}
// ---- the functions of thm_queue.sql ---------------------------------------------------------

// One statement on a fresh libpq connection, as a host in another language would send it:
// the first column of the first row as text, or the error message.
std::string sql(const std::string& statement) {
  PGconn* connection = PQconnectdb(conninfo().c_str());
  PQsetNoticeProcessor(
      connection, [](void*, const char*) {}, nullptr);
  PGresult* result = PQexec(connection, statement.c_str());
  std::string out;
  if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0) {
    out = PQgetvalue(result, 0, 0);
  } else if (PQresultStatus(result) != PGRES_COMMAND_OK &&
             PQresultStatus(result) != PGRES_TUPLES_OK) {
    out = std::string("error: ") + PQresultErrorMessage(result);
  }
  PQclear(result);
  PQfinish(connection);
  return out;
}

// `statement` on a connection of its own that waits at most 200 ms for a lock: "waited"
// when it timed out there, else what sql() says.
std::string without_waiting(const std::string& statement) {
  const std::string out = sql("SET lock_timeout = '200ms'; " + statement);
  return out.find("lock timeout") != std::string::npos ? "waited" : out;
}

// An open step holds the rows it read: the reply, the policy row and the target's
// availability row, and through the policy row the pair it found not forbidden. Every write
// that would change its answer waits for it; writes to other rows of the same tables do not.
TEST_F(PostgresQueueTest, AnOpenStepHoldsTheRowsItReadAndOnlyThose) {
  ready();
  PGconn* step = side_connection(
      "BEGIN; SELECT outcome FROM thm_enqueue_once('eng', 5, 7, 'alice', 'bob', '@bob go', 1)");
  EXPECT_EQ(without_waiting("SELECT thm_commit_reply('eng', 5, 7, 'alice', 'edited', 0)"),
            "waited");
  EXPECT_EQ(without_waiting("DELETE FROM thm_reply"), "waited");
  EXPECT_EQ(without_waiting("UPDATE thm_policy SET enabled = false"), "waited");
  EXPECT_EQ(without_waiting("UPDATE thm_policy SET max_hops = 0"), "waited");
  EXPECT_EQ(without_waiting("DELETE FROM thm_policy"), "waited");
  EXPECT_EQ(without_waiting("DELETE FROM thm_available_agent WHERE agent_id = 'bob'"), "waited");
  // No row to lock: the pair's writer locks the policy row first (thm_forbidden_pair_guard).
  EXPECT_EQ(without_waiting("INSERT INTO thm_forbidden_pair VALUES ('alice', 'bob')"), "waited");
  EXPECT_EQ(without_waiting("INSERT INTO thm_forbidden_pair VALUES ('carol', 'dave')"), "waited");
  // Rows the step did not read.
  EXPECT_EQ(without_waiting("SELECT thm_commit_reply('eng', 5, 8, 'alice', 'next', 0)"), "");
  EXPECT_EQ(without_waiting("INSERT INTO thm_available_agent VALUES ('carol')"), "");
  EXPECT_EQ(without_waiting("DELETE FROM thm_available_agent WHERE agent_id = 'carol'"), "");
  EXPECT_EQ(without_waiting("DELETE FROM thm_forbidden_pair"), "");
  PQclear(PQexec(step, "COMMIT"));
  PQfinish(step);
  EXPECT_EQ(queue_->children()->size(), 1U);
  EXPECT_EQ(without_waiting("INSERT INTO thm_forbidden_pair VALUES ('alice', 'bob')"), "");
}

// A forbidding in flight, the other way round: a step waits for it and then refuses, also
// when there was no policy row to lock (the guard stores the disabled one, so the host's
// policy waits for the forbidding too).
TEST_F(PostgresQueueTest, AStepWaitsForAForbiddingInFlightThenRefuses) {
  const auto request = ready();
  ASSERT_EQ(sql("DELETE FROM thm_policy"), "");
  PGconn* forbidding =
      side_connection("BEGIN; INSERT INTO thm_forbidden_pair VALUES ('alice', 'bob')");
  EXPECT_EQ(without_waiting("INSERT INTO thm_policy VALUES (1, true, 3)"
                            " ON CONFLICT (id) DO UPDATE SET enabled = true, max_hops = 3"),
            "waited");
  PQclear(PQexec(forbidding, "ROLLBACK"));
  EXPECT_EQ(sql("SELECT count(*) FROM thm_policy"), "0");  // the guard's row went with it
  ASSERT_TRUE(queue_->set_policy({.enabled = true, .max_hops = 3}));
  PQclear(PQexec(forbidding, "BEGIN; INSERT INTO thm_forbidden_pair VALUES ('alice', 'bob')"));
  EXPECT_EQ(without_waiting("SELECT outcome FROM thm_enqueue_once('eng', 5, 7, 'alice', 'bob',"
                            " '@bob go', 1)"),
            "waited");
  PQclear(PQexec(forbidding, "COMMIT"));
  PQfinish(forbidding);
  EXPECT_EQ(queue_->enqueue_once(request), Answer(Refused{EnqueueRefusal::Unauthorized}));
  EXPECT_TRUE(queue_->children()->empty());
}

TEST_F(PostgresQueueTest, EveryHookPointIsReachedInOrderIncludingThoseInsideTheFunction) {
  std::vector<HookPoint> seen;
  auto queue = PostgresQueue::open(conninfo(), {.hook = [&](HookPoint point, const auto&) {
                                     seen.push_back(point);
                                     return true;
                                   }});
  ASSERT_TRUE(queue) << queue.error().message;
  const auto request = ready();
  ASSERT_EQ((*queue)->enqueue_once(request), Answer(Enqueued{}));
  EXPECT_EQ(seen, std::vector<HookPoint>(kAllHookPoints.begin(), kAllHookPoints.end()));
  seen.clear();  // an Already stops at the idempotency statement, before its inner point
  ASSERT_EQ((*queue)->enqueue_once(request), Answer(Already{}));
  EXPECT_EQ(seen, (std::vector{HookPoint::AfterBegin, HookPoint::AfterValidateReads}));
}

TEST_F(PostgresQueueTest, AHookThatSaysNoInsideTheFunctionRollsTheStepBackThere) {
  for (const HookPoint refused :
       {HookPoint::AfterValidateReads, HookPoint::AfterIdempotencyStatement,
        HookPoint::AfterChildInsert}) {
    auto queue = PostgresQueue::open(
        conninfo(), {.hook = [refused](HookPoint point, const auto&) { return point != refused; }});
    ASSERT_TRUE(queue) << queue.error().message;
    const auto answer = (*queue)->enqueue_once(ready());
    ASSERT_FALSE(answer) << name(refused);
    EXPECT_EQ(answer.error().kind, QueueErrorKind::Unavailable);
    EXPECT_NE(answer.error().message.find(name(refused)), std::string::npos)
        << answer.error().message;
    EXPECT_TRUE(queue_->records()->empty()) << name(refused);
    EXPECT_TRUE(queue_->children()->empty()) << name(refused);
    // The same session goes on: the next step on it commits.
    auto hookless = PostgresQueue::open(conninfo());
    EXPECT_EQ((*hookless)->enqueue_once(ready()), Answer(Enqueued{})) << name(refused);
    ASSERT_TRUE(queue_->clear());
  }
}

TEST_F(PostgresQueueTest, AHostInAnotherLanguageCallsTheFunctionsAndSeesTheSameRows) {
  // The reply and policy through plain SQL; the C++ queue reads what the functions wrote.
  ASSERT_EQ(sql("SELECT thm_commit_reply('eng', 5, 7, 'alice', '@bob go', 0)"), "");
  ASSERT_EQ(sql("INSERT INTO thm_policy VALUES (1, true, 3)"), "");
  ASSERT_EQ(sql("INSERT INTO thm_available_agent VALUES ('bob')"), "");
  ASSERT_EQ(sql("SELECT outcome FROM thm_enqueue_once('eng', 5, 7, 'alice', 'bob', '@bob go', 1)"),
            "enqueued");
  const MentionTurnRequest same{.key = {7},
                                .source_id = "alice",
                                .target_id = "bob",
                                .content = "@bob go",
                                .conversation = {.desk_id = "eng", .thread_root = 5},
                                .child_hop = 1};
  EXPECT_EQ(queue_->enqueue_once(same), Answer(Already{}));
  const auto records = queue_->records();
  ASSERT_TRUE(records && records->size() == 1U);
  EXPECT_EQ((*records)[0].key, turn_key(same).encoded());
  // A u64 past 2^63 survives the trip through the BIGINT column.
  ASSERT_EQ(sql("SELECT thm_commit_reply('General', NULL, 18446744073709551615, 'a', 'x', 0)"), "");
  EXPECT_EQ(sql("SELECT encode(thm_turn_key('MAIN', NULL, 18446744073709551615), 'escape')"),
            turn_key(DispatchConversation{.desk_id = "MAIN"}, {18446744073709551615U}).encoded());
  EXPECT_NE(sql("SELECT thm_turn_key('eng', NULL, -1)").find("not a u64"), std::string::npos);
  EXPECT_NE(sql("SELECT * FROM thm_claim(0, 3)").find("positive"), std::string::npos);
  const auto lease = queue_->claim(std::chrono::seconds(30));
  ASSERT_TRUE(lease && *lease);
  EXPECT_EQ((*lease)->request, same);
  EXPECT_EQ(sql("SELECT thm_complete('" + (*lease)->token + "')"), "completed");
  EXPECT_EQ(sql("SELECT thm_complete('" + (*lease)->token + "') IS NULL"), "t");
}

TEST_F(PostgresQueueTest, OpeningADatabaseAtSchemaVersionOneAddsTheFunctions) {
  ASSERT_EQ(sql("DROP FUNCTION thm_enqueue_once; DROP FUNCTION thm_admit; DROP FUNCTION thm_check;"
                " UPDATE thm_schema SET version = 1"),
            "");
  auto queue = open_queue();
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(sql("SELECT version FROM thm_schema"), "5");
  EXPECT_EQ(queue->enqueue_once(ready()), Answer(Enqueued{}));
  ASSERT_EQ(sql("UPDATE thm_schema SET version = 6"), "");
  auto newer = PostgresQueue::open(conninfo());
  ASSERT_FALSE(newer);
  EXPECT_EQ(newer.error().kind, QueueErrorKind::Internal);
  ASSERT_EQ(sql("UPDATE thm_schema SET version = 5"), "");
}

TEST_F(PostgresQueueTest, OpeningADatabaseAtSchemaVersionTwoAddsThmCheckAndThmAdmit) {
  ASSERT_EQ(sql("DROP FUNCTION thm_admit; DROP FUNCTION thm_check;"
                " UPDATE thm_schema SET version = 2"),
            "");
  auto queue = open_queue();
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(sql("SELECT version FROM thm_schema"), "5");
  EXPECT_EQ(sql("SELECT count(*) FROM pg_proc WHERE proname IN ('thm_admit', 'thm_check')"), "2");
  EXPECT_EQ(queue->enqueue_once(ready()), Answer(Enqueued{}));
}

// Version 3's thm_enqueue_once had three hook points: opening the database replaces it with
// the one that has five.
TEST_F(PostgresQueueTest, OpeningADatabaseAtSchemaVersionThreeAddsTheOuterSeams) {
  ASSERT_EQ(sql("UPDATE thm_schema SET version = 3"), "");
  auto queue = open_queue();
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(sql("SELECT version FROM thm_schema"), "5");
  EXPECT_EQ(sql("SELECT prosrc LIKE '%''after_begin''%''before_commit''%' FROM pg_proc"
                " WHERE proname = 'thm_enqueue_once'"),
            "t");
}

// Version 4 locked the policy tables in SHARE mode: opening the database replaces its
// functions with the ones that lock the rows they read, and adds the pair's guard.
TEST_F(PostgresQueueTest, OpeningADatabaseAtSchemaVersionFourLocksRowsInstead) {
  ASSERT_EQ(sql("DROP TRIGGER thm_forbidden_pair_guard ON thm_forbidden_pair;"
                " DROP FUNCTION thm_forbidden_pair_guard; UPDATE thm_schema SET version = 4"),
            "");
  auto queue = open_queue();
  ASSERT_NE(queue, nullptr);
  EXPECT_EQ(sql("SELECT version FROM thm_schema"), "5");
  EXPECT_EQ(sql("SELECT count(*) FROM pg_trigger WHERE tgname = 'thm_forbidden_pair_guard'"), "1");
  EXPECT_EQ(sql("SELECT count(*) FROM pg_proc WHERE prosrc LIKE '%LOCK TABLE%'"), "0");
}

TEST_F(PostgresQueueTest, ThmAdmitDecidesWithoutAChildAndItsRecordOutlivesTheHostsJob) {
  // A host whose child turns are jobs in a queue of its own: thm_admit and the job's insert
  // in one transaction; the record, not the job, is what answers the replay.
  ASSERT_EQ(sql("CREATE TABLE host_job (id BIGINT PRIMARY KEY, body BYTEA)"), "");
  ASSERT_EQ(sql("SELECT thm_commit_reply('eng', NULL, 7, 'alice', '@bob hi', 0)"), "");
  ASSERT_EQ(sql("INSERT INTO thm_policy VALUES (1, true, 3); INSERT INTO thm_available_agent"
                " VALUES ('bob')"),
            "");
  const std::string admit =
      "SELECT outcome || ' ' || coalesce(reason, '-') || ' ' || (record_id IS NOT NULL)::text"
      " || ' ' || (turn_key = thm_turn_key('eng', NULL, 7))::text FROM thm_admit('eng', NULL, 7,"
      " 'alice', 'bob', '@bob hi', ";
  EXPECT_EQ(sql(admit + "2)"), "trigger_mismatch child_hop false true");
  // thm_check: the same checks, and never a record.
  EXPECT_EQ(sql("SELECT outcome || ' ' || (turn_key = thm_turn_key('eng', NULL, 7))::text FROM"
                " thm_check('eng', NULL, 7, 'alice', 'bob', '@bob hi', 1)"),
            "ok true");
  EXPECT_EQ(sql("SELECT reason FROM thm_check('eng', NULL, 7, 'alice', 'bob', '@bob hi', 2)"),
            "child_hop");
  EXPECT_EQ(sql("SELECT count(*) FROM thm_idempotency"), "0");
  EXPECT_EQ(sql("BEGIN; INSERT INTO host_job SELECT record_id, 'job' FROM thm_admit('eng', NULL,"
                " 7, 'alice', 'bob', '@bob hi', 1) WHERE outcome = 'admitted'; COMMIT;"
                " SELECT count(*) FROM host_job, thm_idempotency i WHERE host_job.id = i.id"),
            "1");
  EXPECT_EQ(sql("SELECT count(*) FROM thm_child_turn"), "0");
  ASSERT_EQ(sql("DELETE FROM host_job"), "");
  EXPECT_EQ(sql(admit + "1)"), "already - false true");
  ASSERT_EQ(sql("DELETE FROM thm_available_agent"), "");
  EXPECT_EQ(sql(admit + "1)"), "refused target_unavailable false true");
  ASSERT_EQ(sql("DROP TABLE host_job"), "");
}

TEST_F(PostgresQueueTest, AHookMayHoldAnInnerPointLongerThanTheLockTimeout) {
  // The wait inside thm_hook_point is the hook's, not a lock wait the store gave up on.
  auto queue = PostgresQueue::open(
      conninfo(),
      {.lock_timeout = std::chrono::milliseconds(100), .hook = [](HookPoint point, const auto&) {
         if (point == HookPoint::AfterValidateReads) {
           std::this_thread::sleep_for(std::chrono::milliseconds(400));
         }
         return true;
       }});
  ASSERT_TRUE(queue) << queue.error().message;
  const auto answer = (*queue)->enqueue_once(ready());
  EXPECT_EQ(answer, Answer(Enqueued{})) << (answer ? "" : answer.error().message);
}

TEST_F(PostgresQueueTest, TheFunctionsRefuseArgumentsThatWouldDoHarm) {
  ASSERT_EQ(sql("SELECT thm_commit_reply('eng', NULL, 7, 'alice', 'hi', 0)"), "");
  // A NULL source or content is not a match, nor anything else: it is refused outright.
  for (const char* call : {"thm_enqueue_once('eng', NULL, 7, NULL, 'bob', 'hi', 1)",
                           "thm_enqueue_once('eng', NULL, 7, 'alice', 'bob', NULL, 1)",
                           "thm_enqueue_once(NULL, NULL, 7, 'alice', 'bob', 'hi', 1)"}) {
    EXPECT_NE(sql(std::string("SELECT outcome FROM ") + call).find("only thread_root"),
              std::string::npos)
        << call;
  }
  // max_attempts below 1 would mark every waiting child dead.
  EXPECT_NE(sql("SELECT * FROM thm_claim(1000, 0)").find("positive number of times"),
            std::string::npos);
  EXPECT_NE(sql("SELECT thm_fail('token', NULL)").find("positive number of times"),
            std::string::npos);
  // A stored hop at the top of BIGINT is a mismatch, not an overflow.
  ASSERT_EQ(sql("SELECT thm_commit_reply('eng', NULL, 8, 'alice', 'hi', 9223372036854775807)"), "");
  EXPECT_EQ(sql("SELECT reason FROM thm_enqueue_once('eng', NULL, 8, 'alice', 'bob', 'hi', 1)"),
            "child_hop");
  // The functions find their tables whatever the caller's search_path.
  EXPECT_EQ(sql("SET search_path = pg_catalog; SELECT public.thm_now() > 0"), "t");
}

TEST_F(PostgresQueueTest, TheMigrationRefusesADatabaseAtALaterVersion) {
  ASSERT_EQ(sql("UPDATE thm_schema SET version = 6"), "");
  EXPECT_NE(sql(kThmQueueSql).find("version 6"), std::string::npos);
  EXPECT_EQ(sql("SELECT version FROM thm_schema"), "6");
  ASSERT_EQ(sql("UPDATE thm_schema SET version = 5"), "");
}

}  // namespace
}  // namespace thm::postgres
