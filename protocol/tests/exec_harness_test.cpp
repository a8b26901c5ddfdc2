// ExecHarness against adapters that break the protocol: each failure is reported with what
// the adapter did, never as a hang. (A correct adapter is proven end to end by the CTest
// `exec.memory`: the whole suite through `thm adapter memory`.)
#include "thm/protocol/exec_harness.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

namespace thm::protocol {
namespace {

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
  const std::string path = ::testing::TempDir() + "thm_hook_loop_adapter.py";
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
  std::remove(path.c_str());
}

TEST(ExecHarnessTest, ACommandThatCannotRunIsReported) {
  const std::string why = start_failure("/nonexistent/adapter --db x");
  EXPECT_NE(why.find("status 127"), std::string::npos) << why;
}

}  // namespace
}  // namespace thm::protocol
