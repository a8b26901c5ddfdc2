// SqliteQueue on its own: opening and the schema, byte-exact rows, typed errors, and what
// survives a process that dies.
#include "thm/sqlite/sqlite_queue.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace thm::sqlite {
namespace {

using Answer = Result<EnqueueOutcome, QueueError>;
using Claimed = Result<std::optional<Lease>, LeaseError>;
using Settled = Result<TurnState, LeaseError>;

class SqliteQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "thm-sqlite-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
    path_ = directory_ + "/queue.db";
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::unique_ptr<SqliteQueue> open_queue(Options options = {}) {
    auto queue = SqliteQueue::open(path_, std::move(options));
    EXPECT_TRUE(queue.has_value()) << (queue ? "" : queue.error().message);
    return queue ? *std::move(queue) : nullptr;
  }

  // A reply, enabled policy and an available target, and the request that matches.
  MentionTurnRequest ready(SqliteQueue& queue, std::string content = "@bob go") {
    const CommittedReply reply{.conversation = {.desk_id = "eng", .thread_root = std::nullopt},
                               .sequence = 7,
                               .author_id = "alice",
                               .content = content,
                               .hop = 0};
    EXPECT_TRUE(queue.commit_reply(reply));
    EXPECT_TRUE(queue.set_policy({.enabled = true, .max_hops = 3}));
    EXPECT_TRUE(queue.set_available("bob", true));
    return {.key = {7},
            .source_id = "alice",
            .target_id = "bob",
            .content = std::move(content),
            .conversation = reply.conversation,
            .child_hop = 1};
  }

  std::string directory_;
  std::string path_;
};

TEST_F(SqliteQueueTest, EnqueuesOnceAndAnswersAlreadyFromAnotherConnection) {
  auto first = open_queue();
  auto second = open_queue();
  const auto request = ready(*first);
  EXPECT_EQ(first->enqueue_once(request), Answer(Enqueued{}));
  EXPECT_EQ(second->enqueue_once(request), Answer(Already{}));
  const auto children = second->children();
  ASSERT_TRUE(children);
  ASSERT_EQ(children->size(), 1U);
  EXPECT_EQ((*children)[0].request, request);
  EXPECT_EQ((*children)[0].state, TurnState::Pending);
}

// Four processes, each with its own connection, released together onto one key.
TEST_F(SqliteQueueTest, ProcessesRacingOnOneKeyAdmitOneChild) {
  auto queue = open_queue();
  const auto request = ready(*queue);
  int release[2];
  ASSERT_EQ(pipe(release), 0);
  std::vector<pid_t> racers;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(release[1]);
      auto own = SqliteQueue::open(path_);
      char go = 0;
      (void)read(release[0], &go, 1);  // returns when the parent closes the pipe
      if (!own) _exit(3);
      const auto answer = (*own)->enqueue_once(request);
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
  EXPECT_EQ(queue->children()->size(), 1U);
}

TEST_F(SqliteQueueTest, KeepsEveryByteOfContentAndIds) {
  auto queue = open_queue();
  const std::string content("@bob \0\xff\xfe not utf-8", 19);
  const auto request = ready(*queue, content);
  ASSERT_EQ(queue->enqueue_once(request), Answer(Enqueued{}));
  const auto children = queue->children();
  ASSERT_TRUE(children && children->size() == 1U);
  EXPECT_EQ((*children)[0].request.content, content);
}

TEST_F(SqliteQueueTest, AMismatchedRequestIsATypedErrorAndWritesNothing) {
  auto queue = open_queue();
  auto request = ready(*queue);
  request.content = "@bob something else";
  const auto answer = queue->enqueue_once(request);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, QueueErrorKind::TriggerMismatch);
  EXPECT_TRUE(queue->records()->empty());
  EXPECT_TRUE(queue->children()->empty());
}

TEST_F(SqliteQueueTest, AnUnopenableFileIsUnavailableNotAThrow) {
  const auto queue = SqliteQueue::open(directory_ + "/no/such/dir/queue.db");
  ASSERT_FALSE(queue);
  EXPECT_EQ(queue.error().kind, QueueErrorKind::Unavailable);
  EXPECT_NE(queue.error().message.find("no/such/dir"), std::string::npos);
}

TEST_F(SqliteQueueTest, ANewerSchemaIsRefusedWithItsVersion) {
  open_queue().reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const auto queue = SqliteQueue::open(path_);
  ASSERT_FALSE(queue);
  EXPECT_EQ(queue.error().kind, QueueErrorKind::Internal);
  EXPECT_NE(queue.error().message.find("version 9"), std::string::npos);
}

TEST_F(SqliteQueueTest, ALockHeldPastBusyTimeoutIsUnavailable) {
  auto queue = open_queue({.busy_timeout = std::chrono::milliseconds(50)});
  const auto request = ready(*queue);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto answer = queue->enqueue_once(request);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, QueueErrorKind::Unavailable);
  EXPECT_EQ(queue->enqueue_once(request), Answer(Enqueued{}));
}

TEST_F(SqliteQueueTest, LeasesUseTheStoreClockAndCountAttempts) {
  auto queue = open_queue({.max_attempts = 2});
  ASSERT_EQ(queue->enqueue_once(ready(*queue)), Answer(Enqueued{}));
  const auto before = queue->now();
  const auto lease = queue->claim(std::chrono::minutes(5));
  ASSERT_TRUE(lease && lease->has_value());
  EXPECT_EQ((*lease)->attempt, 1U);
  EXPECT_GE((*lease)->expires_at, *before + std::chrono::minutes(5));
  EXPECT_EQ(queue->claim(std::chrono::minutes(5)), Claimed(std::nullopt));
  EXPECT_EQ(queue->fail((*lease)->token), Settled(TurnState::Pending));
  EXPECT_EQ(queue->complete((*lease)->token), Settled(unexpected{LeaseError::StaleToken}));
  const auto second = queue->claim(std::chrono::minutes(5));
  ASSERT_TRUE(second && second->has_value());
  EXPECT_EQ((*second)->attempt, 2U);
  EXPECT_EQ(queue->fail((*second)->token), Settled(TurnState::Failed));
  EXPECT_EQ(queue->claim(std::chrono::minutes(5)), Claimed(std::nullopt));
}

}  // namespace
}  // namespace thm::sqlite
