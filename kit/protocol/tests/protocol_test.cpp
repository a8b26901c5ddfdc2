#include "thm/protocol/protocol.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace thm::protocol {
namespace {

TEST(ProtocolTest, BytesAreAStringWhenUtf8AndBase64Otherwise) {
  EXPECT_EQ(bytes_to_json("héllo"), Json("héllo"));
  EXPECT_EQ(bytes_to_json(std::string("a\0b", 3)), Json(std::string("a\0b", 3)));
  EXPECT_EQ(bytes_to_json("\xff\xfe\xc3("), (Json{{"base64", "//7DKA=="}}));
}

TEST(ProtocolTest, Base64RoundTripsEveryByteAtEveryPaddingLength) {
  std::string all;
  for (int byte = 0; byte < 256; ++byte) all += static_cast<char>(byte);
  for (std::size_t length = 0; length <= all.size(); length += 1) {
    const std::string bytes = "\x80" + all.substr(0, length);  // never UTF-8
    const Json encoded = bytes_to_json(bytes);
    ASSERT_TRUE(encoded.is_object()) << length;
    EXPECT_EQ(bytes_from_json(encoded), bytes) << length;
  }
  EXPECT_EQ(bytes_from_json(Json{{"base64", ""}}), "");
}

TEST(ProtocolTest, MalformedBase64IsAProtocolError) {
  EXPECT_THROW((void)bytes_from_json(Json{{"base64", "abc"}}), ProtocolError);
  EXPECT_THROW((void)bytes_from_json(Json{{"base64", "ab!="}}), ProtocolError);
  EXPECT_THROW((void)bytes_from_json(Json{{"base64", "a=bc"}}), ProtocolError);
  EXPECT_THROW((void)bytes_from_json(Json(7)), ProtocolError);
}

TEST(ProtocolTest, RequestsAndRowsRoundTripByteForByte) {
  const MentionTurnRequest request{.key = {.trigger_sequence = 18'446'744'073'709'551'615ULL},
                                   .source_id = std::string("ann\0", 4),
                                   .target_id = "bob",
                                   .content = "\xff\xfe",
                                   .conversation = {.desk_id = "eng\xc3(", .thread_root = 7},
                                   .child_hop = 4'294'967'295U};
  EXPECT_EQ(request_from_json(to_json(request)), request);
  const ChildTurn row{.id = 3,
                      .key = "v1/5:eng\xc3(/t7/1",
                      .request = request,
                      .state = TurnState::Pending,
                      .attempts = 2,
                      .lease_expires_at = StoreTime{std::chrono::milliseconds{1'900'000'000'300}}};
  EXPECT_EQ(child_from_json(to_json(row)), row);
  validate(to_json(request), "request");
  validate(Json{{"children", Json::array({to_json(row)})}}, "result.children");
}

TEST(ProtocolTest, EveryAnswerRoundTrips) {
  for (const Result<EnqueueOutcome, QueueError>& answer :
       {Result<EnqueueOutcome, QueueError>{Enqueued{}},
        Result<EnqueueOutcome, QueueError>{Already{}},
        Result<EnqueueOutcome, QueueError>{Refused{EnqueueRefusal::TargetUnavailable}},
        Result<EnqueueOutcome, QueueError>{
            unexpected{QueueError{QueueErrorKind::TriggerMismatch, "content differs"}}}}) {
    const Json result = enqueue_result(answer);
    validate(result, "result.enqueue_once");
    EXPECT_EQ(enqueue_answer(result), answer);
  }
  const Result<std::optional<Lease>, LeaseError> stale{unexpected{LeaseError::StaleToken}};
  EXPECT_EQ(claim_answer(claim_result(stale)), stale);
  const Result<std::optional<Lease>, LeaseError> none{std::optional<Lease>{}};
  EXPECT_EQ(claim_answer(claim_result(none)), none);
  for (const TurnState state : kAllTurnStates) {
    const Result<TurnState, LeaseError> answer{state};
    EXPECT_EQ(state_answer(state_result(answer)), answer);
  }
}

// A child's state is one of thm's four tokens, on the wire as in the rows: a host maps its
// store's own names (a job queue's `active`, `retry`) onto them.
TEST(ProtocolTest, AStateIsOneOfThmsTokens) {
  const Result<TurnState, LeaseError> dead{TurnState::Dead};
  EXPECT_EQ(state_answer(Json{{"state", "dead"}}), dead);
  for (const Json& state : {Json("active"), Json("Pending"), Json(""), Json(1), Json(nullptr)}) {
    EXPECT_THROW((void)state_answer(Json{{"state", state}}), ProtocolError) << state;
  }
}

TEST(ProtocolTest, CapabilitiesRoundTripAndMissingFieldsReadAsNo) {
  const Capabilities full{.hooks = true,
                          .row_locking = true,
                          .persistent = true,
                          .sql_schema = true,
                          .max_content_bytes = 1024,
                          .max_id_bytes = 64,
                          .leases = true,
                          .injected_store_clock = true,
                          .max_attempts = 3,
                          .nodes = true,
                          .election_timeout = std::chrono::milliseconds(500)};
  EXPECT_EQ(capabilities_from_json(to_json(full)), full);
  EXPECT_EQ(capabilities_from_json(Json::object()), Capabilities{});
  validate(to_json(full), "capabilities");
  validate(to_json(Capabilities{}), "capabilities");
  EXPECT_EQ(to_json(Capabilities{}).at("nodes"), Json(false));
  EXPECT_EQ(to_json(Capabilities{}).at("election_timeout"), Json(nullptr));
}

TEST(ProtocolTest, AnElectionTimeoutIsAPositiveIntegerOfMillisecondsOrNull) {
  validate(Json{{"nodes", true}, {"election_timeout", nullptr}}, "capabilities");
  for (const Json& bad : {Json(0), Json(-500), Json("500"), Json(0.5), Json(true)}) {
    EXPECT_THROW(validate(Json{{"nodes", true}, {"election_timeout", bad}}, "capabilities"),
                 ProtocolError)
        << bad;
  }
  EXPECT_THROW(validate(Json{{"nodes", "yes"}}, "capabilities"), ProtocolError);
  // The reader holds the same line for a value it is given without the schema.
  EXPECT_EQ(
      capabilities_from_json(Json::parse(R"({"election_timeout": 4294967295})")).election_timeout,
      std::chrono::milliseconds(4'294'967'295));
  for (const char* bad : {"0", "-1", "4294967296", "18446744073709551615", "\"500\"", "1.5"}) {
    EXPECT_THROW((void)capabilities_from_json(
                     Json::parse(std::string(R"({"election_timeout": )") + bad + "}")),
                 ProtocolError)
        << bad;
  }
}

TEST(ProtocolTest, NodeOperationsTakeANodeAndAnswerExactly) {
  for (const char* op : {"kill_node", "restart_node", "pause_node", "resume_node"}) {
    validate(Json{{"id", 1}, {"op", op}, {"node", 2}}, std::string("request.") + op);
    EXPECT_THROW(validate(Json{{"id", 1}, {"op", op}}, std::string("request.") + op), ProtocolError)
        << op;
    EXPECT_THROW(validate(Json{{"id", 1}, {"op", op}, {"node", -1}}, std::string("request.") + op),
                 ProtocolError)
        << op;
    validate(Json::object(), std::string("result.") + op);
  }
  for (const char* op : {"node_count", "leader", "recover"}) {
    validate(Json{{"id", 1}, {"op", op}}, std::string("request.") + op);
  }
  validate(Json::object(), "result.recover");
  validate(Json{{"count", 3}}, "result.node_count");
  for (const Json& bad :
       {Json::object(), Json{{"count", 1}}, Json{{"count", "3"}}, Json{{"count", 2.5}}}) {
    EXPECT_THROW(validate(bad, "result.node_count"), ProtocolError) << bad;
  }
  validate(Json{{"node", 0}}, "result.leader");
  for (const Json& bad : {Json::object(), Json{{"node", -1}}, Json{{"node", "2"}},
                          Json{{"node", nullptr}}, Json{{"node", 4294967296}}}) {
    EXPECT_THROW(validate(bad, "result.leader"), ProtocolError) << bad;
  }
}

TEST(ProtocolTest, ValidationNamesTheDefinitionAndTheOffendingKey) {
  try {
    validate(Json{{"outcome", {{"status", "queued"}}}}, "result.enqueue_once");
    FAIL() << "an unknown status passed";
  } catch (const ProtocolError& error) {
    EXPECT_NE(std::string(error.what()).find("result.enqueue_once"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(validate(Json{{"id", 1}, {"result", Json::object()}, {"failure", "x"}}, "response"),
               ProtocolError);
  EXPECT_THROW(validate(Json{{"hook", 1}, {"point", "after_lunch"}}, "hook_call"), ProtocolError);
  EXPECT_THROW(validate(Json::object(), "no.such.definition"), ProtocolError);
}

TEST(ProtocolTest, EveryDefinitionCompilesAndEveryRequestHasAResult) {
  const Json schema = Json::parse(schema_text());
  std::size_t operations = 0;
  for (const auto& [definition, body] : schema.at("definitions").items()) {
    // valijson throws its own exception for a definition it cannot compile; a ProtocolError
    // here may only say that null is not a valid message of that kind.
    try {
      validate(Json(nullptr), definition);
    } catch (const ProtocolError& error) {
      EXPECT_TRUE(std::string(error.what()).starts_with("not a valid " + definition))
          << error.what();
    }
    if (definition.starts_with("request.")) {
      ++operations;
      const std::string op = definition.substr(8);
      EXPECT_TRUE(is_operation(op)) << op;
      EXPECT_TRUE(schema.at("definitions").contains("result." + op)) << op << " has no result";
    }
  }
  // PROTOCOL.md §4: hello, 15 harness, 7 node and 7 session operations
  EXPECT_EQ(operations, 30U);
  EXPECT_FALSE(is_operation("frobnicate"));
}

}  // namespace
}  // namespace thm::protocol
