#include "thm/json/json.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

namespace thm::json {
namespace {

// A WireWriter that checks what a writer is promised: each container gets exactly the
// number of values its begin announced, and in an object each value follows its key.
// It also counts the values written, containers included.
class CheckingWriter final : public WireWriter {
 public:
  void null() override { value(); }
  void boolean(bool) override { value(); }
  void number(std::uint64_t) override { value(); }
  void string(std::string_view) override { value(); }
  void begin_array(std::size_t size) override { begin(size, false); }
  void end_array() override { end(false); }
  void begin_object(std::size_t size) override { begin(size, true); }
  void key(std::string_view) override {
    ASSERT_FALSE(open_.empty());
    EXPECT_TRUE(open_.back().object) << "a key in an array";
    EXPECT_FALSE(open_.back().keyed) << "two keys in a row";
    open_.back().keyed = true;
  }
  void end_object() override { end(true); }

  std::size_t values = 0;
  [[nodiscard]] bool closed() const { return open_.empty(); }

 private:
  struct Open {
    bool object;
    std::size_t announced;
    std::size_t written = 0;
    bool keyed = false;
  };
  void value() {
    ++values;
    if (open_.empty()) return;
    Open& into = open_.back();
    if (into.object) {
      EXPECT_TRUE(into.keyed) << "a member without a key";
      into.keyed = false;
    }
    ++into.written;
  }
  void begin(std::size_t size, bool object) {
    value();
    open_.push_back({.object = object, .announced = size});
  }
  void end(bool object) {
    ASSERT_FALSE(open_.empty());
    EXPECT_EQ(open_.back().object, object) << "a container closed as the other kind";
    EXPECT_EQ(open_.back().written, open_.back().announced) << "not the size announced";
    open_.pop_back();
  }
  std::vector<Open> open_;
};

// How many values `tree` holds, itself and its containers' included.
std::size_t count_values(const Value& tree) {
  std::size_t out = 1;
  for (const auto& item : tree) {
    if (tree.is_structured()) out += count_values(item);
  }
  return out;
}

// Decodes `text` as T and checks that the canonical encoding is exactly `text`, and that
// `write` keeps its promises to a writer, value for value with the tree.
template <WireType T>
void expect_golden(const std::string& text) {
  SCOPED_TRACE(text);
  const auto decoded = decode<T>(text);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().path << ": " << decoded.error().reason;
  EXPECT_EQ(encode(*decoded), text);
  CheckingWriter checking;
  write(*decoded, checking);
  EXPECT_TRUE(checking.closed());
  EXPECT_EQ(checking.values, count_values(to_value(*decoded)));
}

template <WireType T>
DecodeError decode_error(const std::string& text) {
  const auto decoded = decode<T>(text);
  EXPECT_FALSE(decoded.has_value()) << text;
  return decoded.has_value() ? DecodeError{} : decoded.error();
}

// ---- SPEC §6 examples, byte for byte ------------------------------------------------------

TEST(JsonGoldenTest, MentionTargetsAndAuthors) {
  expect_golden<MentionTarget>(R"({"kind":"agent","id":"alice"})");
  expect_golden<MentionTarget>(R"({"kind":"person","id":"p1"})");
  expect_golden<MentionTarget>(R"({"kind":"desk","id":"eng"})");
  expect_golden<MentionTarget>(R"({"kind":"everyone"})");
  expect_golden<MentionAuthor>(R"({"kind":"person","id":"p1"})");
  expect_golden<MentionAuthor>(R"({"kind":"other"})");
  expect_golden<MentionAuthor>(R"({"kind":"agent","id":"a"})");
}

TEST(JsonGoldenTest, MentionOmitsQuietOnlyWhenFalse) {
  expect_golden<Mention>(R"({"target":{"kind":"agent","id":"alice"},"text":"@alice","offset":2})");
  expect_golden<Mention>(
      R"({"target":{"kind":"agent","id":"alice"},"text":"@alice","offset":2,"quiet":true})");
  const auto explicit_false = decode<Mention>(
      R"({"target":{"kind":"agent","id":"alice"},"text":"@alice","offset":2,"quiet":false})");
  ASSERT_TRUE(explicit_false.has_value());
  EXPECT_EQ(encode(*explicit_false),
            R"({"target":{"kind":"agent","id":"alice"},"text":"@alice","offset":2})");
}

TEST(JsonGoldenTest, RosterAndDeskRows) {
  expect_golden<RosterMember>(R"({"id":"alice","name":null})");
  expect_golden<Person>(R"({"id":"p1","label":"Ada"})");
  expect_golden<Desk>(
      R"({"id":"engineering","name":"Engineering","description":"Builds the product","members":["alice","bob"]})");
  expect_golden<Desk>(
      R"({"id":"engineering","name":"Engineering","description":null,"members":[],"responder_mode":"auto"})");
  expect_golden<DeskMember>(R"({"desk_id":"engineering","agent_id":"bob"})");
  expect_golden<DeskOrder>(R"({"desk_id":"engineering","ordered":["bob","alice"]})");
}

TEST(JsonGoldenTest, LeadModeIsOmittedAndOptionalOnInput) {
  const auto lead = decode<Desk>(
      R"({"id":"e","name":"E","description":null,"members":[],"responder_mode":"lead"})");
  ASSERT_TRUE(lead.has_value());
  EXPECT_EQ(lead->responder_mode, ResponderMode::Lead);
  EXPECT_EQ(encode(*lead), R"({"id":"e","name":"E","description":null,"members":[]})");
}

TEST(JsonGoldenTest, ResponderTypes) {
  expect_golden<SelectorCandidate>(
      R"({"id":"alice","label":"Alice","role":"Reviewer","description":"Checks changes"})");
  expect_golden<SelectionPolicy>(R"("allowed")");
  expect_golden<SelectionPolicy>(R"("disabled")");
  expect_golden<ResponderRequest>(
      R"({"message":"Please review","chat":"eng","mentions":[],"orchestrator_id":"orch","selection_policy":"allowed"})");
  expect_golden<ResponderRequest>(
      R"({"message":"Please review","chat":"eng","mentions":[],"orchestrator_id":"orch","selection_policy":"allowed","thread_responder":"alice"})");
  expect_golden<SelectionRequest>(
      R"({"message":"Please review","desk_id":"eng","candidates":[{"id":"a","label":"A","role":"R","description":null}]})");
  for (const char* rung : {"explicit_mention", "auto_selection", "desk_default", "direct_agent",
                           "orchestrator", "thread_responder"}) {
    expect_golden<ResponderRung>('"' + std::string(rung) + '"');
  }
  for (const char* disposition :
       {"not_applicable", "selected", "disabled", "unavailable", "invalid_output"}) {
    expect_golden<SelectionDisposition>('"' + std::string(disposition) + '"');
  }
  expect_golden<ResponderDecision>(
      R"({"responder_id":"alice","rung":"auto_selection","disposition":"selected"})");
  expect_golden<ResponderPlan>(
      R"({"kind":"decided","decision":{"responder_id":"alice","rung":"orchestrator","disposition":"not_applicable"}})");
  expect_golden<ResponderPlan>(
      R"({"kind":"select","request":{"message":"m","desk_id":"eng","candidates":[]},"fallback":{"responder_id":"alice","rung":"desk_default","disposition":"unavailable"}})");
  expect_golden<Probability>("900000");
  expect_golden<SelectionEvaluation>(
      R"({"choice":"alice","probabilities":[{"candidate_id":"alice","probability":1000000}],"confidence":900000})");
}

TEST(JsonGoldenTest, DispatchTypes) {
  expect_golden<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":2})");
  expect_golden<DispatchKey>(R"({"trigger_sequence":41})");
  expect_golden<DispatchConversation>(R"({"desk_id":"eng","thread_root":7})");
  expect_golden<DispatchConversation>(R"({"desk_id":"eng","thread_root":null})");
  expect_golden<MentionDispatchInput>(
      R"({"key":{"trigger_sequence":41},"conversation":{"desk_id":"eng","thread_root":7},"author_id":"alice","content":"handoff","mentions":[{"target":{"kind":"agent","id":"bob"},"text":"@bob","offset":0}],"hop":0})");
  expect_golden<MentionTurnRequest>(
      R"({"key":{"trigger_sequence":41},"source_id":"alice","target_id":"bob","content":"handoff","conversation":{"desk_id":"eng","thread_root":7},"child_hop":1})");
  for (const char* reason :
       {"disabled", "hop_limit_reached", "source_inactive", "no_direct_agent_mention",
        "self_mention", "target_inactive", "hop_overflow", "immediate_return", "agent_turns_spent",
        "handoff_not_allowed"}) {
    expect_golden<NoDispatchReason>('"' + std::string(reason) + '"');
  }
  expect_golden<MentionDispatchDecision>(R"({"kind":"none","reason":"self_mention"})");
  expect_golden<MentionDispatchDecision>(
      R"({"kind":"one","request":{"key":{"trigger_sequence":41},"source_id":"alice","target_id":"bob","content":"handoff","conversation":{"desk_id":"eng","thread_root":7},"child_hop":1}})");
  expect_golden<MentionDispatchContext>(R"({"policy":{"enabled":true,"max_hops":2},"hop":1})");
  // The chain's shape (SPEC §3.1): written only when on, so the forms above are unchanged.
  expect_golden<Handoff>(R"({"source_id":"supervisor","target_id":"researcher"})");
  expect_golden<MentionDispatchPolicy>(
      R"({"enabled":true,"max_hops":8,"no_return":true,"max_turns_per_agent":2,"allowed_handoffs":[{"source_id":"a","target_id":"b"}]})");
  expect_golden<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":8,"allowed_handoffs":[]})");
  expect_golden<MentionDispatchInput>(
      R"({"key":{"trigger_sequence":41},"conversation":{"desk_id":"eng","thread_root":7},"author_id":"alice","content":"handoff","mentions":[],"hop":2,"chain":["orch","bob"]})");
  expect_golden<MentionDispatchContext>(
      R"({"policy":{"enabled":true,"max_hops":2,"no_return":true},"hop":1,"chain":["bob"]})");
  expect_golden<Conversation>(
      R"({"desk_id":"engineering","desk_name":"Engineering","thread_root":null})");
}

TEST(JsonGoldenTest, QueueTypes) {
  for (const char* refusal : {"unauthorized", "target_unavailable", "feature_disabled"}) {
    expect_golden<EnqueueRefusal>('"' + std::string(refusal) + '"');
  }
  expect_golden<EnqueueOutcome>(R"({"status":"enqueued"})");
  expect_golden<EnqueueOutcome>(R"({"status":"already"})");
  expect_golden<EnqueueOutcome>(R"({"status":"refused","reason":"unauthorized"})");
  expect_golden<MentionDispatchOutcome>(R"({"status":"not_dispatched","reason":"disabled"})");
  expect_golden<MentionDispatchOutcome>(R"({"status":"enqueued"})");
  expect_golden<MentionDispatchOutcome>(R"({"status":"already"})");
  expect_golden<MentionDispatchOutcome>(R"({"status":"refused","reason":"feature_disabled"})");
  expect_golden<QueueError>(R"({"kind":"trigger_mismatch","message":"content differs"})");
}

TEST(JsonGoldenTest, SnapshotsAndSelectorResults) {
  expect_golden<RosterSnapshot>(
      R"({"members":[{"id":"a","name":"A"}],"people":[{"id":"p","label":"P"}],"retired":["x"],"tombstoned":[]})");
  expect_golden<DeskSnapshot>(
      R"({"declared":[],"added":[],"member_additions":[{"desk_id":"d","agent_id":"a"}],"orders":[],"retired":[],"tombstoned":["t"]})");
  expect_golden<SelectorResult>(R"({"kind":"absent"})");
  expect_golden<SelectorResult>(R"({"kind":"failed"})");
  expect_golden<SelectorResult>(R"({"kind":"text","output":"bob."})");
  expect_golden<SelectorResult>(
      R"({"kind":"evaluation","evaluation":{"choice":"a","probabilities":[],"confidence":1},"minimum_confidence":0})");
}

TEST(JsonGoldenTest, BriefingTypes) {
  expect_golden<BriefedTeammate>(
      R"({"id":"bob","label":"Bob","role":null,"description":"Reviews changes"})");
  expect_golden<TeamBriefing>(
      R"({"viewer_id":"alice","desk_id":"engineering","desk_name":"Engineering","teammates":[],"brevity":{"message_chars":600,"window":30}})");
  const auto v1 = decode<TeamBriefing>(
      R"({"viewer_id":"alice","desk_id":"engineering","desk_name":"Engineering","teammates":[{"id":"bob","label":"Bob","role":null,"description":null}]})");
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->brevity, Brevity{});
  EXPECT_EQ(
      encode(*v1),
      R"({"viewer_id":"alice","desk_id":"engineering","desk_name":"Engineering","teammates":[{"id":"bob","label":"Bob","role":null,"description":null}],"brevity":{"message_chars":600,"window":30}})");
  EXPECT_EQ(decode_error<BriefedTeammate>(R"({"id":"bob","label":"Bob","description":null})").path,
            "/role");
}

// ---- integers are exact (SPEC §0.5) --------------------------------------------------------

TEST(JsonIntegerTest, U64RoundTripsExactly) {
  expect_golden<DispatchKey>(R"({"trigger_sequence":18446744073709551615})");
  expect_golden<DispatchKey>(R"({"trigger_sequence":9007199254740993})");  // not a double
  expect_golden<DispatchConversation>(R"({"desk_id":"d","thread_root":18446744073709551615})");
}

TEST(JsonIntegerTest, U32FieldsStopAtU32Max) {
  expect_golden<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":4294967295})");
  const DecodeError error =
      decode_error<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":4294967296})");
  EXPECT_EQ(error.path, "/max_hops");
  EXPECT_NE(error.reason.find("range"), std::string::npos);
}

TEST(JsonIntegerTest, BeyondU64IsAnError) {
  EXPECT_EQ(decode_error<DispatchKey>(R"({"trigger_sequence":18446744073709551616})").path,
            "/trigger_sequence");
}

TEST(JsonIntegerTest, NegativeFractionalAndExponentIntegersAreErrors) {
  for (const char* hop : {"-1", "2.0", "2.5", "1e3", "1E0", "-0.0"}) {
    SCOPED_TRACE(hop);
    const auto error = decode_error<MentionDispatchContext>(
        std::string(R"({"policy":{"enabled":true,"max_hops":2},"hop":)") + hop + "}");
    EXPECT_EQ(error.path, "/hop");
  }
}

TEST(JsonIntegerTest, ErrorReasonsSayWhatIsWrong) {
  EXPECT_NE(decode_error<DispatchKey>(R"({"trigger_sequence":-0})").reason.find("minus"),
            std::string::npos);
  EXPECT_NE(decode_error<Probability>("4294967296").reason.find("1000000"), std::string::npos);
}

TEST(JsonIntegerTest, ProbabilityOverTheScaleIsAnError) {
  EXPECT_EQ(decode_error<Probability>("1000001").path, "");
  expect_golden<Probability>("1000000");
  expect_golden<Probability>("0");
  EXPECT_EQ(
      decode_error<SelectionEvaluation>(
          R"({"choice":"a","probabilities":[{"candidate_id":"a","probability":1000001}],"confidence":1})")
          .path,
      "/probabilities/0/probability");
}

// ---- each decode error kind, with its JSON Pointer ------------------------------------------

TEST(JsonDecodeErrorTest, MissingRequiredKeyPointsWhereItShouldBe) {
  EXPECT_EQ(decode_error<MentionDispatchPolicy>(R"({"enabled":true})").path, "/max_hops");
  EXPECT_EQ(
      decode_error<MentionDispatchContext>(R"({"policy":{"enabled":true,"max_hops":2}})").path,
      "/hop");
  EXPECT_EQ(decode_error<DispatchConversation>(R"({"desk_id":"eng"})").path, "/thread_root");
  EXPECT_EQ(decode_error<RosterMember>(R"({"id":"a"})").path, "/name");
}

TEST(JsonDecodeErrorTest, NullIsNotAbsentAndNotAValue) {
  EXPECT_EQ(decode_error<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":null})").path,
            "/max_hops");
  EXPECT_EQ(decode_error<Mention>(
                R"({"target":{"kind":"everyone"},"text":"@here","offset":0,"quiet":null})")
                .path,
            "/quiet");
}

TEST(JsonDecodeErrorTest, WrongTypesAreErrors) {
  EXPECT_EQ(decode_error<MentionDispatchPolicy>(R"({"enabled":"yes","max_hops":2})").path,
            "/enabled");
  EXPECT_EQ(decode_error<MentionDispatchPolicy>(R"([true,2])").path, "");
  EXPECT_EQ(decode_error<RosterMember>(R"({"id":7,"name":null})").path, "/id");
  EXPECT_EQ(decode_error<DeskOrder>(R"({"desk_id":"d","ordered":["a",3]})").path, "/ordered/1");
}

TEST(JsonDecodeErrorTest, UnknownEnumTokensAndTagsAreErrors) {
  EXPECT_EQ(decode_error<MentionTarget>(R"({"kind":"robot","id":"x"})").path, "/kind");
  EXPECT_EQ(decode_error<EnqueueOutcome>(R"({"status":"not_dispatched","reason":"disabled"})").path,
            "/status");
  EXPECT_EQ(decode_error<NoDispatchReason>(R"("Disabled")").path, "");
  EXPECT_EQ(
      decode_error<ResponderRequest>(
          R"({"message":"m","chat":null,"mentions":[],"orchestrator_id":"o","selection_policy":"sometimes"})")
          .path,
      "/selection_policy");
}

TEST(JsonDecodeErrorTest, RefusedWithoutReasonIsAnError) {
  EXPECT_EQ(decode_error<EnqueueOutcome>(R"({"status":"refused"})").path, "/reason");
}

TEST(JsonDecodeErrorTest, RepeatedKeysAreErrorsAtTheirPath) {
  EXPECT_EQ(
      decode_error<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":2,"max_hops":3})").path,
      "/max_hops");
  EXPECT_EQ(
      decode_error<MentionDispatchInput>(
          R"({"key":{"trigger_sequence":1},"conversation":{"desk_id":"a","thread_root":null},"author_id":"x","content":"c","mentions":[{"target":{"kind":"agent","id":"b","id":"c"},"text":"@b","offset":0}],"hop":0})")
          .path,
      "/mentions/0/target/id");
}

TEST(JsonDecodeErrorTest, MalformedJsonIsAnError) {
  for (const char* text : {"", "{", "{\"enabled\":tru}", "[1,]", "\"\xff\"", "{} {}"}) {
    SCOPED_TRACE(text);
    const auto error = decode_error<MentionDispatchPolicy>(text);
    EXPECT_FALSE(error.reason.empty());
  }
}

TEST(JsonDecodeErrorTest, UnknownKeysAreIgnored) {
  const auto policy =
      decode<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":2,"future":{"x":1}})");
  ASSERT_TRUE(policy.has_value());
  EXPECT_EQ(*policy, (MentionDispatchPolicy{.enabled = true, .max_hops = 2}));
}

TEST(JsonParseTest, RepeatedKeysCanBeRecordedInsteadOfRefused) {
  std::vector<std::string> repeated;
  const auto tree =
      parse(R"([{"a":1},{"b":{"c":1,"c":{"d":2}},"e/f":[0,{"g~":1,"g~":2}]}])", &repeated);
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(repeated, (std::vector<std::string>{"/1/b/c", "/1/e~1f/1/g~0"}));
  EXPECT_EQ((*tree)[1]["b"]["c"], 1);  // the first value is kept
}

TEST(JsonParseTest, RepeatedKeysUnderARepeatedKeyKeepTheirPaths) {
  // The value of a repeated key opens frames of its own (the frame list grows, and moves)
  // before the inner repeat asks for its path: that path must still name the outer key.
  std::vector<std::string> repeated;
  const auto tree = parse(R"({"a":0,"a":{"b":0,"b":[{"c":1,"c":2}]}})", &repeated);
  ASSERT_TRUE(tree.has_value());
  EXPECT_EQ(repeated, (std::vector<std::string>{"/a", "/a/b", "/a/b/0/c"}));
  EXPECT_EQ((*tree)["a"], 0);
}

TEST(JsonParseTest, DeepNestingIsRefusedNotACrash) {
  const std::string deep = std::string(100'000, '[') + std::string(100'000, ']');
  const auto tree = parse(deep);
  ASSERT_FALSE(tree.has_value());
  EXPECT_NE(tree.error().reason.find("nested"), std::string::npos);
  std::vector<std::string> repeated;
  EXPECT_FALSE(parse(deep, &repeated).has_value());
  const std::string fine = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_TRUE(parse(fine).has_value());
  const std::string one_more = "[" + fine + "]";
  EXPECT_FALSE(parse(one_more).has_value());
}

TEST(JsonParseTest, AByteOrderMarkIsRefused) {
  EXPECT_FALSE(parse("\xEF\xBB\xBF{}").has_value());
  EXPECT_TRUE(parse(" {} ").has_value());
}

TEST(JsonParseTest, ANulByteAndWhatFollowsItAreTrailingBytesNotTheEnd) {
  // SPEC §0.5: a document that says two things is refused. nlohmann's lexer takes a NUL
  // byte for the end of the input; the reader must not.
  using namespace std::string_literals;
  for (const std::string& text :
       {R"({"chat":"main"})"s + '\0' + R"({"chat":"x"})", R"({"chat":"main"})"s + '\0',
        "[1]"s + '\0' + "garbage", "1 "s + '\0' + " 2"}) {
    SCOPED_TRACE(text);
    const auto tree = parse(text);
    ASSERT_FALSE(tree.has_value());
    EXPECT_EQ(tree.error().path, "");
    EXPECT_NE(tree.error().reason.find("trailing bytes after the JSON value"), std::string::npos)
        << tree.error().reason;
    std::vector<std::string> repeated;
    EXPECT_FALSE(parse(text, &repeated).has_value());
  }
  // Inside a value a raw NUL is malformed JSON, as any other control character is.
  EXPECT_FALSE(parse("{\"a\":\"x"s + '\0' + "y\"}").has_value());
  EXPECT_FALSE(parse("[1,"s + '\0' + "2]").has_value());
  EXPECT_FALSE(
      decode<MentionDispatchPolicy>(R"({"enabled":true,"max_hops":2})"s + '\0').has_value());
}

TEST(JsonParseTest, RootPathPrefixesErrors) {
  const auto tree = parse(R"({"max_hops":-3,"enabled":true})");
  ASSERT_TRUE(tree.has_value());
  const auto policy = from_value<MentionDispatchPolicy>(*tree, "/input/policy");
  ASSERT_FALSE(policy.has_value());
  EXPECT_EQ(policy.error().path, "/input/policy/max_hops");
}

TEST(JsonErrorValueTest, DeskAndLadderErrorsAreFlat) {
  const Value order =
      error_value(DeskError{IncompleteOrder{.desk_id = "eng", .missing_agent_id = "bob"}});
  EXPECT_EQ(order["variant"], "IncompleteOrder");
  EXPECT_EQ(order["desk_id"], "eng");
  EXPECT_EQ(order["missing_agent_id"], "bob");
  EXPECT_EQ(error_value(ResponderError{RosterError{EmptyPersonId{}}})["variant"], "EmptyPersonId");
  EXPECT_EQ(error_value(ResponderError{NoActiveResponder{"orch"}})["agent_id"], "orch");
  EXPECT_EQ(error_value(BriefingError{DeskError{UnknownDesk{"ops"}}})["identity"], "ops");
}

TEST(JsonErrorValueTest, CoreAndHostErrorsKeepTheirFields) {
  EXPECT_EQ(error_value(RosterError{DuplicateRosterMemberId{"x"}})["member_id"], "x");
  const Value core = error_value(DispatchMentionError{CoreFailure{DuplicatePersonId{"p"}}});
  EXPECT_EQ(core["variant"], "Core");
  EXPECT_EQ(core["core"]["variant"], "DuplicatePersonId");
  EXPECT_EQ(core["core"]["person_id"], "p");
  const Value host = error_value(DispatchMentionError{
      EnqueueFailure{{.kind = QueueErrorKind::Unavailable, .message = "down"}}});
  EXPECT_EQ(host, (Value{{"variant", "Enqueue"}, {"kind", "unavailable"}, {"message", "down"}}));
}

// A host's reader over a tree, as a language package reads its own values: a binary value
// stands for one JSON cannot say ("a blob"), refused wherever the decoder reads it, and
// named inside an array the decoder refused.
class BlobReader final : public WireReader {
 public:
  Look look(Node node) override {
    const Value& j = value(node);
    if (j.is_binary()) return {.kind = Kind::Unsaid};
    if (j.is_null()) return {.kind = Kind::Null};
    if (j.is_boolean()) return {.kind = Kind::Boolean, .boolean = j.get<bool>()};
    if (j.is_number_unsigned()) return {.kind = Kind::Unsigned, .number = j.get<std::uint64_t>()};
    if (j.is_number_integer()) return {.kind = Kind::Negative};
    if (j.is_number_float()) return {.kind = Kind::Fraction};
    if (j.is_string()) return {.kind = Kind::String, .text = j.get_ref<const std::string&>()};
    if (j.is_array()) return {.kind = Kind::Array, .size = j.size()};
    return {.kind = Kind::Object};
  }
  Node element(Node array, std::size_t index) override { return {.value = &value(array)[index]}; }
  std::optional<Node> member(Node object, std::string_view key) override {
    ++lookups;
    const auto found = value(object).find(key);
    if (found == value(object).end()) return std::nullopt;
    return Node{.value = &*found, .key = key};
  }
  std::optional<Unsaid> unsaid(Node refused, std::size_t depth) override {
    depths.push_back(depth);
    const Value& j = value(refused);
    if (j.is_binary()) return Unsaid{.below = "", .reason = "a blob"};
    for (std::size_t i = 0; j.is_array() && i < j.size(); ++i) {
      if (j[i].is_binary()) return Unsaid{.below = "/" + std::to_string(i), .reason = "a blob"};
    }
    return std::nullopt;
  }
  std::size_t lookups = 0;
  std::vector<std::size_t> depths;

 private:
  static const Value& value(Node node) { return *static_cast<const Value*>(node.value); }
};

TEST(JsonReaderTest, AReaderDecodesAsTheTreeDoesAndLooksUpOnlyKnownKeys) {
  const auto tree = parse(
      R"({"key":{"trigger_sequence":18446744073709551615},"conversation":{"desk_id":"d",)"
      R"("thread_root":7},"author_id":"a","content":"hi","mentions":[{"target":{"kind":"agent",)"
      R"("id":"b"},"text":"@b","offset":0}],"hop":1,"extra":[1,2,3],"more":{"x":1}})");
  ASSERT_TRUE(tree.has_value());
  BlobReader reader;
  const auto read = from_reader<MentionDispatchInput>(reader, {.value = &*tree}, "/input");
  ASSERT_TRUE(read.has_value()) << read.error().path << ": " << read.error().reason;
  EXPECT_EQ(*read, *from_value<MentionDispatchInput>(*tree));
  // The seven keys of the input, one of the key, two of the conversation, and four of the
  // mention (`quiet` is looked for) and two of its target: never `extra` or `more`.
  EXPECT_EQ(reader.lookups, 16U);
}

TEST(JsonReaderTest, AValueJsonCannotSayIsRefusedWhereItIsWithTheReadersReason) {
  Value roster = *parse(R"({"members":[{"id":"a","name":null}],"people":[],"retired":[],)"
                        R"("tombstoned":[],"unknown":null})");
  roster["unknown"] = Value::binary({});  // ignored: an unknown key
  BlobReader reader;
  EXPECT_TRUE(from_reader<RosterSnapshot>(reader, {.value = &roster}).has_value());
  roster["members"][0]["name"] = Value::binary({});
  auto refused = from_reader<RosterSnapshot>(reader, {.value = &roster}, "/roster");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error(),
            (DecodeError{.path = "/roster/members/0/name", .reason = "not JSON: a blob"}));
  // Refused for its type, an array is explained by what it holds, where it holds it.
  roster["members"][0]["name"] = nullptr;
  roster["people"] = Value::array({Value::array({1, Value::binary({})})});
  refused = from_reader<RosterSnapshot>(reader, {.value = &roster}, "/roster");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error(),
            (DecodeError{.path = "/roster/people/0/1", .reason = "not JSON: a blob"}));
  EXPECT_EQ(reader.depths.back(), 2U);  // people/0, two levels below the root
  // Refused for anything else, it is the decoder's own error.
  roster["people"] = Value::array({Value::array({1, 2})});
  refused = from_reader<RosterSnapshot>(reader, {.value = &roster}, "/roster");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error(),
            (DecodeError{.path = "/roster/people/0", .reason = "expected an object"}));
}

}  // namespace
}  // namespace thm::json

// Every wire type has one name, and the name finds exactly that type.
TEST(WireTypeNamesTest, EachNameVisitsItsOwnTypeAndNoOther) {
  std::set<std::string_view> seen;
  std::size_t index = 0;
  std::apply(
      [&](auto... tags) {
        (
            [&]<class T>(std::type_identity<T>) {
              const std::string_view name = thm::json::kWireTypeNames[index++];
              EXPECT_TRUE(seen.insert(name).second) << name << " is named twice";
              bool found_itself = false;
              EXPECT_TRUE(thm::json::visit_wire_type(name, [&]<class U>(std::type_identity<U>) {
                found_itself = std::is_same_v<T, U>;
              })) << name;
              EXPECT_TRUE(found_itself) << name << " visits another type";
            }(tags),
            ...);
      },
      [] {
        return []<class... Ts>(std::tuple<Ts...>*) {
          return std::tuple<std::type_identity<Ts>...>{};
        }(static_cast<thm::json::WireTypes*>(nullptr));
      }());
  EXPECT_EQ(seen.size(), std::tuple_size_v<thm::json::WireTypes>);
  EXPECT_FALSE(thm::json::visit_wire_type("Roster", [](auto) {}));
  EXPECT_FALSE(thm::json::visit_wire_type("", [](auto) {}));
}
