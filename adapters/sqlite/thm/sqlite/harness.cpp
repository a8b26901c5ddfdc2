#include "thm/sqlite/harness.hpp"

#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace thm::sqlite {
namespace {

using Answer = Result<EnqueueOutcome, QueueError>;

// Harness members throw what the store reports.
template <class T>
T value_or_throw(Result<T, QueueError> result, const char* what) {
  if (!result) {
    throw std::runtime_error(std::string(what) + ": " +
                             std::string(thm::name(result.error().kind)) + ": " +
                             result.error().message);
  }
  return *std::move(result);
}

Result<std::string, LeaseError> state_name(const Result<TurnState, LeaseError>& state) {
  if (!state) return unexpected{state.error()};
  return std::string(name(*state));
}

class SqliteSession final : public conformance::Session {
 public:
  explicit SqliteSession(std::unique_ptr<SqliteQueue> queue) : queue_(std::move(queue)) {}
  Answer enqueue_once(const MentionTurnRequest& request) override {
    return queue_->enqueue_once(request);
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return queue_->claim(duration);
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return queue_->renew(token, duration);
  }
  Result<std::string, LeaseError> complete(const std::string& token) override {
    return state_name(queue_->complete(token));
  }
  Result<std::string, LeaseError> fail(const std::string& token) override {
    return state_name(queue_->fail(token));
  }

 private:
  std::unique_ptr<SqliteQueue> queue_;
};

// ---- EQ-23: the answer crosses the pipe as one short line ----------------------------------

std::string encode(const Answer& answer) {
  if (!answer) {
    return "error " + std::string(name(answer.error().kind)) + " " + answer.error().message;
  }
  return std::visit(
      overloaded{[](const Enqueued&) { return std::string("enqueued"); },
                 [](const Already&) { return std::string("already"); },
                 [](const Refused& r) { return "refused " + std::string(name(r.reason)); }},
      *answer);
}

std::optional<Answer> decode(const std::string& line) {
  if (line == "enqueued") return Answer(Enqueued{});
  if (line == "already") return Answer(Already{});
  if (line.starts_with("refused ")) {
    if (const auto reason = enqueue_refusal_from_name(line.substr(8)))
      return Answer(Refused{*reason});
  }
  if (line.starts_with("error ")) {
    const std::string rest = line.substr(6);
    const auto space = rest.find(' ');
    if (const auto kind = queue_error_kind_from_name(rest.substr(0, space))) {
      return Answer(
          unexpected{QueueError{*kind, space == std::string::npos ? "" : rest.substr(space + 1)}});
    }
  }
  return std::nullopt;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// The forked child: its own connection, one enqueue, a report, then wait to be killed.
[[noreturn]] void enqueue_and_wait(const std::string& path, Options options,
                                   const MentionTurnRequest& request, conformance::KillPoint when,
                                   int report) {
  options.hook = {};
  if (when == conformance::KillPoint::InsideTransaction) {
    options.hook = [report](HookPoint point, const MentionTurnRequest&) {
      if (point == HookPoint::BeforeCommit) {
        write_all(report, "paused\n");
        for (;;) pause();
      }
      return true;
    };
  }
  auto queue = SqliteQueue::open(path, std::move(options));
  if (!queue) {
    write_all(report, "error " + std::string(name(queue.error().kind)) + " " +
                          queue.error().message + "\n");
  } else {
    write_all(report, encode((*queue)->enqueue_once(request)) + "\n");
  }
  for (;;) pause();
}

// One line from `fd`, waiting at most `seconds`.
std::optional<std::string> read_line(int fd, int seconds) {
  std::string line;
  char c = 0;
  pollfd wait{.fd = fd, .events = POLLIN, .revents = 0};
  while (poll(&wait, 1, seconds * 1000) == 1) {
    if (::read(fd, &c, 1) != 1) return std::nullopt;
    if (c == '\n') return line;
    line += c;
  }
  return std::nullopt;
}

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
  options.hook = [slot = hook_](HookPoint point, const MentionTurnRequest& request) {
    std::shared_ptr<const TransactionHook> hook;
    {
      const std::scoped_lock guard(slot->mutex);
      hook = slot->hook;
    }
    return !hook || (*hook)(point, request);
  };
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
          .max_attempts = options_.max_attempts};
}

void SqliteHarness::reset() {
  set_hook({});
  value_or_throw(admin_->clear(), "clearing the tables");
}

std::unique_ptr<conformance::Session> SqliteHarness::open_session() {
  return std::make_unique<SqliteSession>(connect(options_));
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

void SqliteHarness::set_hook(TransactionHook hook) {
  auto installed = hook ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
  const std::scoped_lock guard(hook_->mutex);
  hook_->hook = std::move(installed);
}

void SqliteHarness::settle(std::uint64_t child_id, conformance::Settlement how) {
  const bool found = [&] {
    switch (how) {
      case conformance::Settlement::Complete:
        return value_or_throw(admin_->settle(child_id, TurnState::Completed), "settling");
      case conformance::Settlement::Fail:
        return value_or_throw(admin_->settle(child_id, TurnState::Failed), "settling");
      case conformance::Settlement::DeadLetter:
        return value_or_throw(admin_->settle(child_id, TurnState::Dead), "settling");
      case conformance::Settlement::Delete:
        return value_or_throw(admin_->remove(child_id), "deleting");
    }
    return false;
  }();
  if (!found) throw std::invalid_argument("no child turn with id " + std::to_string(child_id));
}

void SqliteHarness::run_maintenance() { (void)value_or_throw(admin_->prune(), "pruning"); }

void SqliteHarness::reopen() {
  admin_.reset();
  admin_ = connect(options_);
}

std::optional<Answer> SqliteHarness::enqueue_then_kill(const MentionTurnRequest& request,
                                                       conformance::KillPoint when) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (child == 0) {
    close(pipe_fds[0]);
    enqueue_and_wait(path_, options_, request, when, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  const auto line = read_line(pipe_fds[0], 60);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(pipe_fds[0]);
  reopen();
  if (!line) throw std::runtime_error("the enqueueing child process reported nothing within 60 s");
  if (when == conformance::KillPoint::InsideTransaction) {
    if (*line != "paused")
      throw std::runtime_error("the child process never reached BeforeCommit: " + *line);
    return std::nullopt;
  }
  auto answer = decode(*line);
  if (!answer) throw std::runtime_error("the child process reported '" + *line + "'");
  return answer;
}

StoreTime SqliteHarness::store_now() { return value_or_throw(admin_->now(), "reading the clock"); }

std::vector<conformance::RecordRow> SqliteHarness::records() {
  std::vector<conformance::RecordRow> out;
  for (auto& record : value_or_throw(admin_->records(), "reading records")) {
    out.push_back({std::move(record.key), record.child_id});
  }
  return out;
}

std::vector<conformance::ChildRow> SqliteHarness::children() {
  std::vector<conformance::ChildRow> out;
  for (auto& child : value_or_throw(admin_->children(), "reading children")) {
    out.push_back({.id = child.id,
                   .key = std::move(child.key),
                   .request = std::move(child.request),
                   .state = std::string(thm::name(child.state)),
                   .attempts = child.attempts,
                   .lease_expires_at = child.lease_expires_at});
  }
  return out;
}

std::optional<conformance::Harness::UniqueIndex> SqliteHarness::unique_key_index() {
  // The first unique index SQLite lists: the schema has exactly one.
  auto indexes = value_or_throw(admin_->idempotency_indexes(), "reading the schema");
  if (indexes.empty()) return std::nullopt;
  return UniqueIndex{.columns = std::move(indexes.front().columns),
                     .partial = indexes.front().partial};
}

}  // namespace thm::sqlite
