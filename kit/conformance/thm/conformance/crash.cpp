// EQ-23's fork, pipe and SIGKILL. The child writes one line: the answer (`enqueued`,
// `already`, `refused <reason>`, `error <kind> <message>`) or `paused`.
#include "thm/conformance/crash.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>

namespace thm::conformance {
namespace {

using Answer = Result<EnqueueOutcome, QueueError>;

std::string encode(const Answer& answer) {
  if (!answer) {
    std::string message = answer.error().message;
    for (char& c : message) c = c == '\n' ? ' ' : c;
    return "error " + std::string(name(answer.error().kind)) + " " + message;
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

void write_line(int fd, const std::string& text) {
  const std::string line = text + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// One line from `fd`, waiting at most `seconds` for each byte (signals do not cut it short).
std::optional<std::string> read_line(int fd, int seconds) {
  std::string line;
  char c = 0;
  pollfd wait{.fd = fd, .events = POLLIN, .revents = 0};
  for (;;) {
    const int ready = poll(&wait, 1, seconds * 1000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready != 1) return std::nullopt;
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n != 1) return std::nullopt;
    if (c == '\n') return line;
    line += c;
  }
}

[[noreturn]] void hang() {
  for (;;) pause();
}

}  // namespace

std::optional<Answer> enqueue_in_killed_child(
    KillPoint when, const std::function<Answer(TransactionHook hook)>& enqueue) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("EQ-23: pipe failed");
  const pid_t child = fork();
  if (child < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw std::runtime_error("EQ-23: fork failed");
  }
  if (child == 0) {
    // Never outlive the suite: a parent killed by a timeout takes this child with it (and a
    // child already orphaned before the request took effect leaves at once).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(1);
    close(pipe_fds[0]);
    const int report = pipe_fds[1];
    TransactionHook hook;
    if (when == KillPoint::InsideTransaction) {
      hook = [report](HookPoint point, const MentionTurnRequest&) {
        if (point == HookPoint::BeforeCommit) {
          write_line(report, "paused");
          hang();
        }
        return true;
      };
    }
    try {
      write_line(report, encode(enqueue(std::move(hook))));
    } catch (const std::exception& e) {
      write_line(report, std::string("error internal ") + e.what());
    }
    hang();
  }
  close(pipe_fds[1]);
  const auto line = read_line(pipe_fds[0], 60);
  kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  close(pipe_fds[0]);
  if (!line)
    throw std::runtime_error("EQ-23: the enqueueing child process reported nothing within 60 s");
  if (when == KillPoint::InsideTransaction) {
    if (*line != "paused") {
      throw std::runtime_error(
          "EQ-23: the child process never reached before_commit; it answered " + *line);
    }
    return std::nullopt;
  }
  auto answer = decode(*line);
  if (!answer) throw std::runtime_error("EQ-23: the child process reported '" + *line + "'");
  return answer;
}

}  // namespace thm::conformance
