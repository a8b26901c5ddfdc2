#include "thm/conformance/adapter_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

extern char** environ;

namespace thm::conformance::detail {

namespace {

constexpr std::size_t kStderrLines = 12;
constexpr std::size_t kQuoted = 300;  // bytes of an offending line quoted in a report

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string quoted(const std::string& line) {
  if (line.size() <= kQuoted) return "'" + line + "'";
  return "'" + line.substr(0, kQuoted) + "…' (" + std::to_string(line.size()) + " bytes)";
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Reads `fd` until EOF, calling `on_line` for each line without its '\n'.
template <class OnLine>
void read_lines(int fd, OnLine on_line) {
  std::string buffer;
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    buffer.append(chunk, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t end; (end = buffer.find('\n', start)) != std::string::npos; start = end + 1) {
      on_line(buffer.substr(start, end - start));
    }
    buffer.erase(0, start);
  }
  if (!buffer.empty()) on_line(buffer);
}

}  // namespace

AdapterProcess::AdapterProcess(const std::string& command, std::shared_ptr<ExchangeClock> clock,
                               HookHandler on_hook, std::vector<std::string> extra_environment)
    : clock_(std::move(clock)), on_hook_(std::move(on_hook)) {
  int in[2];
  int out[2];
  int err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  if (::pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));

  std::vector<std::string> environment{"THM_PROTOCOL=" + std::to_string(protocol::kVersion)};
  for (std::string& variable : extra_environment) environment.push_back(std::move(variable));
  for (char** variable = environ; *variable != nullptr; ++variable) {
    environment.emplace_back(*variable);
  }
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh";
  std::string dash_c = "-c";
  std::string script = command;
  char* argv[] = {shell.data(), dash_c.data(), script.data(), nullptr};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, static_cast<short>(POSIX_SPAWN_SETPGROUP));
  posix_spawnattr_setpgroup(&attributes, 0);  // its own group: a kill reaches the shell's children
  const int spawned = ::posix_spawn(&pid_, shell.c_str(), &actions, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  stdin_fd_ = in[1];
  stdout_fd_ = out[0];
  stderr_fd_ = err[0];
  if (spawned != 0) {
    pid_ = -1;
    ::close(stdin_fd_);
    ::close(stdout_fd_);
    ::close(stderr_fd_);
    throw std::runtime_error("cannot start the adapter '" + command +
                             "': " + std::strerror(spawned));
  }
  group_ = pid_;
  ::fcntl(stdin_fd_, F_SETFL, ::fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
  stdout_reader_ = std::jthread([this] { read_stdout(); });
  stderr_reader_ = std::jthread([this] { read_stderr(); });
}

AdapterProcess::~AdapterProcess() {
  close();
  if (group_ > 0) ::kill(-group_, SIGKILL);  // anything the program left running holds its pipes
  stdout_reader_ = {};
  stderr_reader_ = {};
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return hooks_running_ == 0; });
  lock.unlock();
  ::close(stdout_fd_);
  ::close(stderr_fd_);
}

protocol::Json AdapterProcess::call(const std::string& op, protocol::Json arguments) {
  std::unique_lock<std::mutex> one_at_a_time;
  if (sequential_) one_at_a_time = std::unique_lock(call_mutex_);

  std::optional<std::uint64_t> session;
  if (const auto found = arguments.find("session"); found != arguments.end()) {
    session = found->get<std::uint64_t>();
  }
  std::uint64_t id = 0;
  {
    const std::lock_guard lock(mutex_);
    if (broken_) throw std::runtime_error(*broken_);
    id = next_id_++;
    pending_.emplace(id, Pending{.op = op});
    if (op == "enqueue_once") {
      enqueueing_.insert_or_assign(session, protocol::request_from_json(arguments.at("request")));
    }
  }
  arguments["id"] = id;
  arguments["op"] = op;
  protocol::validate(arguments, "request." + op);  // the suite's own side of the contract
  const auto forget = [&] {
    pending_.erase(id);
    if (op == "enqueue_once") enqueueing_.erase(session);
  };
  try {
    write_line(arguments.dump());
  } catch (const std::exception&) {
    std::unique_lock lock(mutex_);
    forget();
    // A program that exited says more by its status than by its closed pipe.
    changed_.wait_for(lock, std::chrono::seconds(1), [&] { return broken_.has_value(); });
    if (broken_) throw std::runtime_error(*broken_);
    throw;
  }

  std::unique_lock lock(mutex_);
  std::int64_t waited_from = now_ns();
  for (;;) {
    Pending& pending = pending_.at(id);
    if (pending.response || broken_) break;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
    // Late only when no hook has run for a whole timeout: a hook may hold this answer up.
    waited_from = std::max(waited_from, clock_->last_hook_end_ns.load());
    const auto waited = std::chrono::nanoseconds(now_ns() - waited_from);
    if (clock_->hooks_in_flight.load() == 0 && waited > clock_->timeout &&
        !pending_.at(id).response) {
      const std::string why = "the adapter did not answer '" + op + "' within " +
                              std::to_string(clock_->timeout.count()) + " ms";
      forget();
      lock.unlock();
      fail(why);
      kill();
      throw std::runtime_error(with_stderr(why));
    }
  }
  std::optional<protocol::Json> response = std::move(pending_.at(id).response);
  const std::optional<std::string> broken_reason = broken_;
  forget();
  lock.unlock();
  if (!response) throw std::runtime_error(*broken_reason);

  if (const auto unsupported = response->find("unsupported"); unsupported != response->end()) {
    throw Unsupported(op + ": " + unsupported->get<std::string>());
  }
  if (const auto failure = response->find("failure"); failure != response->end()) {
    throw std::runtime_error(
        with_stderr("the adapter failed '" + op + "': " + failure->get<std::string>()));
  }
  protocol::Json result = std::move(response->at("result"));
  try {
    protocol::validate(result, "result." + op);
  } catch (const protocol::ProtocolError& error) {
    fail(error.what());
    throw std::runtime_error(with_stderr("the adapter's answer to '" + op + "' " +
                                         quoted(result.dump()) + " is " + error.what()));
  }
  return result;
}

void AdapterProcess::kill() noexcept {
  pid_t pid = -1;
  {
    const std::lock_guard lock(mutex_);
    pid = std::exchange(pid_, -1);
    if (!broken_) broken_ = "the adapter was killed";
  }
  changed_.notify_all();
  if (pid <= 0) return;
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

void AdapterProcess::close() noexcept {
  pid_t pid = -1;
  {
    const std::lock_guard lock(mutex_);
    pid = pid_;
  }
  {
    const std::lock_guard lock(write_mutex_);
    if (stdin_fd_ >= 0) ::close(std::exchange(stdin_fd_, -1));
  }
  if (pid <= 0) return;
  const auto deadline = std::chrono::steady_clock::now() + clock_->timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      const std::lock_guard lock(mutex_);
      pid_ = -1;
      if (!broken_) broken_ = "the adapter was closed";
      changed_.notify_all();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill();
}

bool AdapterProcess::broken() const {
  const std::lock_guard lock(mutex_);
  return broken_.has_value();
}

void AdapterProcess::read_stdout() {
  read_lines(stdout_fd_, [this](const std::string& line) { handle_line(line); });
  int status = 0;
  pid_t pid = -1;
  {
    const std::lock_guard lock(mutex_);
    pid = pid_;
  }
  std::string why = "the adapter closed its standard output";
  if (pid > 0 && ::waitpid(pid, &status, 0) == pid) {
    {
      const std::lock_guard lock(mutex_);
      pid_ = -1;
    }
    if (WIFEXITED(status))
      why = "the adapter exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
      why = "the adapter was killed by signal " + std::to_string(WTERMSIG(status));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let stderr's last lines in
  fail(why);
}

void AdapterProcess::read_stderr() {
  read_lines(stderr_fd_, [this](const std::string& line) {
    const std::lock_guard lock(mutex_);
    stderr_tail_.push_back(line.size() > kQuoted ? line.substr(0, kQuoted) + "…" : line);
    if (stderr_tail_.size() > kStderrLines) stderr_tail_.pop_front();
  });
}

void AdapterProcess::handle_line(const std::string& line) {
  protocol::Json message;
  try {
    message = protocol::Json::parse(line);
  } catch (const std::exception&) {
    fail("the adapter wrote a line that is not JSON: " + quoted(line));
    return;
  }
  try {
    if (message.contains("hook")) {
      protocol::validate(message, "hook_call");
      std::optional<std::uint64_t> session;
      if (message.contains("session")) session = message.at("session").get<std::uint64_t>();
      const auto point = hook_point_from_name(message.at("point").get<std::string>());
      answer_hook(message.at("hook").get<std::uint64_t>(), session, *point);
      return;
    }
    protocol::validate(message, "response");
    const std::lock_guard lock(mutex_);
    const auto pending = pending_.find(message.at("id").get<std::uint64_t>());
    if (pending == pending_.end() || pending->second.response) {
      throw protocol::ProtocolError("it answers no request in flight");
    }
    pending->second.response = std::move(message);
  } catch (const std::exception& error) {
    fail("the adapter wrote " + quoted(line) + ", " + error.what());
    return;
  }
  changed_.notify_all();
}

void AdapterProcess::answer_hook(std::uint64_t hook, std::optional<std::uint64_t> session,
                                 HookPoint point) {
  MentionTurnRequest request;
  {
    const std::lock_guard lock(mutex_);
    const auto running = enqueueing_.find(session);
    if (running == enqueueing_.end()) {
      throw protocol::ProtocolError(
          "it is a hook call from a session with no enqueue_once in flight");
    }
    request = running->second;
    ++hooks_running_;
  }
  ++clock_->hooks_in_flight;
  // A hook may block for as long as its check wants: it runs on a thread of its own, so
  // this reader goes on delivering the answers the check is waiting for. The destructor
  // waits for it.
  std::thread([this, hook, session, point, request = std::move(request)] {
    bool proceed = false;
    try {
      proceed = on_hook_(session, point, request);
    } catch (...) {
      proceed = false;
    }
    clock_->last_hook_end_ns = now_ns();
    --clock_->hooks_in_flight;
    try {
      write_line(protocol::Json{{"hook_reply", hook}, {"proceed", proceed}}.dump());
    } catch (const std::exception& error) {
      fail(error.what());
    }
    const std::lock_guard done(mutex_);
    --hooks_running_;
    changed_.notify_all();
  }).detach();
}

void AdapterProcess::write_line(const std::string& text) {
  const std::string line = text + "\n";
  const std::lock_guard lock(write_mutex_);
  if (stdin_fd_ < 0)
    throw std::runtime_error(with_stderr("the adapter's standard input is closed"));
  // SIGPIPE is blocked on this thread while writing: a dead adapter is an error, not a signal.
  sigset_t pipe_signal;
  sigset_t previous;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
  std::size_t written = 0;
  std::string failure;
  bool closed = false;
  const auto deadline = std::chrono::steady_clock::now() + clock_->timeout;
  while (written < line.size() && failure.empty()) {
    const ssize_t wrote = ::write(stdin_fd_, line.data() + written, line.size() - written);
    if (wrote > 0) {
      written += static_cast<std::size_t>(wrote);
    } else if (wrote < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (std::chrono::steady_clock::now() > deadline && clock_->hooks_in_flight.load() == 0) {
        failure = "the adapter did not read its standard input within " +
                  std::to_string(clock_->timeout.count()) + " ms";
      }
      pollfd ready{.fd = stdin_fd_, .events = POLLOUT, .revents = 0};
      ::poll(&ready, 1, 50);
    } else {
      closed = errno == EPIPE;
      failure = closed ? "the adapter closed its standard input" : errno_text("write");
    }
  }
  if (closed) {
    const timespec no_wait{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &no_wait);  // the SIGPIPE this write raised
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!failure.empty()) throw std::runtime_error(with_stderr(failure));
}

void AdapterProcess::fail(const std::string& why) {
  std::string message = with_stderr(why);
  {
    const std::lock_guard lock(mutex_);
    if (!broken_) broken_ = std::move(message);
  }
  changed_.notify_all();
}

std::string AdapterProcess::with_stderr(const std::string& message) const {
  const std::lock_guard lock(mutex_);  // callers never hold it
  if (stderr_tail_.empty()) return message;
  std::string out = message + "; the adapter's stderr ended:";
  for (const std::string& line : stderr_tail_) out += "\n    " + line;
  return out;
}

}  // namespace thm::conformance::detail
