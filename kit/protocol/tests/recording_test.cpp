// The recording `run_check` puts around a harness (adr/0020) forwards every member and facet a
// host's harness can have: each operation of protocol v1, which names them, made through it
// on a spy harness. A new operation without a line here fails the test.
#include "thm/conformance/checks/recording.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "thm/protocol/protocol.hpp"

namespace thm::conformance {
namespace {

using checking::Recording;

// A harness that notes which member was called, and answers as a harness with every
// capability and facet would.
class Spy final : public Harness, public Durability, public NodeFaults, public Clocks {
 public:
  class SpySession final : public Session {
   public:
    explicit SpySession(std::set<std::string>& seen) : seen_(seen) {}
    Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest&) override {
      seen_.insert("enqueue_once");
      return Enqueued{};
    }
    Result<std::optional<Lease>, LeaseError> claim(std::chrono::milliseconds) override {
      seen_.insert("claim");
      return std::optional<Lease>{};
    }
    Result<StoreTime, LeaseError> renew(const std::string&, std::chrono::milliseconds) override {
      seen_.insert("renew");
      return StoreTime{};
    }
    Result<TurnState, LeaseError> complete(const std::string&) override {
      seen_.insert("complete");
      return TurnState::Completed;
    }
    Result<TurnState, LeaseError> fail(const std::string&) override {
      seen_.insert("fail");
      return TurnState::Pending;
    }

   private:
    std::set<std::string>& seen_;
  };
  class SpyHold final : public Hold {};

  std::set<std::string> seen;

  std::string queue_name() const override { return "spy"; }
  Capabilities capabilities() const override { return {}; }
  void reset() override { seen.insert("reset"); }
  std::unique_ptr<Session> open_session() override {
    seen.insert("open_session");
    return std::make_unique<SpySession>(seen);
  }
  void commit_reply(const CommittedReply&) override { seen.insert("commit_reply"); }
  void set_policy(MentionDispatchPolicy) override { seen.insert("set_policy"); }
  void set_authorized(const std::string&, const std::string&, bool) override {
    seen.insert("set_authorized");
  }
  void set_available(const std::string&, bool) override { seen.insert("set_available"); }
  void set_hook(TransactionHook) override { seen.insert("set_hook"); }
  void settle(std::uint64_t, Settlement) override { seen.insert("settle"); }
  void run_maintenance() override { seen.insert("run_maintenance"); }
  void reopen() override { seen.insert("reopen"); }
  std::optional<Result<EnqueueOutcome, QueueError>> enqueue_then_kill(const MentionTurnRequest&,
                                                                      KillPoint) override {
    seen.insert("enqueue_then_kill");
    return std::nullopt;
  }
  std::unique_ptr<Hold> hold_child(std::uint64_t) override {
    seen.insert("hold_child");
    return std::make_unique<SpyHold>();
  }
  std::size_t node_count() override {
    seen.insert("node_count");
    return 3;
  }
  std::size_t leader() override {
    seen.insert("leader");
    return 0;
  }
  void kill_node(std::size_t) override { seen.insert("kill_node"); }
  void restart_node(std::size_t) override { seen.insert("restart_node"); }
  void pause_node(std::size_t) override { seen.insert("pause_node"); }
  void resume_node(std::size_t) override { seen.insert("resume_node"); }
  void recover() override { seen.insert("recover"); }
  StoreTime store_now() override {
    seen.insert("store_now");
    return StoreTime{};
  }
  void advance_store_clock(std::chrono::milliseconds) override {
    seen.insert("advance_store_clock");
  }
  void set_client_clock(ClientClock) override { seen.insert("set_client_clock"); }
  Durability* durability() override { return this; }
  NodeFaults* nodes() override { return this; }
  Clocks* clocks() override { return this; }
  std::vector<IdempotencyRecord> records() override {
    seen.insert("records");
    return {};
  }
  std::vector<ChildTurn> children() override {
    seen.insert("children");
    return {};
  }
  std::optional<UniqueIndex> unique_key_index() override {
    seen.insert("unique_key_index");
    return std::nullopt;
  }
};

// Each protocol operation made through `recording`, on `session` for a session's (one that
// `open_session` made); `restart_store` is asked for by an exec harness's
// `enqueue_then_kill`, after its kill.
std::map<std::string, std::function<void()>> operations(Recording& recording,
                                                        std::unique_ptr<Session>& session) {
  using namespace std::chrono_literals;
  return {
      {"reset", [&] { recording.reset(); }},
      {"open_session", [&] { session = recording.open_session(); }},
      {"enqueue_once", [&] { (void)session->enqueue_once({}); }},
      {"claim", [&] { (void)session->claim(1ms); }},
      {"renew", [&] { (void)session->renew("t", 1ms); }},
      {"complete", [&] { (void)session->complete("t"); }},
      {"fail", [&] { (void)session->fail("t"); }},
      {"commit_reply", [&] { recording.commit_reply({}); }},
      {"set_policy", [&] { recording.set_policy({}); }},
      {"set_authorized", [&] { recording.set_authorized("a", "b", true); }},
      {"set_available", [&] { recording.set_available("b", true); }},
      {"set_hook", [&] { recording.set_hook([](HookPoint, const auto&) { return true; }); }},
      {"settle", [&] { recording.settle(1, Settlement::Complete); }},
      {"run_maintenance", [&] { recording.run_maintenance(); }},
      {"reopen", [&] { recording.durability()->reopen(); }},
      {"restart_store",
       [&] { (void)recording.durability()->enqueue_then_kill({}, KillPoint::AfterAnswer); }},
      {"node_count", [&] { (void)recording.nodes()->node_count(); }},
      {"leader", [&] { (void)recording.nodes()->leader(); }},
      {"kill_node", [&] { recording.nodes()->kill_node(0); }},
      {"restart_node", [&] { recording.nodes()->restart_node(0); }},
      {"pause_node", [&] { recording.nodes()->pause_node(0); }},
      {"resume_node", [&] { recording.nodes()->resume_node(0); }},
      {"recover", [&] { recording.nodes()->recover(); }},
      {"store_now", [&] { (void)recording.clocks()->store_now(); }},
      {"advance_store_clock", [&] { recording.clocks()->advance_store_clock(1s); }},
      {"records", [&] { (void)recording.records(); }},
      {"children", [&] { (void)recording.children(); }},
      {"unique_key_index", [&] { (void)recording.unique_key_index(); }},
  };
}

TEST(RecordingTest, ForwardsEveryOperationOfTheProtocol) {
  Spy spy;
  Recording recording(spy);
  std::unique_ptr<Session> session;
  const auto through = operations(recording, session);
  // Protocol only: the handshake and closing a session have no harness member.
  const std::set<std::string> no_member{"hello", "close_session"};
  const auto schema = nlohmann::json::parse(protocol::schema_text());
  std::vector<std::string> ops;
  for (const auto& [definition, _] : schema.at("definitions").items()) {
    if (definition.starts_with("request.")) ops.push_back(definition.substr(8));
  }
  std::ranges::stable_partition(ops, [](const std::string& op) {
    return op == "reset" || op == "open_session";  // a session first, for its calls
  });
  ASSERT_GT(ops.size(), 20U);
  for (const std::string& op : ops) {
    if (no_member.contains(op)) continue;
    const auto call = through.find(op);
    ASSERT_NE(call, through.end()) << "no call through the recording for protocol operation " << op;
    call->second();
    // `restart_store` is asked for by an exec harness's `enqueue_then_kill`, after its kill.
    EXPECT_TRUE(spy.seen.contains(op == "restart_store" ? "enqueue_then_kill" : op))
        << "the recording did not forward " << op;
  }
  // Members the protocol reaches some other way are forwarded too.
  (void)recording.hold_child(1);
  recording.clocks()->set_client_clock({});
  EXPECT_TRUE(spy.seen.contains("hold_child"));
  EXPECT_TRUE(spy.seen.contains("set_client_clock"));
  EXPECT_EQ(recording.queue_name(), "spy");
}

}  // namespace
}  // namespace thm::conformance
