// serve(): the adapter side of the protocol, over the in-memory reference harness.
#include "thm/protocol/serve.hpp"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "thm/memory/harness.hpp"

namespace thm::protocol {
namespace {

using Json = nlohmann::json;

// Serves `lines` to a fresh in-memory harness; the answers by id.
std::map<std::uint64_t, Json> served(const std::string& lines, int* status = nullptr,
                                     std::string* logged = nullptr) {
  memory::MemoryHarness harness;
  std::istringstream in(lines);
  std::ostringstream out;
  std::ostringstream log;
  const int code = serve(harness, in, out, log);
  if (status != nullptr) *status = code;
  if (logged != nullptr) *logged = log.str();
  std::map<std::uint64_t, Json> answers;
  std::istringstream written(out.str());
  for (std::string line; std::getline(written, line);) {
    const Json message = Json::parse(line);
    if (message.contains("id")) answers[message.at("id").get<std::uint64_t>()] = message;
  }
  return answers;
}

TEST(ServeTest, HelloDeclaresMultiplexedSessionsAndTheHarnessCapabilities) {
  const auto answers = served(R"({"id":1,"op":"hello","protocol":1})"
                              "\n");
  const Json& hello = answers.at(1).at("result");
  EXPECT_EQ(hello.at("sessions"), "multiplexed");
  EXPECT_EQ(hello.at("name"), "thm-memory");
  EXPECT_TRUE(hello.at("capabilities").at("hooks").get<bool>());
}

TEST(ServeTest, AnUnknownOperationIsUnsupportedNotAFailure) {
  const auto answers = served(R"({"id":2,"op":"frobnicate"})"
                              "\n");
  EXPECT_TRUE(answers.at(2).contains("unsupported")) << answers.at(2);
}

TEST(ServeTest, AnUndeclaredCapabilityIsUnsupported) {
  const auto answers = served(R"({"id":3,"op":"reopen"})"
                              "\n");  // memory is not persistent
  EXPECT_TRUE(answers.at(3).contains("unsupported")) << answers.at(3);
}

TEST(ServeTest, NodeOperationsOfAHarnessWithoutNodesAreUnsupported) {
  const auto answers = served(R"({"id":1,"op":"hello","protocol":1})"
                              "\n"
                              R"({"id":2,"op":"node_count"})"
                              "\n"
                              R"({"id":3,"op":"leader"})"
                              "\n"
                              R"({"id":4,"op":"kill_node","node":0})"
                              "\n"
                              R"({"id":5,"op":"restart_node","node":0})"
                              "\n"
                              R"({"id":6,"op":"pause_node","node":0})"
                              "\n"
                              R"({"id":7,"op":"resume_node","node":0})"
                              "\n"
                              R"({"id":8,"op":"recover"})"
                              "\n");
  const Json& declared = answers.at(1).at("result").at("capabilities");
  EXPECT_EQ(declared.at("nodes"), Json(false));
  EXPECT_EQ(declared.at("election_timeout"), Json(nullptr));
  for (std::uint64_t id = 2; id <= 8; ++id) {
    EXPECT_TRUE(answers.at(id).contains("unsupported")) << answers.at(id);
  }
}

TEST(ServeTest, LinesTheProtocolSaysToIgnoreAreLoggedIgnoredAndDoNotFailTheRun) {
  // PROTOCOL.md §1: a line that is not JSON, or has no id, is logged on stderr and ignored;
  // blank lines say nothing at all.
  using namespace std::string_literals;
  int status = -1;
  std::string log;
  const auto answers = served(
      "not json\n"
      "\n"
      "   \t\r\n"
      "[1,2]\n"
      "7\n"
      R"({"op":"reset"})"
      "\n"
      R"({"id":"five","op":"reset"})"
      "\n"
      R"({"id":3,"op":"reset"})"s +
          '\0' + "junk\n" +
          R"({"id":4,"op":"reset","a_key_of_a_later_version":{"x":1}})"
          "\n",
      &status, &log);
  EXPECT_EQ(status, 0) << log;
  EXPECT_EQ(answers.count(3), 0U);
  EXPECT_EQ(answers.at(4).at("result"), Json::object());
  EXPECT_NE(log.find("not json"), std::string::npos) << log;
  EXPECT_NE(log.find("ignored"), std::string::npos) << log;
  std::size_t lines = 0;
  for (const char c : log) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 6U) << log;  // one per ignored line; none for the blank ones
}

TEST(ServeTest, AHookReplyToNoHookBreaksTheProtocol) {
  int status = 0;
  const auto answers = served(R"({"hook_reply":9,"proceed":true})"
                              "\n"
                              R"({"id":4,"op":"reset"})"
                              "\n",
                              &status);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(answers.at(4).at("result"), Json::object());
}

}  // namespace
}  // namespace thm::protocol
