// The operations of cases.md run by the reference model (`thm check --impl model`). Inputs
// are decoded by the same wire decoder as for the core, converted to model types by the
// bridge, and the model's answers converted back for encoding; only `decode` itself is
// shared, since it tests the wire forms rather than the behaviour.
#include <nlohmann/json.hpp>

#include "thm/bridge/bridge.hpp"
#include "thm/cli/args.hpp"
#include "thm/model/model.hpp"

namespace thm::cli {
namespace {

using bridge::to_core;
using bridge::to_model;

// The model's error in the case-file shape. A message the error carries is the host's own
// (a failed enqueue, SPEC §4) and is kept; the core's sentences are not the model's to
// restate, so any other error gets a sentence of the model's.
Value model_error(const model::Error& error) {
  Value out{{"variant", error.variant}};
  for (const auto& [key, value] : error.fields) out[key] = value;
  if (!out.contains("message")) out["message"] = "the reference model refused this input";
  return out;
}

Value mention_list(const std::vector<model::Mention>& mentions) {
  Value out = Value::array();
  for (const Mention& mention : to_core(mentions)) out.push_back(json::to_value(mention));
  return out;
}

Value op_is_general_chat(Args& a) {
  const auto chat = a.nullable_text("chat");
  if (a.error()) return error_result(*a.error());
  return {{"result", model::is_general_chat(chat)}};
}

Value op_same_conversation(Args& a) {
  const auto first = a.nullable_text("a");
  const auto second = a.nullable_text("b");
  if (a.error()) return error_result(*a.error());
  return {{"result", model::same_conversation(first, second)}};
}

Value op_dispatch_conversation(Args& a) {
  const auto conversation = a.wire<Conversation>("conversation");
  if (a.error()) return error_result(*a.error());
  return {{"conversation",
           json::to_value(to_core(model::dispatch_conversation(to_model(conversation))))}};
}

Value op_resolve_mentions(Args& a) {
  const auto body = a.text("body");
  const auto supplied = a.nullable_list<Mention>("supplied");
  const auto author = a.wire<MentionAuthor>("author");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  std::optional<std::vector<model::Mention>> model_supplied;
  if (supplied) model_supplied = to_model(*supplied);
  return {{"mentions", mention_list(model::resolve_mentions(body, model_supplied, to_model(author),
                                                            to_model(roster), to_model(desks)))}};
}

Value op_direct_responder(Args& a) {
  const auto mentions = a.list<Mention>("mentions");
  const auto roster = a.wire<RosterSnapshot>("roster");
  if (a.error()) return error_result(*a.error());
  return {
      {"responder_id", optional_id(model::direct_responder(to_model(mentions), to_model(roster)))}};
}

Value op_mentioned_members(Args& a) {
  const auto mentions = a.list<Mention>("mentions");
  const auto addressed_desk = a.nullable_text("addressed_desk");
  const auto responder = a.nullable_text("responder");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  return {
      {"members", id_list(model::mentioned_members(to_model(mentions), addressed_desk, responder,
                                                   to_model(roster), to_model(desks)))}};
}

Value op_validate_desks(Args& a) {
  const auto desks = a.wire<DeskSnapshot>("desks");
  if (a.error()) return error_result(*a.error());
  if (auto error = model::validate_desks(to_model(desks))) return {{"error", model_error(*error)}};
  return {{"valid", true}};
}

Value op_desk_members(Args& a) {
  const auto desks = a.wire<DeskSnapshot>("desks");
  const auto identity = a.text("identity");
  if (a.error()) return error_result(*a.error());
  const auto members = model::desk_members(to_model(desks), identity);
  if (members.error) return {{"error", model_error(*members.error)}};
  const Value lead = members.value->empty() ? Value(nullptr) : Value(members.value->front());
  return {{"members", id_list(*members.value)}, {"lead", lead}};
}

// The model's steps in the wire form of SPEC §8.2, as it wrote them: its tokens are not
// checked here, so a disagreement with the core shows as it is.
Value trace_value(const std::vector<model::Step>& trace) {
  Value out = Value::array();
  for (const model::Step& step : trace) {
    const auto number = [](const std::optional<std::uint64_t>& n) {
      return n ? Value(*n) : Value(nullptr);
    };
    out.push_back({{"rule", step.rule},
                   {"outcome", step.outcome},
                   {"why", step.why.empty() ? Value(nullptr) : Value(step.why)},
                   {"subject", step.subject},
                   {"offset", number(step.offset)},
                   {"count", number(step.count)}});
  }
  return out;
}

// `result` with the model's trace, when `thm explain` asked for one.
Value explained(Args& a, Value result, const std::vector<model::Step>& trace) {
  if (a.explaining()) result["trace"] = trace_value(trace);
  return result;
}

Value op_responder_plan(Args& a) {
  const auto request = a.wire<ResponderRequest>("request");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto desks = a.wire<DeskSnapshot>("desks");
  const auto details = a.list<SelectorCandidate>("candidate_details");
  if (a.error()) return error_result(*a.error());
  std::vector<model::Step> trace;
  const auto plan = model::responder_plan(to_model(request), to_model(roster), to_model(desks),
                                          to_model(details), &trace);
  if (plan.error) return explained(a, {{"error", model_error(*plan.error)}}, trace);
  return explained(a, {{"plan", json::to_value(to_core(*plan.value))}}, trace);
}

Value op_accept_selection(Args& a) {
  const auto output = a.text("output");
  const auto candidates = a.list<SelectorCandidate>("candidates");
  if (a.error()) return error_result(*a.error());
  return {{"accepted", optional_id(model::accept_selection(output, to_model(candidates)))}};
}

Value op_accept_evaluation(Args& a) {
  const auto evaluation = a.wire<SelectionEvaluation>("evaluation");
  const auto candidates = a.list<SelectorCandidate>("candidates");
  const auto minimum = a.wire<Probability>("minimum_confidence");
  if (a.error()) return error_result(*a.error());
  return {
      {"accepted", optional_id(model::accept_evaluation(to_model(evaluation), to_model(candidates),
                                                        minimum.parts_per_million))}};
}

Value op_settle_selection(Args& a) {
  const auto plan = a.wire<ResponderPlan>("plan");
  const auto selector = a.wire<SelectorResult>("selector");
  if (a.error()) return error_result(*a.error());
  std::vector<model::Step> trace;
  const model::Decision decision =
      model::settle_selection(to_model(plan), to_model(selector), &trace);
  return explained(a, {{"decision", json::to_value(to_core(decision))}}, trace);
}

Value op_mention_dispatch(Args& a) {
  const auto policy = a.wire<MentionDispatchPolicy>("policy");
  const auto input = a.wire<MentionDispatchInput>("input");
  const auto roster = a.wire<RosterSnapshot>("roster");
  if (a.error()) return error_result(*a.error());
  std::vector<model::Step> trace;
  const auto decision =
      model::mention_dispatch(to_model(policy), to_model(input), to_model(roster), &trace);
  if (decision.error) return explained(a, {{"error", model_error(*decision.error)}}, trace);
  return explained(a, {{"decision", json::to_value(to_core(*decision.value))}}, trace);
}

Value op_dispatch_mention(Args& a) {
  const auto policy = a.wire<MentionDispatchPolicy>("policy");
  const auto input = a.wire<MentionDispatchInput>("input");
  const auto roster = a.wire<RosterSnapshot>("roster");
  const auto answer = scripted_answer(a);
  if (a.error()) return {{"error", json::error_value(*a.error())}, {"queue_calls", 0}};
  const model::DispatchResult result = model::dispatch_mention(to_model(answer), to_model(policy),
                                                               to_model(input), to_model(roster));
  Value out;
  if (result.error) {
    out["error"] = model_error(*result.error);
    if (result.core) out["error"]["core"] = model_error(*result.core);
  } else {
    out["outcome"] = json::to_value(bridge::to_core_outcome(result));
  }
  out["queue_calls"] = result.queue_calls;
  return out;
}

Value op_may_dispatch(Args& a) {
  const auto context = a.wire<MentionDispatchContext>("context");
  if (a.error()) return error_result(*a.error());
  return {{"result", model::may_dispatch(to_model(context))}};
}

// `{"type", "variant"}` → the model's sentence, or a decode error at the part it does not know.
std::optional<std::string> sentence_of(Args& a) {
  const std::string type = a.text("type");
  const std::string variant = a.text("variant");
  if (a.error()) return std::nullopt;
  if (auto sentence = model::display(type, variant)) return sentence;
  const bool known_type = type == "NoDispatchReason" || type == "EnqueueRefusal" ||
                          type == "ResponderRung" || type == "SelectionDisposition";
  if (known_type) {
    a.fail("variant", "unknown " + type + " variant \"" + variant + "\"");
  } else {
    a.fail("type", "unknown type \"" + type + "\"");
  }
  return std::nullopt;
}

Value op_display(Args& a) {
  const auto sentence = sentence_of(a);
  if (a.error()) return error_result(*a.error());
  return {{"display", *sentence}, {"name", a.text("variant")}};
}

Value op_display_equal(Args& a) {
  return display_equal(a, [](Args& one) { return sentence_of(one).value_or(""); });
}

Value op_briefing_offers_dispatch(Args& a) {
  const auto briefing = a.wire<TeamBriefing>("briefing");
  const auto context = a.nullable_wire<MentionDispatchContext>("context");
  if (a.error()) return error_result(*a.error());
  std::optional<model::DispatchContext> model_context;
  if (context) model_context = to_model(*context);
  std::vector<std::string> teammates;
  for (const BriefedTeammate& teammate : briefing.teammates) teammates.push_back(teammate.id);
  return {
      {"result", model::briefing_offers_dispatch(model_context, briefing.viewer_id, teammates)}};
}

}  // namespace

const OpTable& model_operations() {
  // briefing_text is absent on purpose: its words are the core's own, which the model does
  // not restate (SPEC §7 pins only whether the dispatch sentence appears).
  static const OpTable ops{
      {"is_general_chat", op_is_general_chat},
      {"same_conversation", op_same_conversation},
      {"dispatch_conversation", op_dispatch_conversation},
      {"resolve_mentions", op_resolve_mentions},
      {"direct_responder", op_direct_responder},
      {"mentioned_members", op_mentioned_members},
      {"validate_desks", op_validate_desks},
      {"desk_members", op_desk_members},
      {"responder_plan", op_responder_plan},
      {"accept_selection", op_accept_selection},
      {"accept_evaluation", op_accept_evaluation},
      {"settle_selection", op_settle_selection},
      {"mention_dispatch", op_mention_dispatch},
      {"dispatch_mention", op_dispatch_mention},
      {"may_dispatch", op_may_dispatch},
      {"display", op_display},
      {"display_equal", op_display_equal},
      {"briefing_offers_dispatch", op_briefing_offers_dispatch},
      {"decode", decode_op},
  };
  return ops;
}

}  // namespace thm::cli
