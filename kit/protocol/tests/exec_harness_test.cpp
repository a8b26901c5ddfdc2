// ExecHarness against adapters that break the protocol: each failure is reported with what
// the adapter did, never as a hang. And the node operations (PROTOCOL.md §4), against a fake
// cluster, since no reference adapter declares `nodes`. (A correct adapter is proven end to
// end by the CTest `exec.memory`: the whole suite through `thm adapter memory`.)
#include "thm/protocol/exec_harness.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "thm/conformance/temporary_directory.hpp"

namespace thm::protocol {
namespace {

using conformance::TemporaryDirectory;

using namespace std::chrono_literals;

// What constructing a harness over `command` throws ("" if it did not).
std::string start_failure(const std::string& command, std::chrono::milliseconds timeout = 2s) {
  try {
    ExecHarness harness(command, timeout);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

// A shell adapter that reads one line and answers it with `answer`.
std::string answering(const std::string& answer) {
  return "read line; printf '%s\\n' '" + answer + "'; cat >/dev/null";
}

TEST(ExecHarnessTest, ALineThatIsNotJsonIsQuoted) {
  const std::string why = start_failure("echo hello-not-json; cat >/dev/null");
  EXPECT_NE(why.find("not JSON"), std::string::npos) << why;
  EXPECT_NE(why.find("hello-not-json"), std::string::npos) << why;
}

TEST(ExecHarnessTest, ASilentAdapterTimesOut) {
  const auto started = std::chrono::steady_clock::now();
  const std::string why = start_failure("cat >/dev/null", 300ms);
  EXPECT_NE(why.find("did not answer 'hello' within 300 ms"), std::string::npos) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(ExecHarnessTest, AnAdapterThatExitsIsReportedWithItsStatusAndStderr) {
  const std::string why = start_failure("echo 'no database at /nowhere' >&2; exit 3");
  EXPECT_NE(why.find("status 3"), std::string::npos) << why;
  EXPECT_NE(why.find("no database at /nowhere"), std::string::npos) << why;
}

TEST(ExecHarnessTest, AnAnswerOutsideTheSchemaIsReportedWithTheOp) {
  const std::string why = start_failure(
      answering(R"({"id":1,"result":{"protocol":2,"name":"x","sessions":"processes"}})"));
  EXPECT_NE(why.find("'hello'"), std::string::npos) << why;
  EXPECT_NE(why.find("result.hello"), std::string::npos) << why;
}

TEST(ExecHarnessTest, AnAnswerToNoRequestBreaksTheProtocol) {
  const std::string why = start_failure(answering(R"({"id":99,"result":{}})"));
  EXPECT_NE(why.find("answers no request in flight"), std::string::npos) << why;
}

TEST(ExecHarnessTest, FailureAndUnsupportedAreTheAdaptersOwnWords) {
  EXPECT_NE(
      start_failure(answering(R"({"id":1,"failure":"wrong protocol"})")).find("wrong protocol"),
      std::string::npos);
  try {
    ExecHarness harness(answering(R"({"id":1,"unsupported":"no hello here"})"), 2s);
    FAIL() << "an unsupported hello was accepted";
  } catch (const Unsupported& unsupported) {
    EXPECT_NE(std::string(unsupported.what()).find("no hello here"), std::string::npos);
  }
}

TEST(ExecHarnessTest, AnAdaptersOwnWordsAreCutToAThousandBytes) {
  const std::string why = start_failure(
      "read line; printf '{\"id\":1,\"failure\":\"'; head -c 100000 /dev/zero | tr '\\0' w; "
      "printf '\"}\\n'; cat >/dev/null");
  EXPECT_NE(why.find("www… (100000 bytes)"), std::string::npos) << why.substr(0, 200);
  EXPECT_LT(why.size(), 2000U);
}

TEST(ExecHarnessTest, AServerTheAdapterLeftHoldingItsPipesDoesNotHoldUpTheSuite) {
  // setsid: out of the adapter's process group, as `pg_ctl start` puts a server; it keeps
  // both pipes open for 8 s and writes to stderr all the while.
  const auto started = std::chrono::steady_clock::now();
  const std::string why = start_failure(
      "setsid sh -c 'i=0; while [ $i -lt 800 ]; do echo log >&2; sleep 0.01; i=$((i+1)); done' "
      "& exit 3",
      20s);
  EXPECT_NE(why.find("status 3"), std::string::npos) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(ExecHarnessTest, AnAdapterThatBreaksTheProtocolIsKilledAtOnce) {
  // Not waited for: it may be holding its store's locks while it waits for a reply.
  const auto started = std::chrono::steady_clock::now();
  const std::string why = start_failure("echo not-json; sleep 30", 20s);
  EXPECT_NE(why.find("not-json"), std::string::npos) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(ExecHarnessTest, ALineLongerThanTheCapIsReportedAsSuchAndNotBuffered) {
  // 200 MiB without a newline, then silence: the reader must stop at the cap, say so, and
  // kill the adapter, rather than grow and report a hello that was never answered.
  const auto started = std::chrono::steady_clock::now();
  const std::string why =
      start_failure("read line; head -c 209715200 /dev/zero | tr '\\0' x; sleep 30", 20s);
  EXPECT_NE(why.find("the adapter wrote a line longer than 134217728 bytes"), std::string::npos)
      << why.substr(0, 300);
  EXPECT_EQ(why.find("did not answer"), std::string::npos) << why.substr(0, 300);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);
}

TEST(ExecHarnessTest, ALineWithANulByteIsNotJson) {
  // nlohmann's lexer would stop at the NUL and take the line for the answer before it.
  const std::string why = start_failure(
      R"(read line; printf '{"id":1,"result":{"protocol":1,"name":"x","sessions":"processes","capabilities":{}}}\000junk\n'; cat >/dev/null)");
  EXPECT_NE(why.find("not JSON"), std::string::npos) << why;
}

// An adapter that calls the same hook point twice in one enqueue could hold the step for
// ever (every hook round trip resets the answer timer): the second call breaks the protocol.
TEST(ExecHarnessTest, AHookPointCalledTwiceInOneEnqueueBreaksTheProtocol) {
  const std::string adapter = R"(import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["op"] == "hello":
        r = {"protocol": 1, "name": "loop", "sessions": "processes", "capabilities": {"hooks": True}}
    elif m["op"] == "enqueue_once":
        for n in (1, 2):
            print(json.dumps({"hook": n, "point": "after_begin"}), flush=True)
            sys.stdin.readline()
        r = {"outcome": {"status": "enqueued"}}
    else:
        r = {}
    print(json.dumps({"id": m["id"], "result": r}), flush=True)
)";
  const TemporaryDirectory directory("thm_hook_loop_adapter");
  const std::string path = directory.path() + "/adapter.py";
  std::ofstream(path) << adapter;
  ExecHarness harness("python3 " + path, 10s);
  harness.set_hook([](HookPoint, const MentionTurnRequest&) { return true; });
  const auto session = harness.open_session();
  const auto started = std::chrono::steady_clock::now();
  std::string why;
  try {
    (void)session->enqueue_once(MentionTurnRequest{.key = {1},
                                                   .source_id = "alice",
                                                   .target_id = "bob",
                                                   .content = "@bob hi",
                                                   .child_hop = 1});
  } catch (const std::exception& error) {  // the suite turns it into a failed check
    why = error.what();
  }
  EXPECT_NE(why.find("a hook call at after_begin after after_begin"), std::string::npos) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

// A fake adapter on a cluster of three nodes (multiplexed): it records each node operation
// it receives in the file named by its second argument, answers them as its first argument
// says, and holds every enqueue_once until the next node operation has been answered.
constexpr const char* kClusterAdapter = R"(import json, sys
mode, log = sys.argv[1], sys.argv[2]
held = []
def send(message):
    print(json.dumps(message), flush=True)
def record(text):
    with open(log, "a") as out:
        out.write(text + "\n")
for line in sys.stdin:
    m = json.loads(line)
    op, i = m["op"], m["id"]
    if op == "hello":
        caps = {} if mode == "plain" else {"nodes": True, "election_timeout": 500}
        send({"id": i, "result": {"protocol": 1, "name": "cluster", "sessions": "multiplexed",
                                  "capabilities": caps}})
    elif op in ("node_count", "leader", "kill_node", "restart_node", "pause_node",
                "resume_node", "recover"):
        record(op + " " + str(m.get("node", "-")))
        if mode == "plain":
            send({"id": i, "unsupported": op + ": this store runs on one node"})
        elif op == "node_count":
            send({"id": i, "result": {"count": 3}})
        elif op == "leader" and mode == "negative-leader":
            send({"id": i, "result": {"node": -1}})
        elif op == "leader" and mode == "text-leader":
            send({"id": i, "result": {"node": "2"}})
        elif op == "leader":
            send({"id": i, "result": {"node": 2}})
        elif op == "recover" and mode == "leaderless":
            send({"id": i, "failure": "no leader after 20 s: node 0 and node 1 answer 'etcdserver: no leader'"})
        else:
            send({"id": i, "result": {}})
        for held_id in held:
            send({"id": held_id, "result": {"outcome": {"status": "enqueued"}}})
        held.clear()
    elif op == "open_session":
        send({"id": i, "result": {"session": 1}})
    elif op == "enqueue_once":
        record("enqueue_once")
        held.append(i)
    else:
        send({"id": i, "result": {}})
)";

// Runs kClusterAdapter in `mode` from a directory of its own; what it recorded is read with
// `recorded()`.
class ClusterAdapter {
 public:
  explicit ClusterAdapter(const std::string& mode)
      : directory_("thm_cluster_adapter"),
        script_(directory_.path() + "/adapter.py"),
        log_(directory_.path() + "/recorded.log") {
    std::ofstream(script_) << kClusterAdapter;
    command_ = "python3 " + script_ + " " + mode + " " + log_;
  }

  [[nodiscard]] const std::string& command() const { return command_; }
  // Every line the adapter recorded so far.
  [[nodiscard]] std::vector<std::string> recorded() const {
    std::vector<std::string> lines;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

 private:
  TemporaryDirectory directory_;
  std::string script_;
  std::string log_;
  std::string command_;
};

// What `call` throws ("" if it did not).
template <class Call>
std::string thrown(Call call) {
  try {
    call();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

// CTest runs these tests as processes of their own, several at a time: two adapters of one
// mode alive at once must keep their own script and log.
TEST(ExecHarnessTest, AdaptersOfOneModeAliveAtOnceKeepTheirOwnFiles) {
  const ClusterAdapter first("nodes");
  {
    const ClusterAdapter second("nodes");
    ExecHarness harness(second.command(), 10s);
    EXPECT_EQ(harness.node_count(), 3U);
  }
  ExecHarness harness(first.command(), 10s);
  EXPECT_EQ(harness.node_count(), 3U);
  EXPECT_EQ(first.recorded(), (std::vector<std::string>{"node_count -"}));
}

TEST(ExecHarnessTest, TheNodeCapabilitiesComeFromHello) {
  const ClusterAdapter adapter("nodes");
  ExecHarness harness(adapter.command(), 10s);
  EXPECT_TRUE(harness.capabilities().nodes);
  EXPECT_EQ(harness.capabilities().election_timeout, std::chrono::milliseconds(500));
  const ClusterAdapter plain("plain");
  ExecHarness single(plain.command(), 10s);
  EXPECT_FALSE(single.capabilities().nodes);
  EXPECT_EQ(single.capabilities().election_timeout, std::nullopt);
}

TEST(ExecHarnessTest, NodeOperationsAreForwardedWithTheirNodeAndAnswered) {
  const ClusterAdapter adapter("nodes");
  ExecHarness harness(adapter.command(), 10s);
  EXPECT_EQ(harness.node_count(), 3U);
  EXPECT_EQ(harness.leader(), 2U);
  harness.kill_node(2);
  harness.restart_node(2);
  harness.pause_node(1);
  harness.resume_node(1);
  harness.recover();
  EXPECT_EQ(adapter.recorded(),
            (std::vector<std::string>{"node_count -", "leader -", "kill_node 2", "restart_node 2",
                                      "pause_node 1", "resume_node 1", "recover -"}));
}

TEST(ExecHarnessTest, ANodeOperationIsNotHeldBehindASessionsRequest) {
  // The suite fails a node while sessions are enqueueing (EQ-28…EQ-30): the adapter answers
  // this session's enqueue only after it has answered a node operation.
  const ClusterAdapter adapter("nodes");
  ExecHarness harness(adapter.command(), 5s);
  const auto session = harness.open_session();
  std::optional<Result<EnqueueOutcome, QueueError>> answer;
  std::string caller_failure;
  std::thread caller([&] {
    caller_failure = thrown([&] {
      answer = session->enqueue_once(MentionTurnRequest{.key = {1},
                                                        .source_id = "alice",
                                                        .target_id = "bob",
                                                        .content = "@bob hi",
                                                        .child_hop = 1});
    });
  });
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (adapter.recorded().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  const std::string why = thrown([&] { harness.kill_node(0); });
  caller.join();
  EXPECT_EQ(why, "");
  EXPECT_EQ(caller_failure, "");
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->has_value() && std::holds_alternative<Enqueued>(**answer));
  EXPECT_EQ(adapter.recorded(), (std::vector<std::string>{"enqueue_once", "kill_node 0"}));
}

TEST(ExecHarnessTest, NodeOperationsOfAnAdapterWithoutNodesAreUnsupported) {
  const ClusterAdapter adapter("plain");
  ExecHarness harness(adapter.command(), 10s);
  EXPECT_THROW((void)harness.node_count(), Unsupported);
  EXPECT_THROW((void)harness.leader(), Unsupported);
  EXPECT_THROW(harness.kill_node(0), Unsupported);
  EXPECT_THROW(harness.restart_node(0), Unsupported);
  EXPECT_THROW(harness.pause_node(0), Unsupported);
  EXPECT_THROW(harness.resume_node(0), Unsupported);
  try {
    harness.recover();
    FAIL() << "recover was answered";
  } catch (const Unsupported& unsupported) {
    EXPECT_NE(std::string(unsupported.what()).find("this store runs on one node"),
              std::string::npos)
        << unsupported.what();
  }
  EXPECT_EQ(adapter.recorded().size(), 7U);  // asked, not assumed
}

TEST(ExecHarnessTest, ANodeOperationsFailureIsTheAdaptersOwnWords) {
  const ClusterAdapter adapter("leaderless");
  ExecHarness harness(adapter.command(), 10s);
  const std::string why = thrown([&] { harness.recover(); });
  EXPECT_NE(why.find("the adapter failed 'recover'"), std::string::npos) << why;
  EXPECT_NE(why.find("no leader after 20 s"), std::string::npos) << why;
}

TEST(ExecHarnessTest, ALeaderOutsideTheSchemaIsReportedWithTheOp) {
  for (const std::string mode : {"negative-leader", "text-leader"}) {
    const ClusterAdapter adapter(mode);
    ExecHarness harness(adapter.command(), 10s);
    const std::string why = thrown([&] { (void)harness.leader(); });
    EXPECT_NE(why.find("'leader'"), std::string::npos) << mode << ": " << why;
    EXPECT_NE(why.find("result.leader"), std::string::npos) << mode << ": " << why;
  }
}

TEST(ExecHarnessTest, ACommandThatCannotRunIsReported) {
  const std::string why = start_failure("/nonexistent/adapter --db x");
  EXPECT_NE(why.find("status 127"), std::string::npos) << why;
}

}  // namespace
}  // namespace thm::protocol
