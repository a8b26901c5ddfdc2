#include "thm/protocol/serve.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include "thm/protocol/protocol.hpp"

namespace thm::protocol {

namespace {

using protocol::Json;

// The session whose enqueue this thread runs: the hook's call names it.
thread_local std::optional<std::uint64_t> current_session;

class Server {
 public:
  Server(Harness& harness, std::ostream& out) : harness_(harness), out_(out) {}

  // Runs `request` on a thread of its own (detached: a long run serves many thousands).
  void dispatch(Json request) {
    {
      const std::lock_guard lock(mutex_);
      ++running_;
    }
    const auto done = [this] {
      const std::lock_guard lock(mutex_);
      --running_;
      idle_.notify_all();
    };
    try {
      std::thread([this, done, request = std::move(request)] {
        answer(request);
        done();
      }).detach();
    } catch (...) {
      done();
      throw;
    }
  }

  // Hands a hook reply to the hook waiting for it.
  void reply_to_hook(const Json& reply) {
    protocol::validate(reply, "hook_reply");
    {
      const std::lock_guard lock(mutex_);
      const auto waiting = hooks_.find(reply.at("hook_reply").get<std::uint64_t>());
      if (waiting == hooks_.end() || waiting->second) {
        throw protocol::ProtocolError("it answers no hook call in flight");
      }
      waiting->second = reply.at("proceed").get<bool>();
    }
    hook_answered_.notify_all();
  }

  void write(const Json& message) {
    const std::lock_guard lock(write_mutex_);
    out_ << message.dump(-1, ' ', false, Json::error_handler_t::replace) << '\n' << std::flush;
  }

  // Stdin ended: hooks still waiting for a reply fail (no reply can come now), then every
  // request still running is waited for.
  void finish() {
    std::unique_lock lock(mutex_);
    for (auto& [hook, reply] : hooks_) {
      if (!reply) reply = false;
    }
    hook_answered_.notify_all();
    idle_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  void answer(const Json& request) {
    const std::uint64_t id = request.at("id").get<std::uint64_t>();
    try {
      write({{"id", id}, {"result", run(request)}});
    } catch (const Unsupported& unsupported) {
      write({{"id", id}, {"unsupported", unsupported.what()}});
    } catch (const std::exception& failure) {
      write({{"id", id}, {"failure", failure.what()}});
    }
  }

  Session& session_of(const Json& request) {
    const std::lock_guard lock(mutex_);
    const auto found = sessions_.find(request.at("session").get<std::uint64_t>());
    if (found == sessions_.end()) throw protocol::ProtocolError("no such session");
    return *found->second;
  }

  // The hook every enqueue of the served harness calls while one is installed.
  bool ask_suite(HookPoint point) {
    std::uint64_t hook = 0;
    {
      const std::lock_guard lock(mutex_);
      hook = next_hook_++;
      hooks_.emplace(hook, std::nullopt);
    }
    Json call{{"hook", hook}, {"point", name(point)}};
    if (current_session) call["session"] = *current_session;
    write(call);
    std::unique_lock lock(mutex_);
    hook_answered_.wait(lock, [&] { return hooks_.at(hook).has_value(); });
    const bool proceed = *hooks_.at(hook);
    hooks_.erase(hook);
    return proceed;
  }

  // One operation of protocol version 1: its name, and the member that returns the `result`
  // of a request for it (a request already validated against the operation's schema).
  struct Operation {
    std::string_view name{};
    Json (Server::*handler)(const Json& request) = nullptr;
  };

  // Every operation of protocol version 1, in PROTOCOL.md §4's order: the handshake, the
  // harness operations, the node operations, the session operations.
  static std::span<const Operation> operations() {
    static constexpr auto kOperations = std::to_array<Operation>({
        {"hello", &Server::on_hello},
        {"reset", &Server::on_reset},
        {"commit_reply", &Server::on_commit_reply},
        {"set_policy", &Server::on_set_policy},
        {"set_authorized", &Server::on_set_authorized},
        {"set_available", &Server::on_set_available},
        {"set_hook", &Server::on_set_hook},
        {"settle", &Server::on_settle},
        {"run_maintenance", &Server::on_run_maintenance},
        {"records", &Server::on_records},
        {"children", &Server::on_children},
        {"unique_key_index", &Server::on_unique_key_index},
        {"store_now", &Server::on_store_now},
        {"advance_store_clock", &Server::on_advance_store_clock},
        {"reopen", &Server::on_reopen},
        {"restart_store", &Server::on_restart_store},
        {"node_count", &Server::on_node_count},
        {"leader", &Server::on_leader},
        {"kill_node", &Server::on_kill_node},
        {"restart_node", &Server::on_restart_node},
        {"pause_node", &Server::on_pause_node},
        {"resume_node", &Server::on_resume_node},
        {"recover", &Server::on_recover},
        {"open_session", &Server::on_open_session},
        {"close_session", &Server::on_close_session},
        {"enqueue_once", &Server::on_enqueue_once},
        {"claim", &Server::on_claim},
        {"renew", &Server::on_renew},
        {"complete", &Server::on_complete},
        {"fail", &Server::on_fail},
    });
    return kOperations;
  }

  // The `result` of `request`, from the member its op names in `operations()`.
  Json run(const Json& request) {
    const std::string op = request.at("op").get<std::string>();
    if (!protocol::is_operation(op))
      throw Unsupported("no operation '" + op + "' in protocol version 1");
    protocol::validate(request, "request." + op);
    const std::span<const Operation> table = operations();
    const auto found = std::ranges::find(table, op, &Operation::name);
    if (found == table.end()) throw protocol::ProtocolError("unknown op '" + op + "'");
    return (this->*found->handler)(request);
  }

  // The handshake.

  Json on_hello(const Json& /*request*/) {
    return {{"protocol", protocol::kVersion},
            {"name", "thm-" + harness_.queue_name()},
            {"sessions", "multiplexed"},
            {"capabilities", protocol::to_json(harness_.capabilities())}};
  }

  // The harness operations.

  Json on_reset(const Json& /*request*/) {
    {
      const std::lock_guard lock(mutex_);
      sessions_.clear();
    }
    harness_.reset();
    return Json::object();
  }

  Json on_commit_reply(const Json& request) {
    harness_.commit_reply(protocol::reply_from_json(request.at("reply")));
    return Json::object();
  }

  Json on_set_policy(const Json& request) {
    harness_.set_policy(protocol::policy_from_json(request.at("policy")));
    return Json::object();
  }

  Json on_set_authorized(const Json& request) {
    harness_.set_authorized(protocol::bytes_from_json(request.at("source_id")),
                            protocol::bytes_from_json(request.at("target_id")),
                            request.at("authorized").get<bool>());
    return Json::object();
  }

  Json on_set_available(const Json& request) {
    harness_.set_available(protocol::bytes_from_json(request.at("agent_id")),
                           request.at("available").get<bool>());
    return Json::object();
  }

  Json on_set_hook(const Json& request) {
    if (request.at("installed").get<bool>()) {
      harness_.set_hook(
          [this](HookPoint point, const MentionTurnRequest&) { return ask_suite(point); });
    } else {
      harness_.set_hook({});
    }
    return Json::object();
  }

  Json on_settle(const Json& request) {
    const auto how = protocol::settlement_from_name(request.at("how").get<std::string>());
    harness_.settle(request.at("child_id").get<std::uint64_t>(), *how);
    return Json::object();
  }

  Json on_run_maintenance(const Json& /*request*/) {
    harness_.run_maintenance();
    return Json::object();
  }

  Json on_records(const Json& /*request*/) {
    Json rows = Json::array();
    for (const IdempotencyRecord& row : harness_.records()) rows.push_back(protocol::to_json(row));
    return {{"records", std::move(rows)}};
  }

  Json on_children(const Json& /*request*/) {
    Json rows = Json::array();
    for (const ChildTurn& row : harness_.children()) rows.push_back(protocol::to_json(row));
    return {{"children", std::move(rows)}};
  }

  Json on_unique_key_index(const Json& /*request*/) {
    const auto index = harness_.unique_key_index();
    if (!index) return {{"index", nullptr}};
    return {{"index", {{"columns", index->columns}, {"partial", index->partial}}}};
  }

  Json on_store_now(const Json& /*request*/) {
    return {
        {"now", require(harness_.clocks(), "store_now").store_now().time_since_epoch().count()}};
  }

  Json on_advance_store_clock(const Json& request) {
    require(harness_.clocks(), "advance_store_clock")
        .advance_store_clock(std::chrono::milliseconds(request.at("by").get<std::int64_t>()));
    return Json::object();
  }

  Json on_reopen(const Json& /*request*/) {
    require(harness_.durability(), "reopen").reopen();
    return Json::object();
  }

  Json on_restart_store(const Json& /*request*/) {
    // An in-process store has no server; a persistent one is reopened by `reopen`.
    if (!harness_.capabilities().persistent) throw Unsupported("restart_store");
    return Json::object();
  }

  // The node operations: the harness's facet, `Unsupported` without one.

  Json on_node_count(const Json& /*request*/) {
    return {{"count", require(harness_.nodes(), "node_count").node_count()}};
  }

  Json on_leader(const Json& /*request*/) {
    return {{"node", require(harness_.nodes(), "leader").leader()}};
  }

  Json on_kill_node(const Json& request) {
    require(harness_.nodes(), "kill_node").kill_node(request.at("node").get<std::size_t>());
    return Json::object();
  }

  Json on_restart_node(const Json& request) {
    require(harness_.nodes(), "restart_node").restart_node(request.at("node").get<std::size_t>());
    return Json::object();
  }

  Json on_pause_node(const Json& request) {
    require(harness_.nodes(), "pause_node").pause_node(request.at("node").get<std::size_t>());
    return Json::object();
  }

  Json on_resume_node(const Json& request) {
    require(harness_.nodes(), "resume_node").resume_node(request.at("node").get<std::size_t>());
    return Json::object();
  }

  Json on_recover(const Json& /*request*/) {
    require(harness_.nodes(), "recover").recover();
    return Json::object();
  }

  // The session operations.

  Json on_open_session(const Json& /*request*/) {
    auto session = harness_.open_session();
    const std::lock_guard lock(mutex_);
    const std::uint64_t number = next_session_++;
    sessions_.emplace(number, std::move(session));
    return {{"session", number}};
  }

  Json on_close_session(const Json& request) {
    std::unique_ptr<Session> closing;
    const std::lock_guard lock(mutex_);
    if (const auto found = sessions_.find(request.at("session").get<std::uint64_t>());
        found != sessions_.end()) {
      closing = std::move(found->second);
      sessions_.erase(found);
    }
    return Json::object();
  }

  Json on_enqueue_once(const Json& request) {
    current_session = request.at("session").get<std::uint64_t>();
    const auto answer =
        session_of(request).enqueue_once(protocol::request_from_json(request.at("request")));
    current_session.reset();
    return protocol::enqueue_result(answer);
  }

  Json on_claim(const Json& request) {
    return protocol::claim_result(session_of(request).claim(
        std::chrono::milliseconds(request.at("duration").get<std::int64_t>())));
  }

  Json on_renew(const Json& request) {
    return protocol::renew_result(session_of(request).renew(
        request.at("token").get<std::string>(),
        std::chrono::milliseconds(request.at("duration").get<std::int64_t>())));
  }

  Json on_complete(const Json& request) {
    return protocol::state_result(
        session_of(request).complete(request.at("token").get<std::string>()));
  }

  Json on_fail(const Json& request) {
    return protocol::state_result(session_of(request).fail(request.at("token").get<std::string>()));
  }

  Harness& harness_;
  std::ostream& out_;
  std::mutex write_mutex_;
  std::mutex mutex_;
  std::condition_variable hook_answered_;
  std::map<std::uint64_t, std::unique_ptr<Session>> sessions_;
  std::map<std::uint64_t, std::optional<bool>> hooks_;
  std::uint64_t next_session_ = 1;
  std::uint64_t next_hook_ = 1;
  std::size_t running_ = 0;
  std::condition_variable idle_;
};

}  // namespace

int serve(Harness& harness, std::istream& in, std::ostream& out, std::ostream& log) {
  Server server(harness, out);
  int status = 0;
  // PROTOCOL.md §1: a line that is not JSON, or has no id, is logged and ignored.
  const auto ignore = [&](const std::string& line, const std::string& why) {
    log << "thm adapter: ignored a line that " << why << ": " << line.substr(0, 200) << "\n";
  };
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank
    Json message;
    try {
      // nlohmann's lexer takes a NUL byte for the end of the input; JSON text has none.
      if (line.find('\0') != std::string::npos) throw std::invalid_argument("a NUL byte");
      message = Json::parse(line);
    } catch (const std::exception&) {
      ignore(line, "is not JSON");
      continue;
    }
    if (!message.is_object() ||
        (!message.contains("hook_reply") &&
         (!message.contains("id") || !message.at("id").is_number_unsigned()))) {
      ignore(line, "is no JSON object with a numeric id");
      continue;
    }
    try {
      if (message.contains("hook_reply")) {
        server.reply_to_hook(message);
      } else {
        server.dispatch(std::move(message));
      }
    } catch (const std::exception& error) {
      log << "thm adapter: a line broke the protocol (" << error.what()
          << "): " << line.substr(0, 200) << "\n";
      status = 1;
    }
  }
  server.finish();
  harness.set_hook({});
  return status;
}

}  // namespace thm::protocol
