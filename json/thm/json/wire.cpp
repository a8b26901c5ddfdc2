// SPEC §6 wire forms: one `read` and one `put` per type. Each `read` is one template over its
// source: a parsed tree (`TreeSource`, for `from_value`) or a host's `WireReader`, so there is
// one decoder. Readers never throw: they check each JSON type before touching it and report
// the first problem with its JSON Pointer.
#include <algorithm>
#include <array>
#include <charconv>
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

using Node = WireReader::Node;
using Kind = WireReader::Kind;

// A parsed tree as the decoder's source: what `from_value` reads. The `Node`s are `Value`s.
class TreeSource {
 public:
  static WireReader::Look look(Node node) {
    const Value& j = value(node);
    switch (j.type()) {
      case Value::value_t::null:
        return {.kind = Kind::Null};
      case Value::value_t::boolean:
        return {.kind = Kind::Boolean, .boolean = j.get<bool>()};
      case Value::value_t::number_unsigned:
        return {.kind = Kind::Unsigned, .number = j.get<std::uint64_t>()};
      case Value::value_t::number_integer:
        return {.kind = Kind::Negative};
      case Value::value_t::number_float:
        return {.kind = Kind::Fraction};
      case Value::value_t::string:
        return {.kind = Kind::String, .text = j.get_ref<const std::string&>()};
      case Value::value_t::array:
        return {.kind = Kind::Array, .size = j.size()};
      case Value::value_t::object:
        return {.kind = Kind::Object};
      case Value::value_t::binary:
      case Value::value_t::discarded:
        break;
    }
    return {.kind = Kind::Unsaid};
  }
  static Node element(Node array, std::size_t index) { return {.value = &value(array)[index]}; }
  static std::optional<Node> member(Node object, std::string_view key) {
    const Value& j = value(object);
    const auto found = j.find(key);
    if (found == j.end()) return std::nullopt;
    return Node{.value = &*found, .key = key};
  }
  // `parse` makes no value JSON cannot say.
  static std::optional<WireReader::Unsaid> unsaid(Node /*refused*/, std::size_t /*depth*/) {
    return std::nullopt;
  }

 private:
  static const Value& value(Node node) { return *static_cast<const Value*>(node.value); }
};

// Walks a source (a `TreeSource` or a `WireReader`), keeping the JSON Pointer of the value
// being read, its depth, and the first error.
template <class In>
class Reader {
 public:
  Reader(In& in, std::string_view root) : in_(in), path_(root) {}

  [[nodiscard]] In& in() { return in_; }
  [[nodiscard]] bool ok() const { return !error_.has_value(); }
  void fail(std::string reason) {
    if (ok()) error_ = DecodeError{.path = path_, .reason = std::move(reason)};
  }
  // Refuses `node` for its type: `reason`, or, when the source says the value (or one
  // inside it) cannot be said in JSON, that, where it is.
  void mismatch(Node node, std::string reason) {
    if (!ok()) return;
    if (auto unsaid = in_.unsaid(node, depth_)) {
      error_ = DecodeError{.path = path_ + unsaid->below, .reason = "not JSON: " + unsaid->reason};
    } else {
      fail(std::move(reason));
    }
  }
  [[nodiscard]] DecodeError error() && { return *std::move(error_); }

  // Runs `read_child` with the path extended by one segment.
  template <class F>
  void at(std::string_view segment, F&& read_child) {
    if (!ok()) return;
    const std::size_t length = path_.size();
    path_ += '/';
    if (std::ranges::none_of(segment, [](char c) { return c == '~' || c == '/'; })) {
      path_ += segment;  // every key of the wire forms
    } else {
      path_ += escape_pointer_token(segment);
    }
    ++depth_;
    std::forward<F>(read_child)();
    --depth_;
    path_.resize(length);
  }

 private:
  In& in_;
  std::string path_;
  std::size_t depth_ = 0;
  std::optional<DecodeError> error_;
};

// ---- scalars ------------------------------------------------------------------------------

template <class In>
void read(Reader<In>& r, Node j, std::string& out) {
  const auto look = r.in().look(j);
  if (look.kind != Kind::String) return r.mismatch(j, "expected a string");
  out = look.text;
}

template <class In>
void read(Reader<In>& r, Node j, bool& out) {
  const auto look = r.in().look(j);
  if (look.kind != Kind::Boolean) return r.mismatch(j, "expected true or false");
  out = look.boolean;
}

template <class In, WireUnsigned T>
void read(Reader<In>& r, Node j, T& out) {
  const auto look = r.in().look(j);
  switch (look.kind) {
    case Kind::Unsigned:
      if (look.number > std::numeric_limits<T>::max()) {
        return r.fail("integer out of range (at most " +
                      std::to_string(std::numeric_limits<T>::max()) + ")");
      }
      out = static_cast<T>(look.number);
      return;
    case Kind::Negative:
      return r.fail("expected a non-negative integer without a minus sign");
    case Kind::Fraction:
      return r.fail("expected an integer written without a fraction or an exponent, in range");
    default:
      return r.mismatch(j, "expected an integer");
  }
}

template <class In, class E>
void read_enum(Reader<In>& r, Node j, E& out, std::optional<E> (*from_name)(std::string_view)) {
  const auto look = r.in().look(j);
  if (look.kind != Kind::String) return r.mismatch(j, "expected a string token");
  if (auto value = from_name(look.text)) {
    out = *value;
  } else {
    r.fail("unknown token \"" + std::string(look.text) + "\"");
  }
}

template <class In>
void read(Reader<In>& r, Node j, ResponderMode& out) {
  read_enum(r, j, out, responder_mode_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, SelectionPolicy& out) {
  read_enum(r, j, out, selection_policy_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, ResponderRung& out) {
  read_enum(r, j, out, responder_rung_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, SelectionDisposition& out) {
  read_enum(r, j, out, selection_disposition_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, NoDispatchReason& out) {
  read_enum(r, j, out, no_dispatch_reason_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, EnqueueRefusal& out) {
  read_enum(r, j, out, enqueue_refusal_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, QueueErrorKind& out) {
  read_enum(r, j, out, queue_error_kind_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, TraceRule& out) {
  read_enum(r, j, out, trace_rule_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, TraceOutcome& out) {
  read_enum(r, j, out, trace_outcome_from_name);
}
template <class In>
void read(Reader<In>& r, Node j, TraceWhy& out) {
  read_enum(r, j, out, trace_why_from_name);
}

template <class In>
void read(Reader<In>& r, Node j, Probability& out) {
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

template <class In, class T>
void read(Reader<In>& r, Node j, std::optional<T>& out) {
  if (r.in().look(j).kind == Kind::Null) {
    out.reset();
    return;
  }
  read(r, j, out.emplace());
}

template <class In, class T>
void read(Reader<In>& r, Node j, std::vector<T>& out) {
  const auto look = r.in().look(j);
  if (look.kind != Kind::Array) return r.mismatch(j, "expected an array");
  out.clear();
  // A size is the source's word: a JavaScript array's `length` can be 2^32 - 1 with nothing
  // in it. Past this many, the vector grows as it is read.
  constexpr std::size_t kMaxReserved = 1024;
  out.reserve(std::min(look.size, kMaxReserved));
  for (std::size_t i = 0; i < look.size && r.ok(); ++i) {
    std::array<char, 24> digits{};
    const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), i).ptr;
    r.at({digits.data(), end}, [&] { read(r, r.in().element(j, i), out.emplace_back()); });
  }
}

// One object being read: `required` keys must be present (a nullable one may be `null`),
// `optional` keys keep the field's default when absent. Unknown keys are ignored.
template <class In>
class Fields {
 public:
  Fields(Reader<In>& r, Node j) : r_(r), j_(j) {
    if (r.in().look(j).kind != Kind::Object) r.mismatch(j, "expected an object");
  }

  template <class T>
  Fields& required(const char* key, T& out) {
    if (!r_.ok()) return *this;
    const auto found = r_.in().member(j_, key);
    if (!found) {
      r_.at(key, [&] { r_.fail(std::string("required key \"") + key + "\" is missing"); });
    } else {
      r_.at(key, [&] { read(r_, *found, out); });
    }
    return *this;
  }

  template <class T>
  Fields& optional(const char* key, T& out) {
    if (!r_.ok()) return *this;
    if (const auto found = r_.in().member(j_, key)) r_.at(key, [&] { read(r_, *found, out); });
    return *this;
  }

  // An optional key of a field that is itself optional: when present, its value must be
  // a `T`; `null` is refused, so that absent and `null` never mean the same (SPEC §0.5).
  template <class T>
  Fields& optional(const char* key, std::optional<T>& out) {
    if (!r_.ok()) return *this;
    if (const auto found = r_.in().member(j_, key)) {
      r_.at(key, [&] { read(r_, *found, out.emplace()); });
    }
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
  Reader<In>& r_;
  Node j_;
};

// ---- structs ------------------------------------------------------------------------------
template <class In>
void read(Reader<In>& r, Node j, MentionTarget& out) {
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

template <class In>
void read(Reader<In>& r, Node j, MentionAuthor& out) {
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

template <class In>
void read(Reader<In>& r, Node j, Mention& out) {
  Fields(r, j)
      .required("target", out.target)
      .required("text", out.text)
      .required("offset", out.offset)
      .optional("quiet", out.quiet);
}

template <class In>
void read(Reader<In>& r, Node j, RosterMember& out) {
  Fields(r, j).required("id", out.id).required("name", out.name);
}

template <class In>
void read(Reader<In>& r, Node j, Person& out) {
  Fields(r, j).required("id", out.id).required("label", out.label);
}

template <class In>
void read(Reader<In>& r, Node j, RosterSnapshot& out) {
  Fields(r, j)
      .required("members", out.members)
      .required("people", out.people)
      .required("retired", out.retired)
      .required("tombstoned", out.tombstoned);
}

template <class In>
void read(Reader<In>& r, Node j, Desk& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("name", out.name)
      .required("description", out.description)
      .required("members", out.members)
      .optional("responder_mode", out.responder_mode);
}

template <class In>
void read(Reader<In>& r, Node j, DeskMember& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("agent_id", out.agent_id);
}

template <class In>
void read(Reader<In>& r, Node j, DeskOrder& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("ordered", out.ordered);
}

template <class In>
void read(Reader<In>& r, Node j, DeskSnapshot& out) {
  Fields(r, j)
      .required("declared", out.declared)
      .required("added", out.added)
      .required("member_additions", out.member_additions)
      .required("orders", out.orders)
      .required("retired", out.retired)
      .required("tombstoned", out.tombstoned);
}

template <class In>
void read(Reader<In>& r, Node j, SelectorCandidate& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("label", out.label)
      .required("role", out.role)
      .required("description", out.description);
}

template <class In>
void read(Reader<In>& r, Node j, ResponderRequest& out) {
  Fields(r, j)
      .required("message", out.message)
      .required("chat", out.chat)
      .required("mentions", out.mentions)
      .required("orchestrator_id", out.orchestrator_id)
      .required("selection_policy", out.selection_policy)
      .optional("thread_responder", out.thread_responder);
}

template <class In>
void read(Reader<In>& r, Node j, TraceStep& out) {
  Fields(r, j)
      .required("rule", out.rule)
      .required("outcome", out.outcome)
      .required("why", out.why)
      .required("subject", out.subject)
      .required("offset", out.offset)
      .required("count", out.count);
}

template <class In>
void read(Reader<In>& r, Node j, SelectionRequest& out) {
  Fields(r, j)
      .required("message", out.message)
      .required("desk_id", out.desk_id)
      .required("candidates", out.candidates);
}

template <class In>
void read(Reader<In>& r, Node j, ResponderDecision& out) {
  Fields(r, j)
      .required("responder_id", out.responder_id)
      .required("rung", out.rung)
      .required("disposition", out.disposition);
}

template <class In>
void read(Reader<In>& r, Node j, ResponderPlan& out) {
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

template <class In>
void read(Reader<In>& r, Node j, CandidateProbability& out) {
  Fields(r, j).required("candidate_id", out.candidate_id).required("probability", out.probability);
}

template <class In>
void read(Reader<In>& r, Node j, SelectionEvaluation& out) {
  Fields(r, j)
      .required("choice", out.choice)
      .required("probabilities", out.probabilities)
      .required("confidence", out.confidence);
}

template <class In>
void read(Reader<In>& r, Node j, SelectorResult& out) {
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

template <class In>
void read(Reader<In>& r, Node j, Handoff& out) {
  Fields(r, j).required("source_id", out.source_id).required("target_id", out.target_id);
}

template <class In>
void read(Reader<In>& r, Node j, MentionDispatchPolicy& out) {
  Fields(r, j)
      .required("enabled", out.enabled)
      .required("max_hops", out.max_hops)
      .optional("no_return", out.no_return)
      .optional("max_turns_per_agent", out.max_turns_per_agent)
      .optional("allowed_handoffs", out.allowed_handoffs);
}

template <class In>
void read(Reader<In>& r, Node j, DispatchKey& out) {
  Fields(r, j).required("trigger_sequence", out.trigger_sequence);
}

template <class In>
void read(Reader<In>& r, Node j, DispatchConversation& out) {
  Fields(r, j).required("desk_id", out.desk_id).required("thread_root", out.thread_root);
}

template <class In>
void read(Reader<In>& r, Node j, MentionDispatchInput& out) {
  Fields(r, j)
      .required("key", out.key)
      .required("conversation", out.conversation)
      .required("author_id", out.author_id)
      .required("content", out.content)
      .required("mentions", out.mentions)
      .required("hop", out.hop)
      .optional("chain", out.chain);
}

template <class In>
void read(Reader<In>& r, Node j, MentionTurnRequest& out) {
  Fields(r, j)
      .required("key", out.key)
      .required("source_id", out.source_id)
      .required("target_id", out.target_id)
      .required("content", out.content)
      .required("conversation", out.conversation)
      .required("child_hop", out.child_hop);
}

template <class In>
void read(Reader<In>& r, Node j, MentionDispatchDecision& out) {
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
template <class In, class Outcome>
void read_outcome(Reader<In>& r, Node j, Outcome& out) {
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

template <class In>
void read(Reader<In>& r, Node j, EnqueueOutcome& out) {
  read_outcome(r, j, out);
}
template <class In>
void read(Reader<In>& r, Node j, MentionDispatchOutcome& out) {
  read_outcome(r, j, out);
}

template <class In>
void read(Reader<In>& r, Node j, Conversation& out) {
  Fields(r, j)
      .required("desk_id", out.desk_id)
      .required("desk_name", out.desk_name)
      .required("thread_root", out.thread_root);
}

template <class In>
void read(Reader<In>& r, Node j, MentionDispatchContext& out) {
  Fields(r, j).required("policy", out.policy).required("hop", out.hop).optional("chain", out.chain);
}

template <class In>
void read(Reader<In>& r, Node j, Brevity& out) {
  Fields(r, j).required("message_chars", out.message_chars).required("window", out.window);
}

template <class In>
void read(Reader<In>& r, Node j, BriefedTeammate& out) {
  Fields(r, j)
      .required("id", out.id)
      .required("label", out.label)
      .required("role", out.role)
      .required("description", out.description);
}

template <class In>
void read(Reader<In>& r, Node j, TeamBriefing& out) {
  Fields(r, j)
      .required("viewer_id", out.viewer_id)
      .required("desk_id", out.desk_id)
      .required("desk_name", out.desk_name)
      .required("teammates", out.teammates)
      .optional("brevity", out.brevity);
}

template <class In>
void read(Reader<In>& r, Node j, QueueError& out) {
  Fields(r, j).required("kind", out.kind).required("message", out.message);
}

// ---- writers ------------------------------------------------------------------------------
// Each `put` writes one value to a WireWriter. An object is written as
// `Object(out, size).field(key, value)....end()`, `size` being how many fields follow.

void put(WireWriter& out, std::string_view text) { out.string(text); }
void put(WireWriter& out, const char* text) { out.string(text); }
void put(WireWriter& out, const std::string& text) { out.string(text); }
void put(WireWriter& out, bool value) { out.boolean(value); }
template <WireUnsigned T>
void put(WireWriter& out, T value) {
  out.number(static_cast<std::uint64_t>(value));
}
template <WireEnum E>
void put(WireWriter& out, E value) {
  out.string(name(value));
}
void put(WireWriter& out, Probability value) { out.number(value.parts_per_million); }

// Declared here, so that `Object::field` finds each one; defined below.
template <class T>
void put(WireWriter& out, const std::optional<T>& value);
template <class T>
void put(WireWriter& out, const std::vector<T>& values);
void put(WireWriter& out, const MentionTarget& value);
void put(WireWriter& out, const MentionAuthor& value);
void put(WireWriter& out, const Mention& value);
void put(WireWriter& out, const RosterMember& value);
void put(WireWriter& out, const Person& value);
void put(WireWriter& out, const RosterSnapshot& value);
void put(WireWriter& out, const Desk& value);
void put(WireWriter& out, const DeskMember& value);
void put(WireWriter& out, const DeskOrder& value);
void put(WireWriter& out, const DeskSnapshot& value);
void put(WireWriter& out, const SelectorCandidate& value);
void put(WireWriter& out, const ResponderRequest& value);
void put(WireWriter& out, const SelectionRequest& value);
void put(WireWriter& out, const ResponderDecision& value);
void put(WireWriter& out, const ResponderPlan& value);
void put(WireWriter& out, const CandidateProbability& value);
void put(WireWriter& out, const SelectionEvaluation& value);
void put(WireWriter& out, const SelectorResult& value);
void put(WireWriter& out, const Handoff& value);
void put(WireWriter& out, const MentionDispatchPolicy& value);
void put(WireWriter& out, const DispatchKey& value);
void put(WireWriter& out, const DispatchConversation& value);
void put(WireWriter& out, const MentionDispatchInput& value);
void put(WireWriter& out, const MentionTurnRequest& value);
void put(WireWriter& out, const MentionDispatchDecision& value);
void put(WireWriter& out, const EnqueueOutcome& value);
void put(WireWriter& out, const MentionDispatchOutcome& value);
void put(WireWriter& out, const Conversation& value);
void put(WireWriter& out, const MentionDispatchContext& value);
void put(WireWriter& out, const QueueError& value);
void put(WireWriter& out, const Brevity& value);
void put(WireWriter& out, const BriefedTeammate& value);
void put(WireWriter& out, const TeamBriefing& value);
void put(WireWriter& out, const TraceStep& value);

class Object {
 public:
  Object(WireWriter& out, std::size_t size) : out_(out) { out_.begin_object(size); }
  template <class V>
  Object& field(std::string_view key, const V& value) {
    out_.key(key);
    put(out_, value);
    return *this;
  }
  void end() { out_.end_object(); }

 private:
  WireWriter& out_;
};

// An internally tagged alternative with no other field: `{"kind":"everyone"}`.
void tagged(WireWriter& out, std::string_view key, std::string_view tag) {
  Object(out, 1).field(key, tag).end();
}

void put(WireWriter& out, const MentionTarget& target) {
  std::visit(overloaded{
                 [&](const AgentTarget& t) {
                   Object(out, 2).field("kind", "agent").field("id", t.id).end();
                 },
                 [&](const PersonTarget& t) {
                   Object(out, 2).field("kind", "person").field("id", t.id).end();
                 },
                 [&](const DeskTarget& t) {
                   Object(out, 2).field("kind", "desk").field("id", t.id).end();
                 },
                 [&](const EveryoneTarget&) { tagged(out, "kind", "everyone"); },
             },
             target);
}

void put(WireWriter& out, const MentionAuthor& author) {
  std::visit(overloaded{
                 [&](const AgentAuthor& a) {
                   Object(out, 2).field("kind", "agent").field("id", a.id).end();
                 },
                 [&](const PersonAuthor& a) {
                   Object(out, 2).field("kind", "person").field("id", a.id).end();
                 },
                 [&](const OtherAuthor&) { tagged(out, "kind", "other"); },
             },
             author);
}

void put(WireWriter& out, const TraceStep& step) {
  Object(out, 6)
      .field("rule", step.rule)
      .field("outcome", step.outcome)
      .field("why", step.why)
      .field("subject", step.subject)
      .field("offset", step.offset)
      .field("count", step.count)
      .end();
}

void put(WireWriter& out, const Mention& m) {
  Object mention(out, m.quiet ? 4 : 3);
  mention.field("target", m.target).field("text", m.text).field("offset", m.offset);
  if (m.quiet) mention.field("quiet", true);
  mention.end();
}

void put(WireWriter& out, const RosterMember& m) {
  Object(out, 2).field("id", m.id).field("name", m.name).end();
}
void put(WireWriter& out, const Person& p) {
  Object(out, 2).field("id", p.id).field("label", p.label).end();
}
void put(WireWriter& out, const RosterSnapshot& s) {
  Object(out, 4)
      .field("members", s.members)
      .field("people", s.people)
      .field("retired", s.retired)
      .field("tombstoned", s.tombstoned)
      .end();
}

void put(WireWriter& out, const Desk& d) {
  const bool lead = d.responder_mode == ResponderMode::Lead;
  Object desk(out, lead ? 4 : 5);
  desk.field("id", d.id)
      .field("name", d.name)
      .field("description", d.description)
      .field("members", d.members);
  if (!lead) desk.field("responder_mode", d.responder_mode);
  desk.end();
}
void put(WireWriter& out, const DeskMember& m) {
  Object(out, 2).field("desk_id", m.desk_id).field("agent_id", m.agent_id).end();
}
void put(WireWriter& out, const DeskOrder& o) {
  Object(out, 2).field("desk_id", o.desk_id).field("ordered", o.ordered).end();
}
void put(WireWriter& out, const DeskSnapshot& s) {
  Object(out, 6)
      .field("declared", s.declared)
      .field("added", s.added)
      .field("member_additions", s.member_additions)
      .field("orders", s.orders)
      .field("retired", s.retired)
      .field("tombstoned", s.tombstoned)
      .end();
}

void put(WireWriter& out, const SelectorCandidate& c) {
  Object(out, 4)
      .field("id", c.id)
      .field("label", c.label)
      .field("role", c.role)
      .field("description", c.description)
      .end();
}
void put(WireWriter& out, const ResponderRequest& q) {
  Object request(out, q.thread_responder ? 6 : 5);
  request.field("message", q.message)
      .field("chat", q.chat)
      .field("mentions", q.mentions)
      .field("orchestrator_id", q.orchestrator_id)
      .field("selection_policy", q.selection_policy);
  if (q.thread_responder) request.field("thread_responder", *q.thread_responder);
  request.end();
}
void put(WireWriter& out, const SelectionRequest& q) {
  Object(out, 3)
      .field("message", q.message)
      .field("desk_id", q.desk_id)
      .field("candidates", q.candidates)
      .end();
}
void put(WireWriter& out, const ResponderDecision& d) {
  Object(out, 3)
      .field("responder_id", d.responder_id)
      .field("rung", d.rung)
      .field("disposition", d.disposition)
      .end();
}
void put(WireWriter& out, const ResponderPlan& plan) {
  std::visit(overloaded{
                 [&](const Decided& d) {
                   Object(out, 2).field("kind", "decided").field("decision", d.decision).end();
                 },
                 [&](const Select& s) {
                   Object(out, 3)
                       .field("kind", "select")
                       .field("request", s.request)
                       .field("fallback", s.fallback)
                       .end();
                 },
             },
             plan);
}
void put(WireWriter& out, const CandidateProbability& p) {
  Object(out, 2).field("candidate_id", p.candidate_id).field("probability", p.probability).end();
}
void put(WireWriter& out, const SelectionEvaluation& e) {
  Object(out, 3)
      .field("choice", e.choice)
      .field("probabilities", e.probabilities)
      .field("confidence", e.confidence)
      .end();
}
void put(WireWriter& out, const SelectorResult& result) {
  std::visit(overloaded{
                 [&](const SelectorAbsent&) { tagged(out, "kind", "absent"); },
                 [&](const SelectorFailed&) { tagged(out, "kind", "failed"); },
                 [&](const SelectorText& t) {
                   Object(out, 2).field("kind", "text").field("output", t.output).end();
                 },
                 [&](const SelectorEvaluation& e) {
                   Object(out, 3)
                       .field("kind", "evaluation")
                       .field("evaluation", e.evaluation)
                       .field("minimum_confidence", e.minimum_confidence)
                       .end();
                 },
             },
             result);
}

void put(WireWriter& out, const Handoff& h) {
  Object(out, 2).field("source_id", h.source_id).field("target_id", h.target_id).end();
}
// A rule on the chain's shape is written only when it is on, so a policy without one
// encodes as it did before the rules existed.
void put(WireWriter& out, const MentionDispatchPolicy& p) {
  Object policy(out, 2 + std::size_t{p.no_return} + std::size_t{p.max_turns_per_agent.has_value()} +
                         std::size_t{p.allowed_handoffs.has_value()});
  policy.field("enabled", p.enabled).field("max_hops", p.max_hops);
  if (p.no_return) policy.field("no_return", true);
  if (p.max_turns_per_agent) policy.field("max_turns_per_agent", *p.max_turns_per_agent);
  if (p.allowed_handoffs) policy.field("allowed_handoffs", *p.allowed_handoffs);
  policy.end();
}
void put(WireWriter& out, const DispatchKey& k) {
  Object(out, 1).field("trigger_sequence", k.trigger_sequence).end();
}
void put(WireWriter& out, const DispatchConversation& c) {
  Object(out, 2).field("desk_id", c.desk_id).field("thread_root", c.thread_root).end();
}
void put(WireWriter& out, const MentionDispatchInput& i) {
  Object input(out, i.chain.empty() ? 6 : 7);
  input.field("key", i.key)
      .field("conversation", i.conversation)
      .field("author_id", i.author_id)
      .field("content", i.content)
      .field("mentions", i.mentions)
      .field("hop", i.hop);
  if (!i.chain.empty()) input.field("chain", i.chain);
  input.end();
}
void put(WireWriter& out, const MentionTurnRequest& q) {
  Object(out, 6)
      .field("key", q.key)
      .field("source_id", q.source_id)
      .field("target_id", q.target_id)
      .field("content", q.content)
      .field("conversation", q.conversation)
      .field("child_hop", q.child_hop)
      .end();
}
void put(WireWriter& out, const MentionDispatchDecision& decision) {
  std::visit(overloaded{
                 [&](const NoDispatch& n) {
                   Object(out, 2).field("kind", "none").field("reason", n.reason).end();
                 },
                 [&](const DispatchOne& o) {
                   Object(out, 2).field("kind", "one").field("request", o.request).end();
                 },
             },
             decision);
}

void put(WireWriter& out, const Enqueued&) { tagged(out, "status", "enqueued"); }
void put(WireWriter& out, const Already&) { tagged(out, "status", "already"); }
void put(WireWriter& out, const Refused& r) {
  Object(out, 2).field("status", "refused").field("reason", r.reason).end();
}
void put(WireWriter& out, const NotDispatched& n) {
  Object(out, 2).field("status", "not_dispatched").field("reason", n.reason).end();
}
void put(WireWriter& out, const EnqueueOutcome& o) {
  std::visit([&](const auto& alternative) { put(out, alternative); }, o);
}
void put(WireWriter& out, const MentionDispatchOutcome& o) {
  std::visit([&](const auto& alternative) { put(out, alternative); }, o);
}

void put(WireWriter& out, const Conversation& c) {
  Object(out, 3)
      .field("desk_id", c.desk_id)
      .field("desk_name", c.desk_name)
      .field("thread_root", c.thread_root)
      .end();
}
void put(WireWriter& out, const MentionDispatchContext& c) {
  Object context(out, c.chain.empty() ? 2 : 3);
  context.field("policy", c.policy).field("hop", c.hop);
  if (!c.chain.empty()) context.field("chain", c.chain);
  context.end();
}
void put(WireWriter& out, const QueueError& e) {
  Object(out, 2).field("kind", e.kind).field("message", e.message).end();
}
void put(WireWriter& out, const Brevity& b) {
  Object(out, 2).field("message_chars", b.message_chars).field("window", b.window).end();
}
void put(WireWriter& out, const BriefedTeammate& t) {
  Object(out, 4)
      .field("id", t.id)
      .field("label", t.label)
      .field("role", t.role)
      .field("description", t.description)
      .end();
}
void put(WireWriter& out, const TeamBriefing& b) {
  Object(out, 5)
      .field("viewer_id", b.viewer_id)
      .field("desk_id", b.desk_id)
      .field("desk_name", b.desk_name)
      .field("teammates", b.teammates)
      .field("brevity", b.brevity)
      .end();
}

template <class T>
void put(WireWriter& out, const std::optional<T>& value) {
  if (value.has_value()) {
    put(out, *value);
  } else {
    out.null();
  }
}
template <class T>
void put(WireWriter& out, const std::vector<T>& values) {
  out.begin_array(values.size());
  for (const T& value : values) put(out, value);
  out.end_array();
}

// The WireWriter behind `to_value`: builds the tree, each container sized as announced.
class TreeWriter final : public WireWriter {
 public:
  [[nodiscard]] Value take() && { return std::move(root_); }

  void null() override { add(nullptr); }
  void boolean(bool value) override { add(value); }
  void number(std::uint64_t value) override { add(value); }
  void string(std::string_view value) override { add(std::string(value)); }
  void begin_array(std::size_t size) override {
    Value& array = add(Value::array());
    array.get_ref<Value::array_t&>().reserve(size);
    open_.push_back(&array);
  }
  void end_array() override { open_.pop_back(); }
  void begin_object(std::size_t size) override {
    Value& object = add(Value::object());
    object.get_ref<Value::object_t&>().reserve(size);
    open_.push_back(&object);
  }
  void key(std::string_view name) override { key_ = name; }
  void end_object() override { open_.pop_back(); }

 private:
  // Adds `value` where the writer is, and answers where it now is. Only the innermost open
  // container grows, so the pointers to the others stay valid.
  Value& add(Value value) {
    if (open_.empty()) {
      root_ = std::move(value);
      return root_;
    }
    Value& into = *open_.back();
    if (into.is_array()) {
      into.push_back(std::move(value));
      return into.back();
    }
    return into[std::string(key_)] = std::move(value);
  }

  Value root_;
  std::vector<Value*> open_;
  std::string_view key_;
};

}  // namespace

template <WireType T>
Result<T, DecodeError> from_value(const Value& value, std::string_view root) {
  TreeSource tree;
  Reader reader(tree, root);
  T out{};
  try {
    read(reader, Node{.value = &value}, out);
  } catch (const std::exception& failure) {  // defensive: the readers check types first
    reader.fail(std::string("could not be decoded: ") + failure.what());
  }
  if (!reader.ok()) return unexpected{std::move(reader).error()};
  return out;
}

template <WireType T>
Result<T, DecodeError> from_reader(WireReader& in, WireReader::Node value, std::string_view root) {
  Reader reader(in, root);
  T out{};
  read(reader, value, out);
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
void write(const T& value, WireWriter& out) {
  put(out, value);
}

template <WireType T>
Value to_value(const T& value) {
  TreeWriter tree;
  put(tree, value);
  return std::move(tree).take();
}

template <WireType T>
std::string encode(const T& value) {
  return to_value(value).dump(-1, ' ', false, Value::error_handler_t::replace);
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
                                       {"kind", std::string(name(failure.error.kind))},
                                       {"message", failure.error.message}};
                        },
                    },
                    error);
}

Value error_value(const DecodeError& error) {
  return {{"variant", "Decode"}, {"path", error.path}, {"reason", error.reason}};
}

// One instantiation per wire type (the WireType list).
#define THM_JSON_WIRE_TYPE(T)                                                                      \
  template Result<T, DecodeError> from_value<T>(const Value&, std::string_view);                   \
  template Result<T, DecodeError> from_reader<T>(WireReader&, WireReader::Node, std::string_view); \
  template Value to_value<T>(const T&);                                                            \
  template void write<T>(const T&, WireWriter&);                                                   \
  template Result<T, DecodeError> decode<T>(std::string_view);                                     \
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
THM_JSON_WIRE_TYPE(Handoff)
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
THM_JSON_WIRE_TYPE(TraceStep)
#undef THM_JSON_WIRE_TYPE

}  // namespace thm::json
