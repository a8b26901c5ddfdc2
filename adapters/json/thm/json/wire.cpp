// SPEC §6 wire forms: one `read` and one `write` per type. Readers never throw: they check
// each JSON type before touching it and report the first problem with its JSON Pointer.
#include <concepts>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "thm/json/json.hpp"
#include "thm/json/pointer.hpp"

namespace thm::json {
namespace {

// The integer fields of the wire forms: unsigned, and never a bool (which is its own type).
template <class T>
concept WireUnsigned = std::unsigned_integral<T> && !std::same_as<T, bool>;
// The enums written as their snake_case token.
template <class E>
concept WireEnum = std::is_enum_v<E>;

// Walks a tree, keeping the JSON Pointer of the value being read and the first error.
class Reader {
 public:
  explicit Reader(std::string_view root) : path_(root) {}

  [[nodiscard]] bool ok() const { return !error_.has_value(); }
  void fail(std::string reason) {
    if (ok()) error_ = DecodeError{.path = path_, .reason = std::move(reason)};
  }
  [[nodiscard]] DecodeError error() && { return *std::move(error_); }

  // Runs `read_child` with the path extended by one segment.
  template <class F>
  void at(std::string_view segment, F&& read_child) {
    if (!ok()) return;
    const std::size_t length = path_.size();
    path_ += '/';
    path_ += escape_pointer_token(segment);
    std::forward<F>(read_child)();
    path_.resize(length);
  }

 private:
  std::string path_;
  std::optional<DecodeError> error_;
};

// ---- scalars ------------------------------------------------------------------------------

void read(Reader& r, const Value& j, std::string& out) {
  if (!j.is_string()) return r.fail("expected a string");
  out = j.get_ref<const std::string&>();
}

void read(Reader& r, const Value& j, bool& out) {
  if (!j.is_boolean()) return r.fail("expected true or false");
  out = j.get<bool>();
}

template <WireUnsigned T>
void read(Reader& r, const Value& j, T& out) {
  if (j.is_number_unsigned()) {
    const auto value = j.get<std::uint64_t>();
    if (value > std::numeric_limits<T>::max()) {
      return r.fail("integer out of range (at most " +
                    std::to_string(std::numeric_limits<T>::max()) + ")");
    }
    out = static_cast<T>(value);
    return;
  }
  if (j.is_number_integer()) return r.fail("expected a non-negative integer without a minus sign");
  if (j.is_number_float()) {
    return r.fail("expected an integer written without a fraction or an exponent, in range");
  }
  r.fail("expected an integer");
}

template <class E>
void read_enum(Reader& r, const Value& j, E& out, std::optional<E> (*from_name)(std::string_view)) {
  if (!j.is_string()) return r.fail("expected a string token");
  const auto& token = j.get_ref<const std::string&>();
  if (auto value = from_name(token)) {
    out = *value;
  } else {
    r.fail("unknown token \"" + token + "\"");
  }
}

void read(Reader& r, const Value& j, ResponderMode& out) {
  read_enum(r, j, out, responder_mode_from_name);
}
void read(Reader& r, const Value& j, SelectionPolicy& out) {
  read_enum(r, j, out, selection_policy_from_name);
}
void read(Reader& r, const Value& j, ResponderRung& out) {
  read_enum(r, j, out, responder_rung_from_name);
}
void read(Reader& r, const Value& j, SelectionDisposition& out) {
  read_enum(r, j, out, selection_disposition_from_name);
}
void read(Reader& r, const Value& j, NoDispatchReason& out) {
  read_enum(r, j, out, no_dispatch_reason_from_name);
}
void read(Reader& r, const Value& j, EnqueueRefusal& out) {
  read_enum(r, j, out, enqueue_refusal_from_name);
}
void read(Reader& r, const Value& j, QueueErrorKind& out) {
  read_enum(r, j, out, queue_error_kind_from_name);
}

void read(Reader& r, const Value& j, Probability& out) {
  std::uint64_t parts_per_million = 0;
  read(r, j, parts_per_million);
  if (!r.ok()) return;
  if (parts_per_million > kProbabilityScale) {
    return r.fail("a probability is at most " + std::to_string(kProbabilityScale) +
                  " parts per million");
  }
  out.parts_per_million = static_cast<std::uint32_t>(parts_per_million);
}

// ---- containers ---------------------------------------------------------------------------

template <class T>
void read(Reader& r, const Value& j, std::optional<T>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  read(r, j, out.emplace());
}

template <class T>
void read(Reader& r, const Value& j, std::vector<T>& out) {
  if (!j.is_array()) return r.fail("expected an array");
  out.clear();
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size() && r.ok(); ++i) {
    r.at(std::to_string(i), [&] { read(r, j[i], out.emplace_back()); });
  }
}

// One object being read: `required` keys must be present (a nullable one may be `null`),
// `optional` keys keep the field's default when absent. Unknown keys are ignored.
class Fields {
 public:
  Fields(Reader& r, const Value& j) : r_(r), j_(j) {
    if (!j.is_object()) r.fail("expected an object");
  }

  template <class T>
  Fields& required(const char* key, T& out) {
    if (!r_.ok()) return *this;
    const auto found = j_.find(key);
    if (found == j_.end()) {
      r_.at(key, [&] { r_.fail(std::string("required key \"") + key + "\" is missing"); });
    } else {
      r_.at(key, [&] { read(r_, *found, out); });
    }
    return *this;
  }

  template <class T>
  Fields& optional(const char* key, T& out) {
    if (!r_.ok()) return *this;
    const auto found = j_.find(key);
    if (found != j_.end()) r_.at(key, [&] { read(r_, *found, out); });
    return *this;
  }

  // The tag of an internally tagged enum (`kind` or `status`).
  std::string tag(const char* key) {
    std::string value;
    required(key, value);
    return value;
  }

  // Reports an unknown tag value at the tag's own path.
  void unknown_tag(const char* key, const std::string& value) {
    r_.at(key, [&] { r_.fail("unknown " + std::string(key) + " \"" + value + "\""); });
  }

 private:
  Reader& r_;
  const Value& j_;
};

// ---- structs ------------------------------------------------------------------------------

void read(Reader& r, const Value& j, MentionTarget& out) {
  Fields f(r, j);
  const std::string kind = f.tag("kind");
  if (!r.ok()) return;
  if (kind == "agent") {
    f.required("id", out.emplace<AgentTarget>().id);
  } else if (kind == "person") {
    f.required("id", out.emplace<PersonTarget>().id);
  } else if (kind == "desk") {
    f.required("id", out.emplace<DeskTarget>().id);
  } else if (kind == "everyone") {
    out.emplace<EveryoneTarget>();
  } else {
    f.unknown_tag("kind", kind);
  }
}

void read(Reader& r, const Value& j, MentionAuthor& out) {
  Fields f(r, j);
  const std::string kind = f.tag("kind");
  if (!r.ok()) return;
  if (kind == "agent") {
    f.required("id", out.emplace<AgentAuthor>().id);
  } else if (kind == "person") {
    f.required("id", out.emplace<PersonAuthor>().id);
  } else if (kind == "other") {
    out.emplace<OtherAuthor>();
  } else {
    f.unknown_tag("kind", kind);
  }
}

void read(Reader& r, const Value& j, Mention& out) {
  Fields(r, j)
      .required("target", out.target)
      .required("text", out.text)
      .required("offset", out.offset)
      .optional("quiet", out.quiet);
}

void read(Reader& r, const Value& j, RosterMember& out) {
  Fields(r, j).required("id", out.id).required("name", out.name);
}

void read(Reader& r, const Value& j, Person& out) {
  Fields(r, j).required("id", out.id).required("label", out.label);
}

void read(Reader& r, const Value& j, RosterSnapshot& out) {
  Fields(r, j)
      .required("members", out.members)
      .required("people", out.people)
      .required("retired", out.retired)
      .required("tombstoned", out.tombstoned);
}

void read(Reader& r, const Value& j, Desk& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("name", out.name)
      .required("description", out.description)
      .required("members", out.members)
      .optional("responder_mode", out.responder_mode);
}

void read(Reader& r, const Value& j, DeskMember& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("agent_id", out.agent_id);
}

void read(Reader& r, const Value& j, DeskOrder& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("ordered", out.ordered);
}

void read(Reader& r, const Value& j, DeskSnapshot& out) {
  Fields(r, j)
      .required("declared", out.declared)
      .required("added", out.added)
      .required("member_additions", out.member_additions)
      .required("orders", out.orders)
      .required("retired", out.retired)
      .required("tombstoned", out.tombstoned);
}

void read(Reader& r, const Value& j, SelectorCandidate& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("label", out.label)
      .required("role", out.role)
      .required("description", out.description);
}

void read(Reader& r, const Value& j, ResponderRequest& out) {
  Fields(r, j)
      .required("message", out.message)
      .required("chat", out.chat)
      .required("mentions", out.mentions)
      .required("orchestrator_id", out.orchestrator_id)
      .required("selection_policy", out.selection_policy);
}

void read(Reader& r, const Value& j, SelectionRequest& out) {
  Fields(r, j)
      .required("message", out.message)
      .required("desk_id", out.desk_id)
      .required("candidates", out.candidates);
}

void read(Reader& r, const Value& j, ResponderDecision& out) {
  Fields(r, j)
      .required("responder_id", out.responder_id)
      .required("rung", out.rung)
      .required("disposition", out.disposition);
}

void read(Reader& r, const Value& j, ResponderPlan& out) {
  Fields f(r, j);
  const std::string kind = f.tag("kind");
  if (!r.ok()) return;
  if (kind == "decided") {
    f.required("decision", out.emplace<Decided>().decision);
  } else if (kind == "select") {
    auto& select = out.emplace<Select>();
    f.required("request", select.request).required("fallback", select.fallback);
  } else {
    f.unknown_tag("kind", kind);
  }
}

void read(Reader& r, const Value& j, CandidateProbability& out) {
  Fields(r, j).required("candidate_id", out.candidate_id).required("probability", out.probability);
}

void read(Reader& r, const Value& j, SelectionEvaluation& out) {
  Fields(r, j)
      .required("choice", out.choice)
      .required("probabilities", out.probabilities)
      .required("confidence", out.confidence);
}

void read(Reader& r, const Value& j, SelectorResult& out) {
  Fields f(r, j);
  const std::string kind = f.tag("kind");
  if (!r.ok()) return;
  if (kind == "absent") {
    out.emplace<SelectorAbsent>();
  } else if (kind == "failed") {
    out.emplace<SelectorFailed>();
  } else if (kind == "text") {
    f.required("output", out.emplace<SelectorText>().output);
  } else if (kind == "evaluation") {
    auto& answer = out.emplace<SelectorEvaluation>();
    f.required("evaluation", answer.evaluation)
        .required("minimum_confidence", answer.minimum_confidence);
  } else {
    f.unknown_tag("kind", kind);
  }
}

void read(Reader& r, const Value& j, MentionDispatchPolicy& out) {
  Fields(r, j).required("enabled", out.enabled).required("max_hops", out.max_hops);
}

void read(Reader& r, const Value& j, DispatchKey& out) {
  Fields(r, j).required("trigger_sequence", out.trigger_sequence);
}

void read(Reader& r, const Value& j, DispatchConversation& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("thread_root", out.thread_root);
}

void read(Reader& r, const Value& j, MentionDispatchInput& out) {
  Fields(r, j)
      .required("key", out.key)
      .required("conversation", out.conversation)
      .required("author_id", out.author_id)
      .required("content", out.content)
      .required("mentions", out.mentions)
      .required("hop", out.hop);
}

void read(Reader& r, const Value& j, MentionTurnRequest& out) {
  Fields(r, j)
      .required("key", out.key)
      .required("source_id", out.source_id)
      .required("target_id", out.target_id)
      .required("content", out.content)
      .required("conversation", out.conversation)
      .required("child_hop", out.child_hop);
}

void read(Reader& r, const Value& j, MentionDispatchDecision& out) {
  Fields f(r, j);
  const std::string kind = f.tag("kind");
  if (!r.ok()) return;
  if (kind == "none") {
    f.required("reason", out.emplace<NoDispatch>().reason);
  } else if (kind == "one") {
    f.required("request", out.emplace<DispatchOne>().request);
  } else {
    f.unknown_tag("kind", kind);
  }
}

// EnqueueOutcome and MentionDispatchOutcome share three alternatives and one tag.
template <class Outcome>
void read_outcome(Reader& r, const Value& j, Outcome& out) {
  Fields f(r, j);
  const std::string status = f.tag("status");
  if (!r.ok()) return;
  if (status == "enqueued") {
    out.template emplace<Enqueued>();
  } else if (status == "already") {
    out.template emplace<Already>();
  } else if (status == "refused") {
    f.required("reason", out.template emplace<Refused>().reason);
  } else if constexpr (std::is_same_v<Outcome, MentionDispatchOutcome>) {
    if (status == "not_dispatched") {
      f.required("reason", out.template emplace<NotDispatched>().reason);
    } else {
      f.unknown_tag("status", status);
    }
  } else {
    f.unknown_tag("status", status);
  }
}

void read(Reader& r, const Value& j, EnqueueOutcome& out) { read_outcome(r, j, out); }
void read(Reader& r, const Value& j, MentionDispatchOutcome& out) { read_outcome(r, j, out); }

void read(Reader& r, const Value& j, Conversation& out) {
  Fields(r, j)
      .required("desk_id", out.desk_id)
      .required("desk_name", out.desk_name)
      .required("thread_root", out.thread_root);
}

void read(Reader& r, const Value& j, MentionDispatchContext& out) {
  Fields(r, j).required("policy", out.policy).required("hop", out.hop);
}

void read(Reader& r, const Value& j, Brevity& out) {
  Fields(r, j).required("message_chars", out.message_chars).required("window", out.window);
}

void read(Reader& r, const Value& j, BriefedTeammate& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("label", out.label)
      .required("role", out.role)
      .required("description", out.description);
}

void read(Reader& r, const Value& j, TeamBriefing& out) {
  Fields(r, j)
      .required("viewer_id", out.viewer_id)
      .required("desk_id", out.desk_id)
      .required("desk_name", out.desk_name)
      .required("teammates", out.teammates)
      .optional("brevity", out.brevity);
}

void read(Reader& r, const Value& j, QueueError& out) {
  Fields(r, j).required("kind", out.kind).required("message", out.message);
}

// ---- writers ------------------------------------------------------------------------------

Value write(const std::string& value) { return value; }
template <WireUnsigned T>
Value write(T value) {
  return static_cast<std::uint64_t>(value);
}
template <WireEnum E>
Value write(E value) {
  return std::string(name(value));
}
Value write(Probability value) { return value.parts_per_million; }

// Declared here, defined after every writer they may call.
template <class T>
Value write(const std::optional<T>& value);
template <class T>
Value write(const std::vector<T>& values);

Value tagged(const char* key, const char* tag) { return Value{{key, tag}}; }

Value write(const MentionTarget& target) {
  return std::visit(overloaded{
                        [](const AgentTarget& t) {
                          return Value{{"kind", "agent"}, {"id", t.id}};
                        },
                        [](const PersonTarget& t) {
                          return Value{{"kind", "person"}, {"id", t.id}};
                        },
                        [](const DeskTarget& t) {
                          return Value{{"kind", "desk"}, {"id", t.id}};
                        },
                        [](const EveryoneTarget&) { return tagged("kind", "everyone"); },
                    },
                    target);
}

Value write(const MentionAuthor& author) {
  return std::visit(overloaded{
                        [](const AgentAuthor& a) {
                          return Value{{"kind", "agent"}, {"id", a.id}};
                        },
                        [](const PersonAuthor& a) {
                          return Value{{"kind", "person"}, {"id", a.id}};
                        },
                        [](const OtherAuthor&) { return tagged("kind", "other"); },
                    },
                    author);
}

Value write(const Mention& m) {
  Value out{{"target", write(m.target)}, {"text", m.text}, {"offset", write(m.offset)}};
  if (m.quiet) out["quiet"] = true;
  return out;
}

Value write(const RosterMember& m) { return {{"id", m.id}, {"name", write(m.name)}}; }
Value write(const Person& p) { return {{"id", p.id}, {"label", p.label}}; }
Value write(const RosterSnapshot& s) {
  return {{"members", write(s.members)},
          {"people", write(s.people)},
          {"retired", write(s.retired)},
          {"tombstoned", write(s.tombstoned)}};
}

Value write(const Desk& d) {
  Value out{{"id", d.id},
            {"name", d.name},
            {"description", write(d.description)},
            {"members", write(d.members)}};
  if (d.responder_mode != ResponderMode::Lead) out["responder_mode"] = write(d.responder_mode);
  return out;
}
Value write(const DeskMember& m) { return {{"desk_id", m.desk_id}, {"agent_id", m.agent_id}}; }
Value write(const DeskOrder& o) { return {{"desk_id", o.desk_id}, {"ordered", write(o.ordered)}}; }
Value write(const DeskSnapshot& s) {
  return {{"declared", write(s.declared)},
          {"added", write(s.added)},
          {"member_additions", write(s.member_additions)},
          {"orders", write(s.orders)},
          {"retired", write(s.retired)},
          {"tombstoned", write(s.tombstoned)}};
}

Value write(const SelectorCandidate& c) {
  return {
      {"id", c.id}, {"label", c.label}, {"role", c.role}, {"description", write(c.description)}};
}
Value write(const ResponderRequest& q) {
  return {{"message", q.message},
          {"chat", write(q.chat)},
          {"mentions", write(q.mentions)},
          {"orchestrator_id", q.orchestrator_id},
          {"selection_policy", write(q.selection_policy)}};
}
Value write(const SelectionRequest& q) {
  return {{"message", q.message}, {"desk_id", q.desk_id}, {"candidates", write(q.candidates)}};
}
Value write(const ResponderDecision& d) {
  return {{"responder_id", d.responder_id},
          {"rung", write(d.rung)},
          {"disposition", write(d.disposition)}};
}
Value write(const ResponderPlan& plan) {
  return std::visit(overloaded{
                        [](const Decided& d) {
                          return Value{{"kind", "decided"}, {"decision", write(d.decision)}};
                        },
                        [](const Select& s) {
                          return Value{{"kind", "select"},
                                       {"request", write(s.request)},
                                       {"fallback", write(s.fallback)}};
                        },
                    },
                    plan);
}
Value write(const CandidateProbability& p) {
  return {{"candidate_id", p.candidate_id}, {"probability", write(p.probability)}};
}
Value write(const SelectionEvaluation& e) {
  return {{"choice", e.choice},
          {"probabilities", write(e.probabilities)},
          {"confidence", write(e.confidence)}};
}
Value write(const SelectorResult& result) {
  return std::visit(overloaded{
                        [](const SelectorAbsent&) { return tagged("kind", "absent"); },
                        [](const SelectorFailed&) { return tagged("kind", "failed"); },
                        [](const SelectorText& t) {
                          return Value{{"kind", "text"}, {"output", t.output}};
                        },
                        [](const SelectorEvaluation& e) {
                          return Value{{"kind", "evaluation"},
                                       {"evaluation", write(e.evaluation)},
                                       {"minimum_confidence", write(e.minimum_confidence)}};
                        },
                    },
                    result);
}

Value write(const MentionDispatchPolicy& p) {
  return {{"enabled", p.enabled}, {"max_hops", write(p.max_hops)}};
}
Value write(const DispatchKey& k) { return {{"trigger_sequence", write(k.trigger_sequence)}}; }
Value write(const DispatchConversation& c) {
  return {{"desk_id", c.desk_id}, {"thread_root", write(c.thread_root)}};
}
Value write(const MentionDispatchInput& i) {
  return {{"key", write(i.key)},           {"conversation", write(i.conversation)},
          {"author_id", i.author_id},      {"content", i.content},
          {"mentions", write(i.mentions)}, {"hop", write(i.hop)}};
}
Value write(const MentionTurnRequest& q) {
  return {{"key", write(q.key)},
          {"source_id", q.source_id},
          {"target_id", q.target_id},
          {"content", q.content},
          {"conversation", write(q.conversation)},
          {"child_hop", write(q.child_hop)}};
}
Value write(const MentionDispatchDecision& decision) {
  return std::visit(overloaded{
                        [](const NoDispatch& n) {
                          return Value{{"kind", "none"}, {"reason", write(n.reason)}};
                        },
                        [](const DispatchOne& o) {
                          return Value{{"kind", "one"}, {"request", write(o.request)}};
                        },
                    },
                    decision);
}

Value write(const Enqueued&) { return tagged("status", "enqueued"); }
Value write(const Already&) { return tagged("status", "already"); }
Value write(const Refused& r) { return {{"status", "refused"}, {"reason", write(r.reason)}}; }
Value write(const NotDispatched& n) {
  return {{"status", "not_dispatched"}, {"reason", write(n.reason)}};
}
Value write(const EnqueueOutcome& o) {
  return std::visit([](const auto& alternative) { return write(alternative); }, o);
}
Value write(const MentionDispatchOutcome& o) {
  return std::visit([](const auto& alternative) { return write(alternative); }, o);
}

Value write(const Conversation& c) {
  return {
      {"desk_id", c.desk_id}, {"desk_name", c.desk_name}, {"thread_root", write(c.thread_root)}};
}
Value write(const MentionDispatchContext& c) {
  return {{"policy", write(c.policy)}, {"hop", write(c.hop)}};
}
Value write(const QueueError& e) { return {{"kind", write(e.kind)}, {"message", e.message}}; }
Value write(const Brevity& b) {
  return {{"message_chars", write(b.message_chars)}, {"window", write(b.window)}};
}
Value write(const BriefedTeammate& t) {
  return {{"id", t.id},
          {"label", t.label},
          {"role", write(t.role)},
          {"description", write(t.description)}};
}
Value write(const TeamBriefing& b) {
  return {{"viewer_id", b.viewer_id},
          {"desk_id", b.desk_id},
          {"desk_name", b.desk_name},
          {"teammates", write(b.teammates)},
          {"brevity", write(b.brevity)}};
}

template <class T>
Value write(const std::optional<T>& value) {
  return value.has_value() ? write(*value) : Value(nullptr);
}
template <class T>
Value write(const std::vector<T>& values) {
  Value out = Value::array();
  for (const T& value : values) out.push_back(write(value));
  return out;
}

}  // namespace

template <WireType T>
Result<T, DecodeError> from_value(const Value& value, std::string_view root) {
  Reader reader(root);
  T out{};
  try {
    read(reader, value, out);
  } catch (const std::exception& failure) {  // defensive: the readers check types first
    reader.fail(std::string("could not be decoded: ") + failure.what());
  }
  if (!reader.ok()) return unexpected{std::move(reader).error()};
  return out;
}

template <WireType T>
Result<T, DecodeError> decode(std::string_view text) {
  auto tree = parse(text);
  if (!tree.has_value()) return unexpected{std::move(tree).error()};
  return from_value<T>(*tree);
}

template <WireType T>
Value to_value(const T& value) {
  return write(value);
}

template <WireType T>
std::string encode(const T& value) {
  return write(value).dump(-1, ' ', false, Value::error_handler_t::replace);
}

Value error_value(const RosterError& error) {
  Value out{{"variant", std::string(name(error))}};
  std::visit(overloaded{
                 [](const EmptyRosterMemberId&) {},
                 [&](const DuplicateRosterMemberId& e) { out["member_id"] = e.member_id; },
                 [](const EmptyPersonId&) {},
                 [&](const DuplicatePersonId& e) { out["person_id"] = e.person_id; },
             },
             error);
  out["message"] = to_string(error);
  return out;
}

Value error_value(const DeskError& error) {
  Value out{{"variant", std::string(name(error))}};
  std::visit(overloaded{
                 [](const EmptyDeskId&) {},
                 [&](const EmptyDeskName& e) { out["desk_id"] = e.desk_id; },
                 [&](const DuplicateDeskId& e) { out["desk_id"] = e.desk_id; },
                 [&](const ReservedDeskIdentity& e) { out["identity"] = e.identity; },
                 [&](const UnknownMemberDesk& e) { out["desk_id"] = e.desk_id; },
                 [&](const UnknownOrderDesk& e) { out["desk_id"] = e.desk_id; },
                 [&](const DuplicateDeskOrder& e) { out["desk_id"] = e.desk_id; },
                 [&](const DuplicateOrderMember& e) {
                   out["desk_id"] = e.desk_id;
                   out["agent_id"] = e.agent_id;
                 },
                 [&](const UnknownOrderMember& e) {
                   out["desk_id"] = e.desk_id;
                   out["agent_id"] = e.agent_id;
                 },
                 [&](const IncompleteOrder& e) {
                   out["desk_id"] = e.desk_id;
                   out["missing_agent_id"] = e.missing_agent_id;
                 },
                 [&](const UnknownDesk& e) { out["identity"] = e.identity; },
                 [&](const AmbiguousDesk& e) { out["identity"] = e.identity; },
             },
             error);
  out["message"] = to_string(error);
  return out;
}

Value error_value(const ResponderError& error) {
  return std::visit(overloaded{
                        [](const RosterError& e) { return error_value(e); },
                        [](const DeskError& e) { return error_value(e); },
                        [](const DuplicateSelectorCandidate& e) {
                          return Value{{"variant", "DuplicateSelectorCandidate"},
                                       {"agent_id", e.agent_id},
                                       {"message", to_string(ResponderError{e})}};
                        },
                        [](const NoActiveResponder& e) {
                          return Value{{"variant", "NoActiveResponder"},
                                       {"agent_id", e.agent_id},
                                       {"message", to_string(ResponderError{e})}};
                        },
                    },
                    error);
}

Value error_value(const BriefingError& error) {
  return std::visit([](const auto& inner) { return error_value(inner); }, error);
}

Value error_value(const DispatchMentionError& error) {
  return std::visit(overloaded{
                        [](const CoreFailure& failure) {
                          return Value{{"variant", "Core"}, {"core", error_value(failure.core)}};
                        },
                        [](const EnqueueFailure& failure) {
                          return Value{{"variant", "Enqueue"},
                                       {"kind", write(failure.error.kind)},
                                       {"message", failure.error.message}};
                        },
                    },
                    error);
}

Value error_value(const DecodeError& error) {
  return {{"variant", "Decode"}, {"path", error.path}, {"reason", error.reason}};
}

// One instantiation per wire type (the WireType list).
#define THM_JSON_WIRE_TYPE(T)                                                    \
  template Result<T, DecodeError> from_value<T>(const Value&, std::string_view); \
  template Value to_value<T>(const T&);                                          \
  template Result<T, DecodeError> decode<T>(std::string_view);                   \
  template std::string encode<T>(const T&);
THM_JSON_WIRE_TYPE(MentionTarget)
THM_JSON_WIRE_TYPE(MentionAuthor)
THM_JSON_WIRE_TYPE(Mention)
THM_JSON_WIRE_TYPE(RosterMember)
THM_JSON_WIRE_TYPE(Person)
THM_JSON_WIRE_TYPE(RosterSnapshot)
THM_JSON_WIRE_TYPE(ResponderMode)
THM_JSON_WIRE_TYPE(Desk)
THM_JSON_WIRE_TYPE(DeskMember)
THM_JSON_WIRE_TYPE(DeskOrder)
THM_JSON_WIRE_TYPE(DeskSnapshot)
THM_JSON_WIRE_TYPE(SelectorCandidate)
THM_JSON_WIRE_TYPE(SelectionPolicy)
THM_JSON_WIRE_TYPE(ResponderRequest)
THM_JSON_WIRE_TYPE(SelectionRequest)
THM_JSON_WIRE_TYPE(ResponderRung)
THM_JSON_WIRE_TYPE(SelectionDisposition)
THM_JSON_WIRE_TYPE(ResponderDecision)
THM_JSON_WIRE_TYPE(ResponderPlan)
THM_JSON_WIRE_TYPE(Probability)
THM_JSON_WIRE_TYPE(CandidateProbability)
THM_JSON_WIRE_TYPE(SelectionEvaluation)
THM_JSON_WIRE_TYPE(SelectorResult)
THM_JSON_WIRE_TYPE(MentionDispatchPolicy)
THM_JSON_WIRE_TYPE(DispatchKey)
THM_JSON_WIRE_TYPE(DispatchConversation)
THM_JSON_WIRE_TYPE(MentionDispatchInput)
THM_JSON_WIRE_TYPE(MentionTurnRequest)
THM_JSON_WIRE_TYPE(NoDispatchReason)
THM_JSON_WIRE_TYPE(MentionDispatchDecision)
THM_JSON_WIRE_TYPE(EnqueueRefusal)
THM_JSON_WIRE_TYPE(EnqueueOutcome)
THM_JSON_WIRE_TYPE(MentionDispatchOutcome)
THM_JSON_WIRE_TYPE(Conversation)
THM_JSON_WIRE_TYPE(MentionDispatchContext)
THM_JSON_WIRE_TYPE(QueueErrorKind)
THM_JSON_WIRE_TYPE(QueueError)
THM_JSON_WIRE_TYPE(Brevity)
THM_JSON_WIRE_TYPE(BriefedTeammate)
THM_JSON_WIRE_TYPE(TeamBriefing)
#undef THM_JSON_WIRE_TYPE

}  // namespace thm::json
