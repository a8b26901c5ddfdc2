// One function per operation of cases.md. Each decodes its input with the wire decoder
// first (SPEC §0.8), so a refused value is a `Decode` error result, never a decision.
#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "thm/bridge/bridge.hpp"
#include "thm/cli/args.hpp"
#include "thm/cli/cases.hpp"

namespace thm::cli {
namespace {

// ---- chat identity (SPEC §1.3) -------------------------------------------------------------

Value op_is_general_chat(Args& a) {
  const auto chat = a.nullable_text("chat");
  if (a.error()) return error_result(*a.error());
  return {{"result", is_general_chat(chat)}};
}

Value op_same_conversation(Args& a) {
  const auto first = a.nullable_text("a");
  const auto second = a.nullable_text("b");
  if (a.error()) return error_result(*a.error());
  return {{"result", same_conversation(first, second)}};
}

Value op_dispatch_conversation(Args& a) {
  const auto conversation = a.wire<Conversation>("conversation");
  if (a.error()) return error_result(*a.error());
  return {{"conversation", json::to_value(DispatchConversation::from(conversation))}};
}

// ---- snapshots, as views or as a prepared team (adr/0016) -----------------------------------

// `call(Roster, DeskSet)` on views of the snapshots, or, with `--impl prepared`,
// `call(team)` on a team prepared from them; snapshots no team holds go to the views, and
// the case is counted as such.
template <class Call>
Value on_snapshots(Args& a, const RosterSnapshot& roster, const DeskSnapshot& desks, Call call) {
  if (a.prepared()) {
    if (auto team = Team::prepare(roster, desks)) return call(*team);
    a.note_unprepared();
  }
  return call(Roster(roster), DeskSet(desks));
}

// `call(Roster)`, or `call(team)` on a team of the roster and no desks.
template <class Call>
Value on_roster(Args& a, const RosterSnapshot& roster, Call call) {
  if (a.prepared()) {
    if (auto team = Team::prepare(roster, {})) return call(*team);
    a.note_unprepared();
  }
  return call(Roster(roster));
}

// ---- mentions (SPEC §1.5) -----------------------------------------------------------------

Value mention_list(const std::vector<Mention>& mentions) {
  Value out = Value::array();
  for (const Mention& mention : mentions) out.push_back(json::to_value(mention));
  return out;
}

Value op_resolve_mentions(Args& a) {
  const auto body = a.text("body");
  const auto supplied = a.nullable_list<Mention>("supplied");
  const auto author = a.wire<MentionAuthor>("author");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  std::optional<std::span<const Mention>> supplied_view;
  if (supplied) supplied_view = std::span<const Mention>(*supplied);
  return on_snapshots(a, roster, desks, [&](const auto&... team) -> Value {
    return {{"mentions", mention_list(resolve_mentions(body, supplied_view, author, team...))}};
  });
}

Value op_direct_responder(Args& a) {
  const auto mentions = a.list<Mention>("mentions");
  const auto roster = a.wire<RosterSnapshot>("roster");
  if (a.error()) return error_result(*a.error());
  return on_roster(a, roster, [&](const auto& team) -> Value {
    return {{"responder_id", optional_id(direct_responder(mentions, team))}};
  });
}

Value op_mentioned_members(Args& a) {
  const auto mentions = a.list<Mention>("mentions");
  const auto addressed_desk = a.nullable_text("addressed_desk");
  const auto responder = a.nullable_text("responder");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  return on_snapshots(a, roster, desks, [&](const auto&... team) -> Value {
    return {{"members", id_list(mentioned_members(mentions, addressed_desk, responder, team...))}};
  });
}

// ---- desks (SPEC §1.2) -----------------------------------------------------------------------

Value op_validate_desks(Args& a) {
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  if (a.prepared()) {
    // A team of no members and these desks: what it reports is the desk set's first error.
    const auto team = Team::prepare({}, desks);
    if (!team.has_value()) return {{"error", json::error_value(std::get<DeskError>(team.error()))}};
    return {{"valid", true}};
  }
  if (auto error = DeskSet(desks).validate()) return {{"error", json::error_value(*error)}};
  return {{"valid", true}};
}

Value op_desk_members(Args& a) {
  const auto desks = a.wire<DeskSnapshot>("desks");
  const auto identity = a.text("identity");
  if (a.error()) return error_result(*a.error());
  const DeskSet set(desks);
  const auto members = set.members(identity);
  if (!members.has_value()) return {{"error", json::error_value(members.error())}};
  const auto lead = set.lead(identity);
  return {{"members", id_list(*members)}, {"lead", optional_id(*lead)}};
}

// ---- the responder ladder (SPEC §2.2, §2.3) ---------------------------------------------------

// The wire form of a decision trace (SPEC §8): an array of steps.
Value trace_value(const DecisionTrace& trace) {
  Value out = Value::array();
  for (const TraceStep& step : trace) out.push_back(json::to_value(step));
  return out;
}

// `result` with the trace of the decision that made it, when `thm explain` asked for one.
Value explained(Args& a, Value result, const DecisionTrace& trace) {
  if (a.explaining()) result["trace"] = trace_value(trace);
  return result;
}

Value op_responder_plan(Args& a) {
  const auto request = a.wire<ResponderRequest>("request");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  const auto details = a.list<SelectorCandidate>("candidate_details");
  if (a.error()) return error_result(*a.error());
  return on_snapshots(a, roster, desks, [&](const auto&... team) -> Value {
    DecisionTrace trace;
    const auto plan = a.explaining() ? responder_plan(request, team..., details, trace)
                                     : responder_plan(request, team..., details);
    if (!plan.has_value()) return explained(a, {{"error", json::error_value(plan.error())}}, trace);
    return explained(a, {{"plan", json::to_value(*plan)}}, trace);
  });
}

// ---- the team briefing (SPEC §7) ---------------------------------------------------------------

// The briefing text, with the dispatch sentence decided by `context` (absent: never).
std::optional<std::string> briefing_text(Args& a) {
  const auto briefing = a.wire<TeamBriefing>("briefing");
  const auto context = a.nullable_wire<MentionDispatchContext>("context");
  if (a.error()) return std::nullopt;
  return context ? briefing.system_text_with_dispatch(*context) : briefing.system_text();
}

Value op_briefing_text(Args& a) {
  const auto text = briefing_text(a);
  if (a.error()) return error_result(*a.error());
  return {{"text", *text}};
}

Value op_briefing_offers_dispatch(Args& a) {
  const auto text = briefing_text(a);
  if (a.error()) return error_result(*a.error());
  return {{"result", offers_dispatch(*text)}};
}

// ---- selection (SPEC §2.5, §2.6) -----------------------------------------------------------

Value op_accept_selection(Args& a) {
  const auto output = a.text("output");
  const auto candidates = a.list<SelectorCandidate>("candidates");
  if (a.error()) return error_result(*a.error());
  return {{"accepted", optional_id(accept_selection(output, candidates))}};
}

Value op_accept_evaluation(Args& a) {
  const auto evaluation = a.wire<SelectionEvaluation>("evaluation");
  const auto candidates = a.list<SelectorCandidate>("candidates");
  const auto minimum = a.wire<Probability>("minimum_confidence");
  if (a.error()) return error_result(*a.error());
  return {{"accepted", optional_id(accept_evaluation(evaluation, candidates, minimum))}};
}

Value op_settle_selection(Args& a) {
  const auto plan = a.wire<ResponderPlan>("plan");
  const auto selector = a.wire<SelectorResult>("selector");
  if (a.error()) return error_result(*a.error());
  DecisionTrace trace;
  const ResponderDecision decision =
      a.explaining() ? settle_selection(plan, selector, trace) : settle_selection(plan, selector);
  return explained(a, {{"decision", json::to_value(decision)}}, trace);
}

// ---- dispatch (SPEC §3, §4) ------------------------------------------------------------------

Value op_mention_dispatch(Args& a) {
  const auto policy = a.wire<MentionDispatchPolicy>("policy");
  const auto input = a.wire<MentionDispatchInput>("input");
  const auto roster = a.wire<RosterSnapshot>("roster");
  if (a.error()) return error_result(*a.error());
  return on_roster(a, roster, [&](const auto& team) -> Value {
    DecisionTrace trace;
    const auto decision = a.explaining() ? mention_dispatch(policy, input, team, trace)
                                         : mention_dispatch(policy, input, team);
    if (!decision.has_value()) {
      return explained(a, {{"error", json::error_value(decision.error())}}, trace);
    }
    return explained(a, {{"decision", json::to_value(*decision)}}, trace);
  });
}

Value op_dispatch_mention(Args& a) {
  const auto policy = a.wire<MentionDispatchPolicy>("policy");
  const auto input = a.wire<MentionDispatchInput>("input");
  const auto roster = a.wire<RosterSnapshot>("roster");
  auto answer = scripted_answer(a);
  if (a.error()) return {{"error", json::error_value(*a.error())}, {"queue_calls", 0}};
  return on_roster(a, roster, [&](const auto& team) -> Value {
    bridge::ScriptedQueue queue(answer);
    const auto outcome = dispatch_mention(queue, policy, input, team);
    Value result = outcome.has_value() ? Value{{"outcome", json::to_value(*outcome)}}
                                       : Value{{"error", json::error_value(outcome.error())}};
    result["queue_calls"] = queue.calls();
    return result;
  });
}

Value op_may_dispatch(Args& a) {
  const auto context = a.wire<MentionDispatchContext>("context");
  if (a.error()) return error_result(*a.error());
  return {{"result", context.may_dispatch()}};
}

// ---- wording (SPEC §5) -----------------------------------------------------------------------

struct Rendering {
  std::string_view display;
  std::string_view name;
};

template <class E>
std::optional<Rendering> render(std::optional<E> value) {
  if (!value.has_value()) return std::nullopt;
  return Rendering{to_string(*value), name(*value)};
}

// The renderings of the `{"type": T, "variant": wire_name}` object that `a` reads.
Rendering rendering_of(Args& a) {
  const std::string type = a.text("type");
  const std::string variant = a.text("variant");
  if (a.error()) return {};
  std::optional<Rendering> found;
  if (type == "NoDispatchReason") {
    found = render(no_dispatch_reason_from_name(variant));
  } else if (type == "EnqueueRefusal") {
    found = render(enqueue_refusal_from_name(variant));
  } else if (type == "ResponderRung") {
    found = render(responder_rung_from_name(variant));
  } else if (type == "SelectionDisposition") {
    found = render(selection_disposition_from_name(variant));
  } else {
    a.fail("type", "unknown type \"" + type + "\"");
    return {};
  }
  if (!found.has_value()) a.fail("variant", "unknown " + type + " variant \"" + variant + "\"");
  return found.value_or(Rendering{});
}

Value op_display(Args& a) {
  const Rendering rendering = rendering_of(a);
  if (a.error()) return error_result(*a.error());
  return {{"display", rendering.display}, {"name", rendering.name}};
}

Value op_display_equal(Args& a) {
  return display_equal(a, [](Args& one) { return std::string(rendering_of(one).display); });
}

}  // namespace

// `queue` is an EnqueueOutcome, or `{"fail": message}` with an optional `kind` (a
// QueueErrorKind token, `unavailable` when absent).
Result<EnqueueOutcome, QueueError> scripted_answer(Args& a) {
  const Value* script = a.field("queue");
  if (script == nullptr) return EnqueueOutcome{};
  if (!script->is_object() || !script->contains("fail")) return a.wire<EnqueueOutcome>("queue");
  QueueError failure{.kind = QueueErrorKind::Unavailable};
  const Value& message = (*script)["fail"];
  if (!message.is_string()) {
    a.fail("queue", "\"fail\" must be a string");
    return EnqueueOutcome{};
  }
  failure.message = message.get<std::string>();
  if (const auto kind = script->find("kind"); kind != script->end()) {
    auto decoded = json::from_value<QueueErrorKind>(*kind, "/input/queue/kind");
    if (!decoded.has_value()) {
      a.fail(std::move(decoded).error());
      return EnqueueOutcome{};
    }
    failure.kind = *decoded;
  }
  return unexpected{failure};
}

// ---- decode (SPEC §6) ------------------------------------------------------------------------

namespace {

// `value` decoded as the wire type `T` and written back in its canonical form.
template <json::WireType T>
Result<Value, json::DecodeError> roundtrip(const Value& value, std::string_view root) {
  auto decoded = json::from_value<T>(value, root);
  if (!decoded.has_value()) return unexpected{std::move(decoded).error()};
  return json::to_value(*decoded);
}

}  // namespace

Value decode_op(Args& a) {
  const std::string type = a.text("type");
  const Value* value = a.field("json");
  if (a.error()) return error_result(*a.error());
  Result<Value, json::DecodeError> canonical = Value();
  const bool known = json::visit_wire_type(type, [&]<class T>(std::type_identity<T>) {
    canonical = roundtrip<T>(*value, "/input/json");
  });
  if (!known) {
    a.fail("type", "unknown wire type \"" + type + "\"");
    return error_result(*a.error());
  }
  if (!canonical.has_value()) return error_result(canonical.error());
  return {{"value", *std::move(canonical)}};
}

// ---- the table -------------------------------------------------------------------------------

const OpTable& core_operations() {
  static const OpTable ops{
      {"is_general_chat", op_is_general_chat},
      {"same_conversation", op_same_conversation},
      {"dispatch_conversation", op_dispatch_conversation},
      {"accept_selection", op_accept_selection},
      {"accept_evaluation", op_accept_evaluation},
      {"settle_selection", op_settle_selection},
      {"mention_dispatch", op_mention_dispatch},
      {"dispatch_mention", op_dispatch_mention},
      {"may_dispatch", op_may_dispatch},
      {"display", op_display},
      {"display_equal", op_display_equal},
      {"decode", decode_op},
      {"resolve_mentions", op_resolve_mentions},
      {"direct_responder", op_direct_responder},
      {"mentioned_members", op_mentioned_members},
      {"validate_desks", op_validate_desks},
      {"desk_members", op_desk_members},
      {"responder_plan", op_responder_plan},
      {"briefing_text", op_briefing_text},
      {"briefing_offers_dispatch", op_briefing_offers_dispatch},
  };
  return ops;
}

namespace {

// The input keys of every operation, the one it reads first first (a test holds them to
// that), for `thm eval --help`.
const std::map<std::string, std::string, std::less<>>& operation_inputs() {
  static const std::map<std::string, std::string, std::less<>> inputs{
      {"accept_evaluation", "evaluation, candidates, minimum_confidence"},
      {"accept_selection", "output, candidates"},
      {"briefing_offers_dispatch", "briefing, context (or null)"},
      {"briefing_text", "briefing, context (or null)"},
      {"decode", "type (a wire type, below), json"},
      {"desk_members", "desks, identity"},
      {"direct_responder", "mentions, roster"},
      {"dispatch_conversation", "conversation"},
      {"dispatch_mention",
       "policy, input, roster, queue (an EnqueueOutcome, or {\"fail\": message, \"kind\"})"},
      {"display", "type, variant"},
      {"display_equal", "a, b (each {\"type\", \"variant\"})"},
      {"is_general_chat", "chat (or null)"},
      {"may_dispatch", "context"},
      {"mention_dispatch", "policy, input, roster"},
      {"mentioned_members",
       "mentions, addressed_desk (or null), responder (or null), roster, desks"},
      {"resolve_mentions", "body, supplied (or null), author, roster, desks"},
      {"responder_plan", "request, roster, desks, candidate_details"},
      {"same_conversation", "a, b (each or null)"},
      {"settle_selection", "plan, selector"},
      {"validate_desks", "desks"},
  };
  return inputs;
}

}  // namespace

std::vector<OperationInfo> operations() {
  std::map<std::string, OperationInfo, std::less<>> found;
  for (const auto& [name, op] : core_operations()) {
    found[name].in_core = true;
  }
  for (const auto& [name, op] : model_operations()) {
    found[name].in_model = true;
  }
  std::vector<OperationInfo> out;
  for (auto& [name, info] : found) {
    info.name = name;
    const auto input = operation_inputs().find(name);
    if (input != operation_inputs().end()) info.input = input->second;
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::string> wire_type_names() {
  std::vector<std::string> names(json::kWireTypeNames.begin(), json::kWireTypeNames.end());
  std::sort(names.begin(), names.end());
  return names;
}

Result<Value, std::string> run_op(std::string_view op, const Value& input,
                                  std::optional<json::DecodeError> refused, Implementation impl,
                                  RunNotes* notes, bool explain) {
  const OpTable& operations =
      impl == Implementation::Model ? model_operations() : core_operations();
  const auto found = operations.find(op);
  if (found != operations.end()) {
    Args args(input, "/input", std::move(refused));
    if (impl == Implementation::Prepared) args.run_prepared(notes);
    if (explain) args.explain();
    return found->second(args);
  }
  if (impl == Implementation::Model && core_operations().contains(op)) {
    return unexpected{"op \"" + std::string(op) +
                      "\" has no reference-model version; run it with --impl core"};
  }
  return unexpected{"unknown op \"" + std::string(op) + "\"; `thm eval --help` lists the ops"};
}

}  // namespace thm::cli
