#pragma once
/// \file
/// One running adapter program (kit/protocol/PROTOCOL.md §1–§3): started with `/bin/sh -c`,
/// spoken to over its stdin and stdout one JSON line at a time, its stderr kept for reports.
/// Internal to `ExecHarness`.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>  // Pending holds a Json: internal header, .cpp files only
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "thm/protocol/protocol.hpp"

namespace thm::protocol::detail {

/// The longest line an adapter may write on stdout (PROTOCOL.md §1), 128 MiB: about three
/// times the largest legitimate one (EQ-21's `children` answer, two contents of up to
/// 16 MiB each, base64-encoded). A longer line fails the exchange with "the adapter wrote a
/// line longer than 134217728 bytes", and is never held in memory whole.
inline constexpr std::size_t kMaxLineBytes = std::size_t{128} << 20;

/// What every process of one harness shares: how long a response may take, and the hook
/// calls in flight anywhere (while one runs, no response is late: a check may be holding
/// an adapter's transaction open on purpose, and another process may be waiting for it).
struct ExchangeClock {
  std::chrono::milliseconds timeout{30'000};
  std::atomic<int> hooks_in_flight{0};
  std::atomic<std::int64_t> last_hook_end_ns{0};
};

/// Answers a hook call: the session it came from (absent in processes mode), the point,
/// the request that session is enqueueing. True to proceed.
using HookHandler =
    std::function<bool(std::optional<std::uint64_t> session, HookPoint, const MentionTurnRequest&)>;

/// A started adapter program. `call` may be used from many threads at once; each call
/// waits for its own response. Every failure of the exchange throws: `Unsupported` for an
/// `unsupported` answer, `std::runtime_error` for `failure` and for a process that broke
/// the protocol, timed out or exited (the message quotes the line and stderr's last lines).
class AdapterProcess {
 public:
  AdapterProcess(const std::string& command, std::shared_ptr<ExchangeClock> clock,
                 HookHandler on_hook, std::vector<std::string> extra_environment = {});
  ~AdapterProcess();
  AdapterProcess(const AdapterProcess&) = delete;
  AdapterProcess& operator=(const AdapterProcess&) = delete;

  /// Sends `{"id", "op", ...arguments}` and returns the checked `result` object. An
  /// `enqueue_once` names its session's request so hook calls can be given it.
  protocol::Json call(const std::string& op, protocol::Json arguments = protocol::Json::object());

  /// SIGKILLs the process group and reaps it; every waiting call then fails.
  void kill() noexcept;
  /// SIGKILLs the process group of every adapter program of this process that is not yet
  /// reaped, and from then on makes the constructor throw (`interrupt_adapters`).
  static void interrupt_all() noexcept;
  /// Closes stdin and waits up to the timeout for the program to exit, then kills it.
  void close() noexcept;
  /// True once the program exited, was killed or broke the protocol.
  [[nodiscard]] bool broken() const;
  /// From now on one call at a time (an adapter in `processes` mode reads one request,
  /// answers it, then reads the next).
  void set_sequential(bool sequential) { sequential_ = sequential; }

 private:
  struct Pending {
    std::string op{};
    std::optional<protocol::Json> response{};
  };

  // With mutex_ held: reaps the program if it has exited (or waits for it), recording how
  // it ended; true once it is gone.
  bool reap(bool wait);
  // `call`'s steps: the request written (its id), its response awaited, and that response
  // turned into the result or what it means (`Unsupported`, a failure).
  std::uint64_t send(const std::string& op, protocol::Json arguments,
                     std::optional<std::uint64_t> session);
  protocol::Json await(std::uint64_t id, const std::string& op,
                       std::optional<std::uint64_t> session);
  protocol::Json result_of(const std::string& op, protocol::Json response);
  void forget(std::uint64_t id, const std::string& op, std::optional<std::uint64_t> session);
  [[nodiscard]] bool exited();
  [[nodiscard]] std::optional<std::string> broken_reason() const;
  void read_stdout();
  void read_stderr();
  void handle_line(const std::string& line);
  void answer_hook(std::uint64_t hook, std::optional<std::uint64_t> session, HookPoint point);
  void write_line(const std::string& line);
  void fail(const std::string& why);
  [[nodiscard]] std::string with_stderr(const std::string& message) const;

  std::shared_ptr<ExchangeClock> clock_;
  HookHandler on_hook_;
  pid_t pid_ = -1;    // until reaped
  pid_t group_ = -1;  // its process group, for good
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, Pending> pending_;
  // Per session, the enqueue_once in flight and the last hook point it called.
  struct Enqueueing {
    MentionTurnRequest request;
    std::optional<HookPoint> last_point;
  };
  std::map<std::optional<std::uint64_t>, Enqueueing> enqueueing_;
  std::optional<std::string> broken_;
  std::optional<std::string> exit_;
  std::deque<std::string> stderr_tail_;

  std::atomic<bool> sequential_{true};
  std::mutex call_mutex_;
  std::mutex write_mutex_;
  int hooks_running_ = 0;
  std::jthread stdout_reader_;
  std::jthread stderr_reader_;
};

}  // namespace thm::protocol::detail
