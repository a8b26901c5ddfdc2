// The operations of `thm eval` as JavaScript functions (adr/0014), each a call of the core's
// own function. Wire arguments are the SPEC §6 forms as plain objects (or what `fromJSON`
// made, read in place); a malformed one is a `thm.DecodeError` with the path from the
// argument's name (`/roster/agents/0/id`). Answers are frozen wire forms; refusals are
// values; a core error is thrown as the thm error of its family, built from the C++ error's
// case-file form.
#include "operations.hpp"

#include <napi.h>

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "convert.hpp"
#include "held.hpp"
#include "large_roster.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"

namespace thm::node {

// The prepared team of `args.team` (made by `prepareTeam`), or null when the call gives its
// snapshots instead. A `TypeError` for anything else under `team`, and for a team given
// beside snapshots, which would leave the call two answers to choose between.
const Team* team_of(Napi::Env env, Napi::Object args, std::string_view op) {
  const Napi::Value value = argument(args, "team");
  if (value.IsUndefined()) return nullptr;
  const Team* team = held_team(env, value);
  if (team == nullptr) {
    throw Napi::TypeError::New(
        env,
        where(op, "team") + ": expected a team made by thm.prepareTeam, got " + described(value));
  }
  if (!argument(args, "roster").IsUndefined() || !argument(args, "desks").IsUndefined()) {
    throw Napi::TypeError::New(
        env, std::string(op) + ": give a team or its snapshots (roster, desks), not both");
  }
  return team;
}

namespace {

// ---- answers ------------------------------------------------------------------------------

Napi::Value optional_id(Napi::Env env, const std::optional<std::string>& id) {
  if (!id) return env.Null();
  return Napi::String::New(env, *id);
}

// A list of ids or of wire values, as one frozen array.
template <class List>
Napi::Value wire_list(Napi::Env env, const List& values) {
  JsWriter out(env);
  out.begin_array(values.size());
  for (const auto& value : values) {
    if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
      out.string(value);
    } else {
      json::write(value, out);
    }
  }
  out.end_array();
  return out.take();
}

// ---- errors: one class per family, built from the case-file form --------------------------

[[noreturn]] void raise(Napi::Env env, const RosterError& error) {
  throw_error(env, "RosterError", json::error_value(error));
}
[[noreturn]] void raise(Napi::Env env, const DeskError& error) {
  throw_error(env, "DeskError", json::error_value(error));
}
[[noreturn]] void raise(Napi::Env env, const ResponderError& error) {
  if (const auto* roster = std::get_if<RosterError>(&error)) raise(env, *roster);
  if (const auto* desks = std::get_if<DeskError>(&error)) raise(env, *desks);
  throw_error(env, "ResponderError", json::error_value(error));
}
[[noreturn]] void raise(Napi::Env env, const BriefingError& error) {
  std::visit([&](const auto& inner) { raise(env, inner); }, error);
  thm::detail::unreachable();
}

// ---- prepared teams (adr/0016) ------------------------------------------------------------

// `prepareTeam({ roster, desks })`: the team, as the frozen object of its two snapshots that
// holds it; throws RosterError or DeskError as the decisions would.
Napi::Value op_prepare_team(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "prepareTeam";
  const Napi::Env env = info.Env();
  const Napi::Object args = named(info, 0, op);
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  const Arg<DeskSnapshot> desks(env, required(args, "desks", op), "/desks");
  auto team = Team::prepare(*roster, *desks);
  if (!team) raise(env, team.error());
  Napi::Object out = Napi::Object::New(env);
  out.Set("roster", to_js(env, team->roster_snapshot()));
  out.Set("desks", to_js(env, team->desk_snapshot()));
  out.Freeze();
  attach_held(env, out, std::make_unique<HeldTeam>(*std::move(team)));
  return out;
}

// ---- chat identity (SPEC §1.3) ------------------------------------------------------------

Napi::Value op_is_general_chat(const Napi::CallbackInfo& info) {
  const auto chat = nullable_text(info[0], "isGeneralChat(chat)");
  return Napi::Boolean::New(info.Env(), is_general_chat(chat));
}

Napi::Value op_same_conversation(const Napi::CallbackInfo& info) {
  const auto a = nullable_text(info[0], "sameConversation(a)");
  const auto b = nullable_text(info[1], "sameConversation(b)");
  return Napi::Boolean::New(info.Env(), same_conversation(a, b));
}

Napi::Value op_dispatch_conversation(const Napi::CallbackInfo& info) {
  const Arg<Conversation> conversation(
      info.Env(), given(info, 0, "dispatchConversation", "conversation"), "/conversation");
  return to_js(info.Env(), DispatchConversation::from(*conversation));
}

// ---- mentions (SPEC §1.5) -----------------------------------------------------------------

Napi::Value op_resolve_mentions(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "resolveMentions";
  const Napi::Env env = info.Env();
  const auto body = text(info[0], where(op, "body"));
  const Napi::Object args = named(info, 1, op);
  const Napi::Value supplied_value = argument(args, "supplied");
  std::optional<std::vector<Mention>> supplied;
  if (!supplied_value.IsNull() && !supplied_value.IsUndefined()) {
    supplied = decode_list<Mention>(env, supplied_value, "/supplied", where(op, "supplied"));
  }
  const Arg<MentionAuthor> author(env, required(args, "author", op), "/author");
  std::optional<std::span<const Mention>> view;
  if (supplied) view = std::span<const Mention>(*supplied);
  if (const Team* team = team_of(env, args, op)) {
    return wire_list(env, resolve_mentions(body, view, *author, *team));
  }
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  warn_if_large(env, *roster, op);
  const Arg<DeskSnapshot> desks(env, required(args, "desks", op), "/desks");
  return wire_list(env, resolve_mentions(body, view, *author, Roster(*roster), DeskSet(*desks)));
}

Napi::Value op_direct_responder(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "directResponder";
  const Napi::Env env = info.Env();
  const auto mentions = decode_list<Mention>(env, info[0], "/mentions", where(op, "mentions"));
  const Napi::Object args = named(info, 1, op);
  if (const Team* team = team_of(env, args, op)) {
    return optional_id(env, direct_responder(mentions, *team));
  }
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  warn_if_large(env, *roster, op);
  return optional_id(env, direct_responder(mentions, Roster(*roster)));
}

Napi::Value op_mentioned_members(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "mentionedMembers";
  const Napi::Env env = info.Env();
  const auto mentions = decode_list<Mention>(env, info[0], "/mentions", where(op, "mentions"));
  const Napi::Object args = named(info, 1, op);
  const auto desk = nullable_text(argument(args, "addressed_desk"), where(op, "addressed_desk"));
  const auto responder = nullable_text(argument(args, "responder"), where(op, "responder"));
  std::optional<std::string_view> desk_view;
  if (desk) desk_view = *desk;
  std::optional<std::string_view> responder_view;
  if (responder) responder_view = *responder;
  if (const Team* team = team_of(env, args, op)) {
    return wire_list(env, mentioned_members(mentions, desk_view, responder_view, *team));
  }
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  warn_if_large(env, *roster, op);
  const Arg<DeskSnapshot> desks(env, required(args, "desks", op), "/desks");
  return wire_list(env, mentioned_members(mentions, desk_view, responder_view, Roster(*roster),
                                          DeskSet(*desks)));
}

// ---- desks (SPEC §1.2) --------------------------------------------------------------------

Napi::Value op_validate_desks(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const Arg<DeskSnapshot> desks(env, given(info, 0, "validateDesks", "desks"), "/desks");
  const auto error = DeskSet(*desks).validate();
  if (!error) return env.Null();
  return make_error(env, "DeskError", json::error_value(*error));
}

Napi::Value op_desk_members(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "deskMembers";
  const Napi::Env env = info.Env();
  const Arg<DeskSnapshot> desks(env, given(info, 0, op, "desks"), "/desks");
  const Napi::Object args = named(info, 1, op);
  const auto identity = text(required(args, "identity", op), where(op, "identity"));
  const DeskSet view(*desks);
  auto members = view.members(identity);
  if (!members) raise(env, members.error());
  auto lead = view.lead(identity);
  if (!lead) raise(env, lead.error());
  Napi::Object out = Napi::Object::New(env);
  out.Set("members", wire_list(env, *members));
  out.Set("lead", optional_id(env, *lead));
  out.Freeze();
  return out;
}

// ---- decision traces (SPEC §8) ------------------------------------------------------------

// The named argument `trace` of the operations that explain themselves: absent (or null), or
// an array the steps of the decision are pushed onto as `TraceStep` objects, also when the
// operation throws.
class TraceArray {
 public:
  TraceArray(Napi::Object args, std::string_view op) : array_(argument(args, "trace")) {
    if (array_.IsUndefined() || array_.IsNull()) return;
    if (!array_length(args.Env(), array_)) {
      throw Napi::TypeError::New(
          args.Env(), where(op, "trace") + ": expected an array, got " + described(array_));
    }
    // Checked before the decision, so that a frozen array cannot lose it afterwards.
    const Napi::Function extensible = args.Env()
                                          .Global()
                                          .Get("Object")
                                          .As<Napi::Object>()
                                          .Get("isExtensible")
                                          .As<Napi::Function>();
    if (!extensible.Call({array_}).ToBoolean().Value()) {
      throw Napi::TypeError::New(args.Env(), where(op, "trace") +
                                                 ": expected an array steps can be pushed onto, "
                                                 "got a frozen or sealed one");
    }
    wanted_ = true;
  }
  [[nodiscard]] bool wanted() const { return wanted_; }
  DecisionTrace& steps() { return steps_; }
  // Pushes the steps; call it before throwing the core's error.
  void hand_over(Napi::Env env) {
    if (!wanted_) return;
    const Napi::Function push = array_.As<Napi::Object>().Get("push").As<Napi::Function>();
    for (const TraceStep& step : steps_) push.Call(array_, {to_js(env, step)});
  }

 private:
  Napi::Value array_;
  bool wanted_ = false;
  DecisionTrace steps_;
};

Napi::Value op_agent_sentences(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const auto trace = decode_list<TraceStep>(env, given(info, 0, "agentSentences", "trace"),
                                            "/trace", "agentSentences(trace)");
  const std::vector<std::string_view> sentences = agent_sentences(trace);
  Napi::Array out = Napi::Array::New(env, sentences.size());
  for (std::uint32_t i = 0; i < sentences.size(); ++i) {
    out.Set(i, Napi::String::New(env, sentences[i].data(), sentences[i].size()));
  }
  out.Freeze();
  return out;
}

Napi::Value op_operator_line(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const Arg<TraceStep> step(env, given(info, 0, "operatorLine", "step"), "/step");
  return Napi::String::New(env, to_string(*step));
}

// ---- the responder ladder (SPEC §2.2, §2.3) -----------------------------------------------

Napi::Value op_responder_plan(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "responderPlan";
  const Napi::Env env = info.Env();
  const Arg<ResponderRequest> request(env, given(info, 0, op, "request"), "/request");
  const Napi::Object args = named(info, 1, op);
  const Team* team = team_of(env, args, op);
  std::optional<Arg<RosterSnapshot>> roster;
  std::optional<Arg<DeskSnapshot>> desks;
  if (team == nullptr) {
    roster.emplace(env, required(args, "roster", op), "/roster");
    desks.emplace(env, required(args, "desks", op), "/desks");
    warn_if_large(env, **roster, op);
  }
  const auto details =
      decode_list<SelectorCandidate>(env, required(args, "candidate_details", op),
                                     "/candidate_details", where(op, "candidate_details"));
  TraceArray trace(args, op);
  auto plan = [&] {
    if (team != nullptr) {
      return trace.wanted() ? responder_plan(*request, *team, details, trace.steps())
                            : responder_plan(*request, *team, details);
    }
    return trace.wanted() ? responder_plan(*request, Roster(**roster), DeskSet(**desks), details,
                                           trace.steps())
                          : responder_plan(*request, Roster(**roster), DeskSet(**desks), details);
  }();
  trace.hand_over(env);
  if (!plan) raise(env, plan.error());
  return to_js(env, *plan);
}

// ---- the team briefing (SPEC §7) ----------------------------------------------------------

Napi::Value op_team_briefing(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "teamBriefing";
  const Napi::Env env = info.Env();
  const Napi::Object args = named(info, 0, op);
  const auto viewer = text(required(args, "viewer_id", op), where(op, "viewer_id"));
  const Arg<Conversation> conversation(env, required(args, "conversation", op), "/conversation");
  if (const Team* team = team_of(env, args, op)) {
    auto briefing = TeamBriefing::from_team(viewer, *conversation, *team);
    if (!briefing) raise(env, briefing.error());
    return attach(env, *std::move(briefing));
  }
  const Arg<DeskSnapshot> desks(env, required(args, "desks", op), "/desks");
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  warn_if_large(env, *roster, op);
  auto briefing =
      TeamBriefing::from_snapshots(viewer, *conversation, DeskSet(*desks), Roster(*roster));
  if (!briefing) raise(env, briefing.error());
  return attach(env, *std::move(briefing));
}

Napi::Value op_briefing_text(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const Arg<TeamBriefing> briefing(env, given(info, 0, "briefingText", "briefing"), "/briefing");
  if (info[1].IsNull() || info[1].IsUndefined()) {
    return Napi::String::New(env, briefing->system_text());
  }
  const Arg<MentionDispatchContext> context(env, info[1], "/context");
  return Napi::String::New(env, briefing->system_text_with_dispatch(*context));
}

Napi::Value op_offers_dispatch(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), offers_dispatch(text(info[0], "offersDispatch(text)")));
}

// ---- selection (SPEC §2.5, §2.6) ----------------------------------------------------------

Napi::Value op_accept_selection(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "acceptSelection";
  const Napi::Env env = info.Env();
  const auto output = text(info[0], where(op, "output"));
  const Napi::Object args = named(info, 1, op);
  const auto candidates = decode_list<SelectorCandidate>(env, required(args, "candidates", op),
                                                         "/candidates", where(op, "candidates"));
  return optional_id(env, accept_selection(output, candidates));
}

Napi::Value op_accept_evaluation(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "acceptEvaluation";
  const Napi::Env env = info.Env();
  const Arg<SelectionEvaluation> evaluation(env, given(info, 0, op, "evaluation"), "/evaluation");
  const Napi::Object args = named(info, 1, op);
  const auto candidates = decode_list<SelectorCandidate>(env, required(args, "candidates", op),
                                                         "/candidates", where(op, "candidates"));
  const Arg<Probability> bar(env, required(args, "minimum_confidence", op), "/minimum_confidence");
  return optional_id(env, accept_evaluation(*evaluation, candidates, *bar));
}

Napi::Value op_settle_selection(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "settleSelection";
  const Napi::Env env = info.Env();
  const Arg<ResponderPlan> plan(env, given(info, 0, op, "plan"), "/plan");
  const Napi::Object args = named(info, 1, op);
  const Arg<SelectorResult> selector(env, required(args, "selector", op), "/selector");
  TraceArray trace(args, op);
  if (!trace.wanted()) return to_js(env, settle_selection(*plan, *selector));
  const ResponderDecision decision = settle_selection(*plan, *selector, trace.steps());
  trace.hand_over(env);
  return to_js(env, decision);
}

// ---- dispatch (SPEC §3) -------------------------------------------------------------------

Napi::Value op_mention_dispatch(const Napi::CallbackInfo& info) {
  constexpr std::string_view op = "mentionDispatch";
  const Napi::Env env = info.Env();
  const Napi::Object args = named(info, 0, op);
  const Arg<MentionDispatchPolicy> policy(env, required(args, "policy", op), "/policy");
  const Arg<MentionDispatchInput> input(env, required(args, "input", op), "/input");
  TraceArray trace(args, op);
  if (const Team* team = team_of(env, args, op)) {
    const auto decision = trace.wanted() ? mention_dispatch(*policy, *input, *team, trace.steps())
                                         : mention_dispatch(*policy, *input, *team);
    trace.hand_over(env);
    return to_js(env, *decision);  // a team never fails it
  }
  const Arg<RosterSnapshot> roster(env, required(args, "roster", op), "/roster");
  warn_if_large(env, *roster, op);
  auto decision = trace.wanted() ? mention_dispatch(*policy, *input, Roster(*roster), trace.steps())
                                 : mention_dispatch(*policy, *input, Roster(*roster));
  trace.hand_over(env);
  if (!decision) raise(env, decision.error());
  return to_js(env, *decision);
}

Napi::Value op_may_dispatch(const Napi::CallbackInfo& info) {
  const Arg<MentionDispatchContext> context(info.Env(), given(info, 0, "mayDispatch", "context"),
                                            "/context");
  return Napi::Boolean::New(info.Env(), context->may_dispatch());
}

// The canonical idempotency key of the child turn `request` would start (SPEC §3.3).
Napi::Value op_turn_key(const Napi::CallbackInfo& info) {
  const Arg<MentionTurnRequest> request(info.Env(), given(info, 0, "turnKey", "request"),
                                        "/request");
  return text_or_bytes(info.Env(), turn_key(*request).encoded());
}

// ---- wording (SPEC §5) --------------------------------------------------------------------

template <class E>
std::optional<std::string> sentence(std::string_view token,
                                    std::optional<E> (*from_name)(std::string_view)) {
  const auto value = from_name(token);
  if (!value) return std::nullopt;
  return std::string(to_string(*value));
}

Napi::Value op_display(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const auto type = text(info[0], "display(type)");
  const auto token = text(info[1], "display(token)");
  std::optional<std::string> out;
  if (type == "NoDispatchReason") {
    out = sentence(token, no_dispatch_reason_from_name);
  } else if (type == "EnqueueRefusal") {
    out = sentence(token, enqueue_refusal_from_name);
  } else if (type == "ResponderRung") {
    out = sentence(token, responder_rung_from_name);
  } else if (type == "SelectionDisposition") {
    out = sentence(token, selection_disposition_from_name);
  } else {
    throw Napi::TypeError::New(env,
                               "display(type): expected \"NoDispatchReason\", "
                               "\"EnqueueRefusal\", \"ResponderRung\" or "
                               "\"SelectionDisposition\", got \"" +
                                   type + "\"");
  }
  if (!out) {
    throw Napi::RangeError::New(env, "display(token): \"" + token + "\" is not a " + type);
  }
  return Napi::String::New(env, *out);
}

// ---- wire forms (SPEC §6) -----------------------------------------------------------------

// The wire type named by `info[0]`, given to `visit` as a std::type_identity.
template <class Visit>
Napi::Value by_type(const Napi::CallbackInfo& info, std::string_view op, Visit visit) {
  const auto name = text(info[0], where(op, "type"));
  Napi::Value out;
  if (!json::visit_wire_type(name, [&](auto type) { out = visit(type); })) {
    throw Napi::TypeError::New(info.Env(), std::string(op) + "(type): \"" + name +
                                               "\" is not a wire type (see WIRE_TYPES)");
  }
  return out;
}

// The `{ root }` option of `fromJSON` and `parse`: where paths in errors start ("").
std::string root_option(const Napi::CallbackInfo& info, std::string_view op) {
  if (info.Length() < 3 || info[2].IsUndefined()) return "";
  const Napi::Object options = named(info, 2, op);
  const auto root = nullable_text(argument(options, "root"), where(op, "root"));
  return root.value_or("");
}

Napi::Value op_from_json(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const std::string root = root_option(info, "fromJSON");
  return by_type(info, "fromJSON", [&]<class T>(std::type_identity<T>) {
    return attach(env, decode<T>(env, info[1], root));
  });
}

Napi::Value op_parse(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const auto document = text(info[1], "parse(text)");
  return by_type(info, "parse", [&]<class T>(std::type_identity<T>) {
    auto decoded = json::decode<T>(document);
    if (!decoded) throw_decode_error(env, decoded.error());
    return attach(env, *std::move(decoded));
  });
}

Napi::Value op_stringify(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  return by_type(info, "stringify", [&]<class T>(std::type_identity<T>) {
    return Napi::String::New(env, json::encode(decode<T>(env, info[1], "")));
  });
}

}  // namespace

void add_operations(Napi::Env env, Napi::Object exports) {
  const auto add = [&](const char* name, Napi::Value (*op)(const Napi::CallbackInfo&)) {
    exports.Set(name, Napi::Function::New(env, op, name));
  };

  add("isGeneralChat", guarded<op_is_general_chat>);
  add("sameConversation", guarded<op_same_conversation>);
  add("dispatchConversation", guarded<op_dispatch_conversation>);
  add("resolveMentions", guarded<op_resolve_mentions>);
  add("directResponder", guarded<op_direct_responder>);
  add("mentionedMembers", guarded<op_mentioned_members>);
  add("validateDesks", guarded<op_validate_desks>);
  add("deskMembers", guarded<op_desk_members>);
  add("responderPlan", guarded<op_responder_plan>);
  add("teamBriefing", guarded<op_team_briefing>);
  add("briefingText", guarded<op_briefing_text>);
  add("offersDispatch", guarded<op_offers_dispatch>);
  add("acceptSelection", guarded<op_accept_selection>);
  add("acceptEvaluation", guarded<op_accept_evaluation>);
  add("settleSelection", guarded<op_settle_selection>);
  add("mentionDispatch", guarded<op_mention_dispatch>);
  add("prepareTeam", guarded<op_prepare_team>);
  add("mayDispatch", guarded<op_may_dispatch>);
  add("turnKey", guarded<op_turn_key>);
  add("display", guarded<op_display>);
  add("agentSentences", guarded<op_agent_sentences>);
  add("operatorLine", guarded<op_operator_line>);
  add("fromJSON", guarded<op_from_json>);
  add("parse", guarded<op_parse>);
  add("stringify", guarded<op_stringify>);
  Napi::Array names = Napi::Array::New(env, json::kWireTypeNames.size());
  std::uint32_t i = 0;
  for (const auto name : json::kWireTypeNames) {
    names.Set(i++, Napi::String::New(env, name.data(), name.size()));
  }
  names.Freeze();
  exports.Set("WIRE_TYPES", names);
  Napi::Array kinds = Napi::Array::New(env, kAllQueueErrorKinds.size());
  i = 0;
  for (const auto kind : kAllQueueErrorKinds) {
    const std::string_view token = name(kind);
    kinds.Set(i++, Napi::String::New(env, token.data(), token.size()));
  }
  kinds.Freeze();
  exports.Set("QUEUE_ERROR_KINDS", kinds);
}

}  // namespace thm::node
