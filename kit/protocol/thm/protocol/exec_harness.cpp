#include "thm/protocol/exec_harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

#include "thm/protocol/adapter_process.hpp"
#include "thm/protocol/protocol.hpp"

namespace thm::protocol {

using protocol::Json;

/// The suite's hook and every process that must hear of it: a hook applies to sessions
/// opened before it was installed too (harness.hpp, "Hook rules").
struct ExecHarness::HookState {
  std::mutex mutex;
  std::shared_ptr<const TransactionHook> hook;
  std::vector<std::weak_ptr<detail::AdapterProcess>> processes;

  [[nodiscard]] bool installed() {
    const std::lock_guard lock(mutex);
    return hook != nullptr;
  }
  /// Stops telling `process` of hooks: its session closed (it may wait idle for another).
  void forget(const detail::AdapterProcess* process) {
    const std::lock_guard lock(mutex);
    std::erase_if(processes, [&](const std::weak_ptr<detail::AdapterProcess>& weak) {
      const auto live = weak.lock();
      return !live || live.get() == process;
    });
  }
  [[nodiscard]] bool run(HookPoint point, const MentionTurnRequest& request) {
    std::shared_ptr<const TransactionHook> current;
    {
      const std::lock_guard lock(mutex);
      current = hook;
    }
    return !current || (*current)(point, request);
  }
};

/// Session processes between sessions (processes mode): starting a program is what makes
/// a race of many sessions slow, so a process whose session closed cleanly serves the next
/// one (PROTOCOL.md §3). Emptied whenever connections may have gone stale.
struct ExecHarness::IdleProcesses {
  static constexpr std::size_t kMost = 64;
  std::mutex mutex;
  std::vector<std::shared_ptr<detail::AdapterProcess>> processes;

  void give_back(std::shared_ptr<detail::AdapterProcess> process) {
    const std::lock_guard lock(mutex);
    if (processes.size() < kMost) {
      processes.push_back(std::move(process));
    } else {
      process->close();
    }
  }
  [[nodiscard]] std::shared_ptr<detail::AdapterProcess> take() {
    const std::lock_guard lock(mutex);
    while (!processes.empty()) {
      auto process = std::move(processes.back());
      processes.pop_back();
      if (!process->broken()) return process;
    }
    return nullptr;
  }
  void clear() {
    std::vector<std::shared_ptr<detail::AdapterProcess>> closing;
    {
      const std::lock_guard lock(mutex);
      closing.swap(processes);
    }
    for (const auto& process : closing) process->close();
  }
};

class ExecHarness::ExecSession final : public Session {
 public:
  /// `idle` is where a process of its own goes back to (processes mode); absent in
  /// multiplexed mode, where the process is shared.
  ExecSession(std::shared_ptr<detail::AdapterProcess> process, std::optional<std::uint64_t> number,
              std::shared_ptr<IdleProcesses> idle, std::shared_ptr<HookState> hooks)
      : process_(std::move(process)),
        number_(number),
        idle_(std::move(idle)),
        hooks_(std::move(hooks)) {}
  ~ExecSession() override {
    if (hooks_) hooks_->forget(process_.get());
    bool closed = false;
    try {
      if (!process_->broken()) {
        (void)process_->call("close_session", with_session({}));
        closed = true;
      }
    } catch (...) {  // a session that broke the protocol has already failed its check
    }
    if (!idle_) return;
    if (closed) {
      idle_->give_back(std::move(process_));
    } else {
      process_->close();
    }
  }
  ExecSession(const ExecSession&) = delete;
  ExecSession& operator=(const ExecSession&) = delete;

  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest& request) override {
    return protocol::enqueue_answer(
        process_->call("enqueue_once", with_session({{"request", protocol::to_json(request)}})));
  }
  Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds duration) override {
    return protocol::claim_answer(
        process_->call("claim", with_session({{"duration", duration.count()}})));
  }
  Result<StoreTime, LeaseError> renew(const std::string& token,
                                      std::chrono::milliseconds duration) override {
    return protocol::renew_answer(
        process_->call("renew", with_session({{"token", token}, {"duration", duration.count()}})));
  }
  Result<TurnState, LeaseError> complete(const std::string& token) override {
    return protocol::state_answer(process_->call("complete", with_session({{"token", token}})));
  }
  Result<TurnState, LeaseError> fail(const std::string& token) override {
    return protocol::state_answer(process_->call("fail", with_session({{"token", token}})));
  }

 private:
  Json with_session(Json arguments) const {
    if (arguments.is_null()) arguments = Json::object();
    if (number_) arguments["session"] = *number_;
    return arguments;
  }

  std::shared_ptr<detail::AdapterProcess> process_;
  std::optional<std::uint64_t> number_;
  std::shared_ptr<IdleProcesses> idle_;
  std::shared_ptr<HookState> hooks_;
};

namespace {

Json empty() { return Json::object(); }

// Debian's package `faketime`; the MT build is safe in programs with threads.
constexpr std::array<const char*, 3> kFaketimeLibraries{
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1",
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1"};

// Writes libfaketime's offset spec to `path` in one step (it may read the file any time).
void write_offset(const std::string& path, std::chrono::milliseconds offset) {
  // Whole seconds, rounded away from zero: a skew is never lost to rounding.
  const auto seconds =
      offset.count() / 1000 + (offset.count() % 1000 > 0) - (offset.count() % 1000 < 0);
  const std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << (seconds >= 0 ? "+" : "") << seconds << "s\n";
    if (!out) throw std::runtime_error("cannot write the faketime offset to " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot move the faketime offset into " + path);
  }
}

}  // namespace

ExecHarness::ExecHarness(std::string command, std::chrono::milliseconds timeout)
    : command_(std::move(command)),
      clock_(std::make_shared<detail::ExchangeClock>()),
      hooks_(std::make_shared<HookState>()),
      idle_(std::make_shared<IdleProcesses>()) {
  clock_->timeout = timeout;
  control_ = start_process();
  if (!skewable_) return;
  // Started again under libfaketime, now that the adapter asked for it.
  const auto library = std::find_if(kFaketimeLibraries.begin(), kFaketimeLibraries.end(),
                                    [](const char* path) { return ::access(path, R_OK) == 0; });
  if (library == kFaketimeLibraries.end()) {
    throw std::runtime_error(
        "the adapter declares skewable_client_clock, but libfaketime is not installed "
        "(Debian package faketime)");
  }
  char path[] = "/tmp/thm-faketime-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) throw std::runtime_error("cannot create a file for the faketime offset");
  ::close(fd);
  faketime_file_ = path;
  write_offset(faketime_file_, std::chrono::milliseconds{0});
  // The wall clock only: a monotonic clock that jumps with the skew would stall the
  // adapter's own timers (Node's, Python's waits).
  environment_ = {std::string("LD_PRELOAD=") + *library,
                  "FAKETIME_TIMESTAMP_FILE=" + faketime_file_, "FAKETIME_NO_CACHE=1",
                  "FAKETIME_DONT_FAKE_MONOTONIC=1",
                  // The offset comes from the file alone: no shared-memory segment per process,
                  // which libfaketime would leave behind in /dev/shm.
                  "FAKETIME_DISABLE_SHM=1"};
  control_->close();
  control_ = start_process();
}

ExecHarness::~ExecHarness() {
  idle_->clear();
  {
    const std::lock_guard lock(control_mutex_);
    control_.reset();
  }
  if (!faketime_file_.empty()) std::remove(faketime_file_.c_str());
}

void ExecHarness::set_client_clock(ClientClock clock) {
  if (faketime_file_.empty()) return;
  const auto offset = clock ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                  clock() - std::chrono::system_clock::now())
                            : std::chrono::milliseconds{0};
  write_offset(faketime_file_, offset);
}

std::shared_ptr<detail::AdapterProcess> ExecHarness::start_process() {
  auto process = std::make_shared<detail::AdapterProcess>(
      command_, clock_,
      [hooks = hooks_](std::optional<std::uint64_t>, HookPoint point,
                       const MentionTurnRequest& request) { return hooks->run(point, request); },
      environment_);
  const Json hello = process->call("hello", {{"protocol", protocol::kVersion}});
  const std::string sessions = hello.at("sessions").get<std::string>();
  const SessionMode mode =
      sessions == "multiplexed" ? SessionMode::Multiplexed : SessionMode::Processes;
  process->set_sequential(mode == SessionMode::Processes);
  if (name_.empty()) {  // the first process speaks for the program
    name_ = hello.at("name").get<std::string>();
    const Json declared = hello.value("capabilities", empty());
    capabilities_ = protocol::capabilities_from_json(declared);
    skewable_ = capabilities_.skewable_client_clock;
    mode_ = mode;
  } else if (mode != mode_) {
    throw std::runtime_error("the adapter changed its session mode between processes");
  }
  return process;
}

void interrupt_adapters() noexcept { detail::AdapterProcess::interrupt_all(); }

std::shared_ptr<detail::AdapterProcess> ExecHarness::control() {
  const std::lock_guard lock(control_mutex_);
  return control_;
}

void ExecHarness::reset() {
  {
    const std::lock_guard lock(hooks_->mutex);
    hooks_->hook.reset();
    hooks_->processes.clear();
  }
  {
    const std::lock_guard lock(control_mutex_);
    if (control_->broken()) control_ = start_process();  // the last check broke it
  }
  control()->call("reset");
}

std::unique_ptr<Session> ExecHarness::open_session() {
  std::shared_ptr<detail::AdapterProcess> process;
  std::optional<std::uint64_t> number;
  if (mode_ == SessionMode::Multiplexed) {
    process = control();
    const Json opened = process->call("open_session");
    if (!opened.contains("session")) {
      throw std::runtime_error(
          "the adapter declares multiplexed sessions, but its open_session answer names no "
          "session: " +
          opened.dump());
    }
    number = opened.at("session").get<std::uint64_t>();
  } else {
    process = idle_->take();
    if (!process) process = start_process();
    (void)process->call("open_session");
    const std::lock_guard lock(hooks_->mutex);
    hooks_->processes.push_back(process);
  }
  if (mode_ == SessionMode::Processes && hooks_->installed()) {
    (void)process->call("set_hook", {{"installed", true}});
  }
  if (mode_ == SessionMode::Processes) {
    return std::make_unique<ExecSession>(std::move(process), number, idle_, hooks_);
  }
  return std::make_unique<ExecSession>(std::move(process), number, nullptr, nullptr);
}

void ExecHarness::commit_reply(const CommittedReply& reply) {
  (void)control()->call("commit_reply", {{"reply", protocol::to_json(reply)}});
}

void ExecHarness::set_policy(MentionDispatchPolicy policy) {
  (void)control()->call("set_policy", {{"policy", protocol::to_json(policy)}});
}

void ExecHarness::set_authorized(const std::string& source_id, const std::string& target_id,
                                 bool authorized) {
  (void)control()->call("set_authorized", {{"source_id", protocol::bytes_to_json(source_id)},
                                           {"target_id", protocol::bytes_to_json(target_id)},
                                           {"authorized", authorized}});
}

void ExecHarness::set_available(const std::string& agent_id, bool available) {
  (void)control()->call(
      "set_available", {{"agent_id", protocol::bytes_to_json(agent_id)}, {"available", available}});
}

void ExecHarness::set_hook(TransactionHook hook) {
  const bool installed = static_cast<bool>(hook);
  std::vector<std::shared_ptr<detail::AdapterProcess>> processes{control()};
  {
    const std::lock_guard lock(hooks_->mutex);
    hooks_->hook = installed ? std::make_shared<const TransactionHook>(std::move(hook)) : nullptr;
    for (const auto& weak : hooks_->processes) {
      if (auto process = weak.lock()) processes.push_back(std::move(process));
    }
  }
  for (const auto& process : processes) {
    if (!process->broken()) (void)process->call("set_hook", {{"installed", installed}});
  }
}

void ExecHarness::settle(std::uint64_t child_id, Settlement how) {
  (void)control()->call("settle", {{"child_id", child_id}, {"how", conformance::name(how)}});
}

void ExecHarness::run_maintenance() { (void)control()->call("run_maintenance"); }

void ExecHarness::reopen() {
  idle_->clear();  // their connections are as old as the harness's
  (void)control()->call("reopen");
}

std::optional<Result<EnqueueOutcome, QueueError>> ExecHarness::enqueue_then_kill(
    const MentionTurnRequest& request, KillPoint when) {
  if (!capabilities_.persistent)
    throw Unsupported("enqueue_then_kill: the adapter is not persistent");
  if (when == KillPoint::InsideTransaction && !capabilities_.hooks) {
    throw Unsupported("enqueue_then_kill inside the transaction: the adapter declares no hooks");
  }
  // A process of its own, whose hook (not the suite's) kills it at BeforeCommit. The hook
  // runs on a thread of the process's, which its destructor waits for.
  std::atomic<detail::AdapterProcess*> doomed_process{nullptr};
  std::atomic<bool> killed{false};
  auto doomed = std::make_unique<detail::AdapterProcess>(
      command_, clock_,
      [&](std::optional<std::uint64_t>, HookPoint point, const MentionTurnRequest&) {
        if (point == HookPoint::BeforeCommit && when == KillPoint::InsideTransaction) {
          killed = true;
          doomed_process.load()->kill();
        }
        return true;
      },
      environment_);
  doomed_process = doomed.get();
  (void)doomed->call("hello", {{"protocol", protocol::kVersion}});
  Json session_arguments = empty();
  const Json opened = doomed->call("open_session");
  if (opened.contains("session")) session_arguments["session"] = opened.at("session");
  if (when == KillPoint::InsideTransaction) {
    (void)doomed->call("set_hook", {{"installed", true}});
  }
  Json arguments = session_arguments;
  arguments["request"] = protocol::to_json(request);
  std::optional<Result<EnqueueOutcome, QueueError>> answer;
  try {
    answer = protocol::enqueue_answer(doomed->call("enqueue_once", std::move(arguments)));
  } catch (const std::exception&) {
    if (!killed) throw;  // it died on its own, not where it was meant to
  }
  if (when == KillPoint::InsideTransaction && !killed) {
    throw std::runtime_error("the adapter answered without calling its before_commit hook");
  }
  doomed->kill();
  doomed.reset();
  idle_->clear();  // a restarted server has dropped their connections
  (void)control()->call("restart_store");
  (void)control()->call("reopen");
  if (when == KillPoint::InsideTransaction) return std::nullopt;
  return answer;
}

// Sent to the first process like every harness operation; in processes mode sessions have
// processes of their own, and in multiplexed mode requests overlap, so no session's request
// holds these up.
std::size_t ExecHarness::node_count() {
  return control()->call("node_count").at("count").get<std::size_t>();
}

std::size_t ExecHarness::leader() {
  return control()->call("leader").at("node").get<std::size_t>();
}

void ExecHarness::kill_node(std::size_t node) {
  (void)control()->call("kill_node", {{"node", node}});
}

void ExecHarness::restart_node(std::size_t node) {
  (void)control()->call("restart_node", {{"node", node}});
}

void ExecHarness::pause_node(std::size_t node) {
  (void)control()->call("pause_node", {{"node", node}});
}

void ExecHarness::resume_node(std::size_t node) {
  (void)control()->call("resume_node", {{"node", node}});
}

void ExecHarness::recover() { (void)control()->call("recover"); }

StoreTime ExecHarness::store_now() {
  return StoreTime{
      std::chrono::milliseconds{control()->call("store_now").at("now").get<std::int64_t>()}};
}

void ExecHarness::advance_store_clock(std::chrono::milliseconds by) {
  (void)control()->call("advance_store_clock", {{"by", by.count()}});
}

std::vector<IdempotencyRecord> ExecHarness::records() {
  std::vector<IdempotencyRecord> rows;
  const Json result = control()->call("records");  // kept: the loop reads into it
  for (const Json& row : result.at("records")) {
    rows.push_back(protocol::record_from_json(row));
  }
  return rows;
}

std::vector<ChildTurn> ExecHarness::children() {
  std::vector<ChildTurn> rows;
  const Json result = control()->call("children");  // kept: the loop reads into it
  for (const Json& row : result.at("children")) {
    rows.push_back(protocol::child_from_json(row));
  }
  return rows;
}

std::optional<UniqueIndex> ExecHarness::unique_key_index() {
  if (!capabilities_.sql_schema) return std::nullopt;
  const Json index = control()->call("unique_key_index").at("index");
  if (index.is_null()) return std::nullopt;
  return UniqueIndex{.columns = index.at("columns").get<std::vector<std::string>>(),
                     .partial = index.at("partial").get<bool>()};
}

}  // namespace thm::protocol
