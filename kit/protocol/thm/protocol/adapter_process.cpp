#include "thm/protocol/adapter_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

extern char** environ;

namespace thm::protocol::detail {

using namespace std::chrono_literals;

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

// The adapter's own words (`failure`, `unsupported`), cut to kWords bytes: they end up in a
// one-line error, a table and a report.
constexpr std::size_t kWords = 1000;
std::string words(const std::string& text) {
  if (text.size() <= kWords) return text;
  return text.substr(0, kWords) + "… (" + std::to_string(text.size()) + " bytes)";
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Reads the non-blocking `fd`, calling `on_line` for each line without its '\n', until
// EOF (true) or until `gone()` says the program has exited and what it wrote is read
// (false): a process it started, such as a database server, may hold the pipe open for good.
// A line longer than `max_line` bytes is never held whole: `on_too_long` gets its first
// `max_line` bytes, and the rest of it, up to its '\n', is dropped.
template <class OnLine, class OnTooLong, class Gone>
bool read_lines(int fd, std::size_t max_line, OnLine on_line, OnTooLong on_too_long, Gone gone) {
  std::string line;
  bool dropping = false;  // inside a line that was too long
  const auto take = [&](std::string_view bytes) {
    while (!bytes.empty()) {
      const std::size_t newline = bytes.find('\n');
      const std::string_view part = bytes.substr(0, newline);
      if (!dropping && line.size() + part.size() > max_line) {
        line.append(part.substr(0, max_line - line.size()));
        on_too_long(line);
        line.clear();
        dropping = true;
      } else if (!dropping) {
        line.append(part);
      }
      if (newline == std::string_view::npos) return;
      if (!dropping) on_line(line);
      line.clear();
      dropping = false;
      bytes.remove_prefix(newline + 1);
    }
  };
  char chunk[65536];
  bool eof = false;
  bool exited = false;
  while (!eof) {
    pollfd ready{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&ready, 1, 100) > 0) {
      for (;;) {
        const ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;  // EAGAIN: read all there is
        if (got == 0) {
          eof = true;
          break;
        }
        take(std::string_view(chunk, static_cast<std::size_t>(got)));
      }
    }
    // Checked after every pass, not only when the pipe is quiet: a server the program left
    // behind may keep writing to it.
    if (exited) break;  // this pass drained what the program wrote before it exited
    exited = gone();
  }
  if (!line.empty() && !dropping) on_line(line);
  return eof;
}

// The process groups of every adapter program started and not yet reaped, so that an
// interrupted run can end them all (`interrupt_all`). A group is listed only while its
// leader is unreaped, so its id cannot belong to another program yet.
struct LiveGroups {
  std::mutex mutex;
  std::set<pid_t> groups;
  bool interrupted = false;
};

LiveGroups& live_groups() {
  static LiveGroups live;
  return live;
}

std::string describe(int status) {
  if (WIFEXITED(status))
    return "the adapter exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "the adapter was killed by signal " + std::to_string(WTERMSIG(status));
  return "the adapter stopped";
}

// The three pipes of a child's stdin, stdout and stderr, made close-on-exec.
struct Pipes {
  int in[2]{-1, -1};
  int out[2]{-1, -1};
  int err[2]{-1, -1};
};

Pipes open_pipes() {
  Pipes pipes;
  if (::pipe2(pipes.in, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  if (::pipe2(pipes.out, O_CLOEXEC) != 0) {
    ::close(pipes.in[0]);
    ::close(pipes.in[1]);
    throw std::runtime_error(errno_text("pipe"));
  }
  if (::pipe2(pipes.err, O_CLOEXEC) != 0) {
    for (const int fd : {pipes.in[0], pipes.in[1], pipes.out[0], pipes.out[1]}) ::close(fd);
    throw std::runtime_error(errno_text("pipe"));
  }
  return pipes;
}

// The adapter's environment: this process's, with `extra` (and THM_PROTOCOL) winning over
// inherited variables of the same name (a shell and the dynamic loader each take one of two
// copies); an inherited LD_PRELOAD is kept after ours.
std::vector<std::string> child_environment(std::vector<std::string> extra) {
  extra.push_back("THM_PROTOCOL=" + std::to_string(protocol::kVersion));
  const auto name_of = [](std::string_view variable) {
    return variable.substr(0, variable.find('='));
  };
  std::vector<std::string> environment;
  for (char** inherited = environ; *inherited != nullptr; ++inherited) {
    const std::string_view variable(*inherited);
    const auto ours = std::find_if(extra.begin(), extra.end(), [&](const std::string& e) {
      return name_of(e) == name_of(variable);
    });
    if (ours == extra.end()) {
      environment.emplace_back(variable);
    } else if (name_of(variable) == "LD_PRELOAD") {
      *ours += ":" + std::string(variable.substr(variable.find('=') + 1));
    }
  }
  for (std::string& variable : extra) environment.push_back(std::move(variable));
  return environment;
}

// `/bin/sh -c command` on the pipes, in a process group of its own (a kill reaches the
// shell's children) and with no signal blocked (what the suite blocks, SIGINT and SIGTERM
// while a run watches them, is its own). Started and listed in one step, so that an
// interrupt either sees the group or stops the start: the pid, or the spawn's error, or
// nothing when the run was interrupted.
std::optional<pid_t> spawn(const std::string& command, std::vector<std::string> environment,
                           const Pipes& pipes, int& error) {
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  std::string shell = "/bin/sh";
  std::string dash_c = "-c";
  std::string script = command;
  char* argv[] = {shell.data(), dash_c.data(), script.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipes.in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, pipes.out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipes.err[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes,
                           static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK));
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  std::optional<pid_t> started;
  {
    LiveGroups& live = live_groups();
    const std::lock_guard lock(live.mutex);
    if (!live.interrupted) {
      pid_t pid = -1;
      error = ::posix_spawn(&pid, shell.c_str(), &actions, &attributes, argv, envp.data());
      if (error == 0) {
        live.groups.insert(pid);
        started = pid;
      }
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  return started;
}

}  // namespace

AdapterProcess::AdapterProcess(const std::string& command, std::shared_ptr<ExchangeClock> clock,
                               HookHandler on_hook, std::vector<std::string> extra_environment)
    : clock_(std::move(clock)), on_hook_(std::move(on_hook)) {
  const Pipes pipes = open_pipes();
  int error = 0;
  const auto started =
      spawn(command, child_environment(std::move(extra_environment)), pipes, error);
  ::close(pipes.in[0]);
  ::close(pipes.out[1]);
  ::close(pipes.err[1]);
  stdin_fd_ = pipes.in[1];
  stdout_fd_ = pipes.out[0];
  stderr_fd_ = pipes.err[0];
  if (!started) {
    pid_ = -1;
    ::close(stdin_fd_);
    ::close(stdout_fd_);
    ::close(stderr_fd_);
    if (error == 0) {
      throw std::runtime_error("the run was interrupted: the adapter '" + command +
                               "' is not started again");
    }
    throw std::runtime_error("cannot start the adapter '" + command + "': " + std::strerror(error));
  }
  pid_ = *started;
  group_ = pid_;
  for (const int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  try {
    stdout_reader_ = std::jthread([this] { read_stdout(); });
    stderr_reader_ = std::jthread([this] { read_stderr(); });
  } catch (...) {
    kill();
    throw;
  }
}

AdapterProcess::~AdapterProcess() {
  {
    // Hook threads write their replies first: the adapter may be waiting for one.
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return hooks_running_ == 0; });
  }
  close();
  stdout_reader_ = {};  // both end once the program has exited (read_lines)
  stderr_reader_ = {};
  ::close(stdout_fd_);
  ::close(stderr_fd_);
}

bool AdapterProcess::reap(bool wait) {
  if (pid_ <= 0) return true;
  // The exit is seen without reaping first: while the leader is a zombie its group id cannot
  // be reused, so killing what is left of its group cannot hit another program.
  siginfo_t info{};
  const int options = WEXITED | WNOWAIT | (wait ? 0 : WNOHANG);
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, options) != 0) {
    if (errno != EINTR) return false;
  }
  if (info.si_pid == 0) return false;  // still running
  ::kill(-group_, SIGKILL);            // what the program left running in its group
  {
    LiveGroups& live = live_groups();
    const std::lock_guard lock(live.mutex);
    live.groups.erase(group_);  // before the reap: then no one kills by its id again
  }
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  exit_ = describe(status);
  return true;
}

protocol::Json AdapterProcess::call(const std::string& op, protocol::Json arguments) {
  std::unique_lock<std::mutex> one_at_a_time;
  if (sequential_) one_at_a_time = std::unique_lock(call_mutex_);
  std::optional<std::uint64_t> session;
  if (const auto found = arguments.find("session"); found != arguments.end()) {
    session = found->get<std::uint64_t>();
  }
  const std::uint64_t id = send(op, std::move(arguments), session);
  return result_of(op, await(id, op, session));
}

// Lock held: the request `id` is no longer awaited.
void AdapterProcess::forget(std::uint64_t id, const std::string& op,
                            std::optional<std::uint64_t> session) {
  pending_.erase(id);
  if (op == "enqueue_once") enqueueing_.erase(session);
}

std::uint64_t AdapterProcess::send(const std::string& op, protocol::Json arguments,
                                   std::optional<std::uint64_t> session) {
  arguments["op"] = op;
  arguments["id"] = 0;
  protocol::validate(arguments, "request." + op);  // the suite's own side of the contract
  std::optional<MentionTurnRequest> enqueueing;
  if (op == "enqueue_once") enqueueing = protocol::request_from_json(arguments.at("request"));
  std::uint64_t id = 0;
  {
    const std::lock_guard lock(mutex_);
    if (broken_) throw std::runtime_error(*broken_);
    id = next_id_++;
    pending_.emplace(id, Pending{.op = op});
    if (enqueueing) enqueueing_.insert_or_assign(session, Enqueueing{*std::move(enqueueing), {}});
  }
  arguments["id"] = id;
  try {
    write_line(arguments.dump());
  } catch (const std::exception& error) {
    {
      std::unique_lock lock(mutex_);
      forget(id, op, session);
      // A program that exited says more by its status than by its closed pipe.
      changed_.wait_for(lock, std::chrono::seconds(1), [&] { return broken_.has_value(); });
    }
    // Half a line may be in the pipe: nothing more can be said to this process.
    fail(error.what());
    kill();
    throw std::runtime_error(*broken_reason());
  }
  return id;
}

protocol::Json AdapterProcess::await(std::uint64_t id, const std::string& op,
                                     std::optional<std::uint64_t> session) {
  std::unique_lock lock(mutex_);
  std::int64_t waited_from = now_ns();
  for (;;) {
    Pending& pending = pending_.at(id);
    if (pending.response || broken_) break;
    changed_.wait_for(lock, std::chrono::milliseconds(50));
    // Late only when no hook has run for a whole timeout: a hook may hold this answer up.
    // In flight is read first: a hook that ends in between then counts as just ended.
    const bool hook_running = clock_->hooks_in_flight.load() > 0;
    waited_from = std::max(waited_from, clock_->last_hook_end_ns.load());
    const auto waited = std::chrono::nanoseconds(now_ns() - waited_from);
    if (!hook_running && waited > clock_->timeout && !pending_.at(id).response) {
      const std::string why = "the adapter did not answer '" + op + "' within " +
                              std::to_string(clock_->timeout.count()) + " ms";
      forget(id, op, session);
      lock.unlock();
      fail(why);
      kill();
      throw std::runtime_error(with_stderr(why));
    }
  }
  std::optional<protocol::Json> response = std::move(pending_.at(id).response);
  const std::optional<std::string> broken_reason = broken_;
  forget(id, op, session);
  lock.unlock();
  if (!response) throw std::runtime_error(*broken_reason);
  return *std::move(response);
}

protocol::Json AdapterProcess::result_of(const std::string& op, protocol::Json response) {
  if (const auto unsupported = response.find("unsupported"); unsupported != response.end()) {
    throw Unsupported(op + ": " + words(unsupported->get<std::string>()));
  }
  if (const auto failure = response.find("failure"); failure != response.end()) {
    throw std::runtime_error(
        with_stderr("the adapter failed '" + op + "': " + words(failure->get<std::string>())));
  }
  protocol::Json result = std::move(response.at("result"));
  try {
    protocol::validate(result, "result." + op);
  } catch (const protocol::ProtocolError& error) {
    const std::string why =
        "the adapter's answer to '" + op + "' " + quoted(result.dump()) + " is " + error.what();
    fail(why);
    kill();
    throw std::runtime_error(with_stderr(why));
  }
  return result;
}

std::optional<std::string> AdapterProcess::broken_reason() const {
  const std::lock_guard lock(mutex_);
  return broken_;
}

void AdapterProcess::kill() noexcept {
  {
    const std::lock_guard lock(mutex_);
    if (pid_ > 0) {
      ::kill(-group_, SIGKILL);  // the leader is alive, so the group is still its own
      (void)reap(true);
    }
    if (!broken_) broken_ = "the adapter was killed";
  }
  changed_.notify_all();
}

void AdapterProcess::interrupt_all() noexcept {
  LiveGroups& live = live_groups();
  const std::lock_guard lock(live.mutex);
  live.interrupted = true;
  for (const pid_t group : live.groups) ::kill(-group, SIGKILL);
}

void AdapterProcess::close() noexcept {
  {
    const std::lock_guard lock(write_mutex_);
    if (stdin_fd_ >= 0) ::close(std::exchange(stdin_fd_, -1));
  }
  // An adapter exits when its stdin closes (PROTOCOL.md); one that does not is killed after
  // a short grace, not a whole answer timeout per process.
  const auto deadline =
      std::chrono::steady_clock::now() + std::min<std::chrono::milliseconds>(clock_->timeout, 2s);
  while (std::chrono::steady_clock::now() < deadline) {
    {
      const std::lock_guard lock(mutex_);
      if (reap(false)) {
        if (!broken_) broken_ = "the adapter was closed";
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill();  // only if it is still running
}

bool AdapterProcess::broken() const {
  const std::lock_guard lock(mutex_);
  return broken_.has_value();
}

bool AdapterProcess::exited() {
  const std::lock_guard lock(mutex_);
  return reap(false);
}

void AdapterProcess::read_stdout() {
  read_lines(
      stdout_fd_, kMaxLineBytes, [this](const std::string& line) { handle_line(line); },
      [this](const std::string& start) {
        fail("the adapter wrote a line longer than " + std::to_string(kMaxLineBytes) +
             " bytes, the protocol's limit (PROTOCOL.md §1); it began " +
             quoted(start.substr(0, kQuoted / 3) + "…"));
        kill();
      },
      [this] { return exited(); });
  // It closed its output or exited: wait a moment for its status, and stderr's last lines.
  std::string why = "the adapter closed its standard output";
  for (int tries = 0; tries < 50; ++tries) {
    if (exited()) {
      const std::lock_guard lock(mutex_);
      if (exit_) why = *exit_;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fail(why);
}

void AdapterProcess::read_stderr() {
  // Only the start of a long line is kept: stderr is for people, and never grows the suite.
  const auto keep = [this](const std::string& line) {
    const std::lock_guard lock(mutex_);
    stderr_tail_.push_back(line);
    if (stderr_tail_.size() > kStderrLines) stderr_tail_.pop_front();
  };
  read_lines(
      stderr_fd_, kQuoted, keep, [&](const std::string& start) { keep(start + "…"); },
      [this] { return exited(); });
}

void AdapterProcess::handle_line(const std::string& line) {
  protocol::Json message;
  try {
    // nlohmann's lexer takes a NUL byte for the end of the input: a line holding one would
    // read as the JSON before it. JSON text has no raw NUL, so such a line is not JSON.
    if (line.find('\0') != std::string::npos) throw std::invalid_argument("a NUL byte");
    message = protocol::Json::parse(line);
  } catch (const std::exception&) {
    fail("the adapter wrote a line that is not JSON: " + quoted(line));
    kill();
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
    kill();  // it may be waiting for a hook reply inside its transaction
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
          session ? "it is a hook call from session " + std::to_string(*session) +
                        ", which has no enqueue_once in flight"
                  : std::string("it is a hook call without a session, and no such enqueue_once "
                                "is in flight (a multiplexed adapter names the session)"));
    }
    // The six points come once each, in HookPoint's order: an adapter that calls one again,
    // or out of order, could hold the step for ever with no answer ever late.
    std::optional<HookPoint>& last = running->second.last_point;
    if (last && *last >= point) {
      throw protocol::ProtocolError("it is a hook call at " + std::string(name(point)) + " after " +
                                    std::string(name(*last)) +
                                    " in the same enqueue_once; each point comes once, in order "
                                    "(PROTOCOL.md, hooks)");
    }
    last = point;
    request = running->second.request;
    ++hooks_running_;
  }
  ++clock_->hooks_in_flight;
  // A hook may block for as long as its check wants: it runs on a thread of its own, so
  // this reader goes on delivering the answers the check is waiting for. The destructor
  // waits for it.
  const auto undo = [this] {
    --clock_->hooks_in_flight;
    const std::lock_guard lock(mutex_);
    --hooks_running_;
    changed_.notify_all();
  };
  try {
    std::thread([this, hook, session, point, undo, request = std::move(request)] {
      bool proceed = false;
      try {
        proceed = on_hook_(session, point, request);
      } catch (...) {
        proceed = false;
      }
      clock_->last_hook_end_ns = now_ns();
      try {
        write_line(protocol::Json{{"hook_reply", hook}, {"proceed", proceed}}.dump());
      } catch (const std::exception& error) {
        fail(error.what());
      }
      undo();
    }).detach();
  } catch (...) {
    undo();
    throw protocol::ProtocolError("no thread for its hook call");
  }
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
  std::int64_t waited_from = now_ns();
  while (written < line.size() && failure.empty()) {
    const ssize_t wrote = ::write(stdin_fd_, line.data() + written, line.size() - written);
    if (wrote > 0) {
      written += static_cast<std::size_t>(wrote);
    } else if (wrote < 0 && (errno == EAGAIN || errno == EINTR)) {
      const bool hook_running = clock_->hooks_in_flight.load() > 0;
      waited_from = std::max(waited_from, clock_->last_hook_end_ns.load());
      if (!hook_running && std::chrono::nanoseconds(now_ns() - waited_from) > clock_->timeout) {
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

}  // namespace thm::protocol::detail
