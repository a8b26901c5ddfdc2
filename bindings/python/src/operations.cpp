// The operations of `thm eval` as Python functions (adr/0013), each a call of the core's
// own function on the values given: snapshots are read where they are (no copy), answers
// are new values, refusals are values, and an error of the core is raised as the thm
// exception of its family with the C++ error's case-file form.
#include <pybind11/pybind11.h>

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "json_bridge.hpp"
#include "large_roster.hpp"
#include "thm/core.hpp"
#include "thm/json/json.hpp"
#include "values.hpp"

namespace thm::python {
namespace {

using namespace pybind11::literals;

// `decide()`, with the GIL released: other threads run while the core works on a long body
// or a large team. Every input is C++ by then, or a value no thread can change (values are
// immutable, and the caller's arguments keep them alive).
template <class Decide>
auto unlocked(Decide decide) {
  const py::gil_scoped_release released;
  return decide();
}

// `trace=` of the operations that explain themselves (SPEC §8): None, or a list the steps of
// the decision are appended to, as `thm.TraceStep`s, whether it decides or raises.
class TraceList {
 public:
  TraceList(py::handle list, const char* where) : list_(list) {
    if (!list.is_none() && !PyList_Check(list.ptr())) {
      throw py::type_error(std::string(where) + ": expected a list or None, got " +
                           type_name(list));
    }
  }
  [[nodiscard]] bool wanted() const { return !list_.is_none(); }
  DecisionTrace& steps() { return steps_; }
  // Appends the steps; call it with the GIL held, before raising the core's error.
  void hand_over() {
    if (!wanted()) return;
    auto list = py::reinterpret_borrow<py::list>(list_);
    for (const TraceStep& step : steps_) list.append(to_py(step));
  }

 private:
  py::handle list_;
  DecisionTrace steps_;
};

// ---- errors: one exception class per family, built from the case-file form ---------------

[[noreturn]] void raise(const RosterError& error) {
  raise_error("RosterError", json::error_value(error));
}
[[noreturn]] void raise(const DeskError& error) {
  raise_error("DeskError", json::error_value(error));
}
[[noreturn]] void raise(const ResponderError& error) {
  if (const auto* roster = std::get_if<RosterError>(&error)) raise(*roster);
  if (const auto* desks = std::get_if<DeskError>(&error)) raise(*desks);
  raise_error("ResponderError", json::error_value(error));
}
[[noreturn]] void raise(const BriefingError& error) {
  std::visit([](const auto& inner) { raise(inner); }, error);
  thm::detail::unreachable();
}

// ---- chat identity (SPEC §1.3) --------------------------------------------------------------

bool op_is_general_chat(py::handle chat) {
  const auto text = from_py<std::optional<std::string>>(chat, "is_general_chat(chat)");
  return is_general_chat(text);
}

bool op_same_conversation(py::handle a, py::handle b) {
  const auto first = from_py<std::optional<std::string>>(a, "same_conversation(a)");
  const auto second = from_py<std::optional<std::string>>(b, "same_conversation(b)");
  return same_conversation(first, second);
}

DispatchConversation op_dispatch_conversation(py::handle conversation) {
  return DispatchConversation::from(
      held<Conversation>(conversation, "dispatch_conversation(conversation)"));
}

// ---- mentions (SPEC §1.5) -------------------------------------------------------------------

py::list op_resolve_mentions(py::handle body, py::handle supplied, py::handle author,
                             py::handle roster, py::handle desks) {
  const auto text = from_py<std::string>(body, "resolve_mentions(body)");
  const auto given =
      from_py<std::optional<std::vector<Mention>>>(supplied, "resolve_mentions(supplied)");
  const auto by = from_py<MentionAuthor>(author, "resolve_mentions(author)");
  const auto& team = held<RosterSnapshot>(roster, "resolve_mentions(roster)");
  warn_if_large(team, "resolve_mentions");
  const auto& set = held<DeskSnapshot>(desks, "resolve_mentions(desks)");
  std::optional<std::span<const Mention>> view;
  if (given) view = std::span<const Mention>(*given);
  return list_to_py(
      unlocked([&] { return resolve_mentions(text, view, by, Roster(team), DeskSet(set)); }));
}

py::object op_direct_responder(py::handle mentions, py::handle roster) {
  const auto list = from_py<std::vector<Mention>>(mentions, "direct_responder(mentions)");
  const auto& team = held<RosterSnapshot>(roster, "direct_responder(roster)");
  warn_if_large(team, "direct_responder");
  return to_py(unlocked([&] { return direct_responder(list, Roster(team)); }));
}

py::list op_mentioned_members(py::handle mentions, py::handle addressed_desk, py::handle responder,
                              py::handle roster, py::handle desks) {
  const auto list = from_py<std::vector<Mention>>(mentions, "mentioned_members(mentions)");
  const auto desk =
      from_py<std::optional<std::string>>(addressed_desk, "mentioned_members(addressed_desk)");
  const auto who = from_py<std::optional<std::string>>(responder, "mentioned_members(responder)");
  const auto& team = held<RosterSnapshot>(roster, "mentioned_members(roster)");
  warn_if_large(team, "mentioned_members");
  const auto& set = held<DeskSnapshot>(desks, "mentioned_members(desks)");
  std::optional<std::string_view> desk_view;
  if (desk) desk_view = *desk;
  std::optional<std::string_view> who_view;
  if (who) who_view = *who;
  return list_to_py(unlocked(
      [&] { return mentioned_members(list, desk_view, who_view, Roster(team), DeskSet(set)); }));
}

// ---- desks (SPEC §1.2) ------------------------------------------------------------------------

// The error as an exception object, not raised: what `validate_desks` answers.
py::object op_validate_desks(py::handle desks) {
  const auto& set = held<DeskSnapshot>(desks, "validate_desks(desks)");
  const auto error = DeskSet(set).validate();
  if (!error) return py::none();
  const py::object type = py::module_::import("thm._errors").attr("DeskError");
  return type(json_to_py(json::error_value(*error)));
}

py::tuple op_desk_members(py::handle desks, py::handle identity) {
  const auto& set = held<DeskSnapshot>(desks, "desk_members(desks)");
  const auto name = from_py<std::string>(identity, "desk_members(identity)");
  const DeskSet view(set);
  auto members = view.members(name);
  if (!members) raise(members.error());
  auto lead = view.lead(name);
  if (!lead) raise(lead.error());
  return py::make_tuple(list_to_py(*members), to_py(*lead));
}

// ---- the responder ladder (SPEC §2.2, §2.3) ---------------------------------------------------

py::object op_responder_plan(py::handle request, py::handle roster, py::handle desks,
                             py::handle candidate_details, py::handle trace) {
  const auto& asked = held<ResponderRequest>(request, "responder_plan(request)");
  const auto& team = held<RosterSnapshot>(roster, "responder_plan(roster)");
  warn_if_large(team, "responder_plan");
  const auto& set = held<DeskSnapshot>(desks, "responder_plan(desks)");
  const auto details = from_py<std::vector<SelectorCandidate>>(candidate_details,
                                                               "responder_plan(candidate_details)");
  TraceList steps(trace, "responder_plan(trace)");
  auto plan = unlocked([&] {
    return steps.wanted()
               ? responder_plan(asked, Roster(team), DeskSet(set), details, steps.steps())
               : responder_plan(asked, Roster(team), DeskSet(set), details);
  });
  steps.hand_over();
  if (!plan) raise(plan.error());
  return to_py(*plan);
}

// ---- the team briefing (SPEC §7) --------------------------------------------------------------

py::object op_briefing_text(py::handle briefing, py::handle context) {
  const auto& team = held<TeamBriefing>(briefing, "briefing_text(briefing)");
  if (context.is_none()) return to_py(team.system_text());
  return to_py(team.system_text_with_dispatch(
      held<MentionDispatchContext>(context, "briefing_text(context)")));
}

TeamBriefing op_from_snapshots(py::handle viewer_id, py::handle conversation, py::handle desks,
                               py::handle roster) {
  const auto viewer = from_py<std::string>(viewer_id, "TeamBriefing.from_snapshots(viewer_id)");
  const auto& where = held<Conversation>(conversation, "TeamBriefing.from_snapshots(conversation)");
  const auto& set = held<DeskSnapshot>(desks, "TeamBriefing.from_snapshots(desks)");
  const auto& team = held<RosterSnapshot>(roster, "TeamBriefing.from_snapshots(roster)");
  warn_if_large(team, "TeamBriefing.from_snapshots");
  auto briefing = TeamBriefing::from_snapshots(viewer, where, DeskSet(set), Roster(team));
  if (!briefing) raise(briefing.error());
  return *std::move(briefing);
}

// ---- selection (SPEC §2.5, §2.6) --------------------------------------------------------------

py::object op_accept_selection(py::handle output, py::handle candidates) {
  const auto text = from_py<std::string>(output, "accept_selection(output)");
  const auto list =
      from_py<std::vector<SelectorCandidate>>(candidates, "accept_selection(candidates)");
  return to_py(accept_selection(text, list));
}

py::object op_accept_evaluation(py::handle evaluation, py::handle candidates,
                                py::handle minimum_confidence) {
  const auto& scored = held<SelectionEvaluation>(evaluation, "accept_evaluation(evaluation)");
  const auto list =
      from_py<std::vector<SelectorCandidate>>(candidates, "accept_evaluation(candidates)");
  const auto& bar = held<Probability>(minimum_confidence, "accept_evaluation(minimum_confidence)");
  return to_py(accept_evaluation(scored, list, bar));
}

ResponderDecision op_settle_selection(py::handle plan, py::handle selector, py::handle trace) {
  const auto settled = from_py<ResponderPlan>(plan, "settle_selection(plan)");
  const auto answer = from_py<SelectorResult>(selector, "settle_selection(selector)");
  TraceList steps(trace, "settle_selection(trace)");
  if (!steps.wanted()) return settle_selection(settled, answer);
  const ResponderDecision decision = settle_selection(settled, answer, steps.steps());
  steps.hand_over();
  return decision;
}

// ---- dispatch (SPEC §3, §4) -------------------------------------------------------------------

py::object op_mention_dispatch(py::handle policy, py::handle input, py::handle roster,
                               py::handle trace) {
  const auto& rules = held<MentionDispatchPolicy>(policy, "mention_dispatch(policy)");
  const auto& reply = held<MentionDispatchInput>(input, "mention_dispatch(input)");
  const auto& team = held<RosterSnapshot>(roster, "mention_dispatch(roster)");
  warn_if_large(team, "mention_dispatch");
  TraceList steps(trace, "mention_dispatch(trace)");
  auto decision = unlocked([&] {
    return steps.wanted() ? mention_dispatch(rules, reply, Roster(team), steps.steps())
                          : mention_dispatch(rules, reply, Roster(team));
  });
  steps.hand_over();
  if (!decision) raise(decision.error());
  return to_py(*decision);
}

bool op_may_dispatch(py::handle context) {
  return held<MentionDispatchContext>(context, "may_dispatch(context)").may_dispatch();
}

py::object op_turn_key(py::handle request) {
  return to_py(turn_key(held<MentionTurnRequest>(request, "turn_key(request)")).encoded());
}

// The sentence a host shows for `value`, a member of one of the four enums with wording.
std::string op_display(py::handle value) {
  const char* where = "display(value)";
  if (py::isinstance(value, py::handle(EnumClass<NoDispatchReason>::type))) {
    return std::string(to_string(from_py<NoDispatchReason>(value, where)));
  }
  if (py::isinstance(value, py::handle(EnumClass<EnqueueRefusal>::type))) {
    return std::string(to_string(from_py<EnqueueRefusal>(value, where)));
  }
  if (py::isinstance(value, py::handle(EnumClass<ResponderRung>::type))) {
    return std::string(to_string(from_py<ResponderRung>(value, where)));
  }
  if (py::isinstance(value, py::handle(EnumClass<SelectionDisposition>::type))) {
    return std::string(to_string(from_py<SelectionDisposition>(value, where)));
  }
  throw py::type_error(std::string(where) +
                       ": expected a NoDispatchReason, EnqueueRefusal, ResponderRung or "
                       "SelectionDisposition, got " +
                       type_name(value));
}

// ---- on a prepared team (adr/0016) -----------------------------------------------------------

Team op_prepare(py::handle roster, py::handle desks) {
  const auto& members = held<RosterSnapshot>(roster, "Team.prepare(roster)");
  const auto& set = held<DeskSnapshot>(desks, "Team.prepare(desks)");
  auto team = unlocked([&] { return Team::prepare(members, set); });
  if (!team) raise(team.error());
  return *std::move(team);
}

py::list op_resolve_mentions_on_team(py::handle body, py::handle supplied, py::handle author,
                                     py::handle team) {
  const auto text = from_py<std::string>(body, "resolve_mentions(body)");
  const auto given =
      from_py<std::optional<std::vector<Mention>>>(supplied, "resolve_mentions(supplied)");
  const auto by = from_py<MentionAuthor>(author, "resolve_mentions(author)");
  const auto& prepared = held<Team>(team, "resolve_mentions(team)");
  std::optional<std::span<const Mention>> view;
  if (given) view = std::span<const Mention>(*given);
  return list_to_py(unlocked([&] { return resolve_mentions(text, view, by, prepared); }));
}

py::object op_direct_responder_on_team(py::handle mentions, py::handle team) {
  const auto list = from_py<std::vector<Mention>>(mentions, "direct_responder(mentions)");
  const auto& prepared = held<Team>(team, "direct_responder(team)");
  return to_py(unlocked([&] { return direct_responder(list, prepared); }));
}

py::list op_mentioned_members_on_team(py::handle mentions, py::handle addressed_desk,
                                      py::handle responder, py::handle team) {
  const auto list = from_py<std::vector<Mention>>(mentions, "mentioned_members(mentions)");
  const auto desk =
      from_py<std::optional<std::string>>(addressed_desk, "mentioned_members(addressed_desk)");
  const auto who = from_py<std::optional<std::string>>(responder, "mentioned_members(responder)");
  const auto& prepared = held<Team>(team, "mentioned_members(team)");
  std::optional<std::string_view> desk_view;
  if (desk) desk_view = *desk;
  std::optional<std::string_view> who_view;
  if (who) who_view = *who;
  return list_to_py(
      unlocked([&] { return mentioned_members(list, desk_view, who_view, prepared); }));
}

py::object op_responder_plan_on_team(py::handle request, py::handle team,
                                     py::handle candidate_details, py::handle trace) {
  const auto& asked = held<ResponderRequest>(request, "responder_plan(request)");
  const auto& prepared = held<Team>(team, "responder_plan(team)");
  const auto details = from_py<std::vector<SelectorCandidate>>(candidate_details,
                                                               "responder_plan(candidate_details)");
  TraceList steps(trace, "responder_plan(trace)");
  auto plan = unlocked([&] {
    return steps.wanted() ? responder_plan(asked, prepared, details, steps.steps())
                          : responder_plan(asked, prepared, details);
  });
  steps.hand_over();
  if (!plan) raise(plan.error());
  return to_py(*plan);
}

py::object op_mention_dispatch_on_team(py::handle policy, py::handle input, py::handle team,
                                       py::handle trace) {
  const auto& rules = held<MentionDispatchPolicy>(policy, "mention_dispatch(policy)");
  const auto& reply = held<MentionDispatchInput>(input, "mention_dispatch(input)");
  const auto& prepared = held<Team>(team, "mention_dispatch(team)");
  TraceList steps(trace, "mention_dispatch(trace)");
  auto decision = unlocked([&] {
    return steps.wanted() ? mention_dispatch(rules, reply, prepared, steps.steps())
                          : mention_dispatch(rules, reply, prepared);
  });
  steps.hand_over();
  if (!decision) raise(decision.error());
  return to_py(*decision);
}

TeamBriefing op_from_team(py::handle viewer_id, py::handle conversation, py::handle team) {
  const auto viewer = from_py<std::string>(viewer_id, "TeamBriefing.from_team(viewer_id)");
  const auto& where = held<Conversation>(conversation, "TeamBriefing.from_team(conversation)");
  const auto& prepared = held<Team>(team, "TeamBriefing.from_team(team)");
  auto briefing = TeamBriefing::from_team(viewer, where, prepared);
  if (!briefing) raise(briefing.error());
  return *std::move(briefing);
}

// thm.Team: immutable, shared by copies, built only by Team.prepare.
void bind_team(py::module_& m) {
  py::class_<Team>(m, "Team",
                   "A chat's roster and desks, validated and indexed once (adr/0016): make one "
                   "with Team.prepare(roster=..., desks=...) when they change, and pass it as "
                   "`team=` to the decisions instead of `roster=` and `desks=`.")
      .def_static("prepare", &op_prepare, py::kw_only(), "roster"_a, "desks"_a,
                  "Validates the roster, then the desks, and indexes them; raises "
                  "thm.RosterError or thm.DeskError, as the decisions would.")
      .def_property_readonly(
          "roster", [](const Team& team) { return team.roster_snapshot(); },
          "The roster it was prepared from.")
      .def_property_readonly(
          "desks", [](const Team& team) { return team.desk_snapshot(); },
          "The desks it was prepared from.")
      .def(
          "is_active",
          [](const Team& team, py::handle agent_id) {
            return team.is_active(from_py<std::string>(agent_id, "Team.is_active(agent_id)"));
          },
          "agent_id"_a, "Whether the agent with exactly this id is on the roster and active.")
      .def("__repr__", [](const Team& team) {
        return "thm.Team(" + std::to_string(team.roster_snapshot().members.size()) + " members, " +
               std::to_string(team.active_members().size()) + " active, " +
               std::to_string(team.desk_snapshot().declared.size() +
                              team.desk_snapshot().added.size()) +
               " desks)";
      });
  py::type::of<Team>().attr("__match_args__") = py::make_tuple("roster", "desks");
}

}  // namespace

void bind_dispatch_mention(py::module_& m);  // queue.cpp

void bind_operations(py::module_& m) {
  bind_team(m);
  m.def("is_general_chat", &op_is_general_chat, "chat"_a,
        "Whether `chat` (a desk identity, or None) is the General chat (SPEC §1.3).");
  m.def("same_conversation", &op_same_conversation, "a"_a, "b"_a,
        "Whether two chat identities (or None) name the same conversation (SPEC §1.3).");
  m.def("dispatch_conversation", &op_dispatch_conversation, "conversation"_a,
        "The conversation as dispatch keys it: General folded, names dropped (SPEC §3.3).");
  m.def("resolve_mentions", &op_resolve_mentions, "body"_a, py::kw_only(), "supplied"_a, "author"_a,
        "roster"_a, "desks"_a,
        "The mentions of `body` (SPEC §1.5), code spans and blocks masked; `supplied` are "
        "mentions the host resolved itself, or None. Offsets are UTF-8 byte offsets.");
  m.def("resolve_mentions", &op_resolve_mentions_on_team, "body"_a, py::kw_only(), "supplied"_a,
        "author"_a, "team"_a, "The same on a prepared thm.Team: no validation per call.");
  m.def("direct_responder", &op_direct_responder, "mentions"_a, py::kw_only(), "roster"_a,
        "The first active agent mentioned directly, or None (SPEC §2.2).");
  m.def("direct_responder", &op_direct_responder_on_team, "mentions"_a, py::kw_only(), "team"_a,
        "The same on a prepared thm.Team.");
  m.def("mentioned_members", &op_mentioned_members, "mentions"_a, py::kw_only(), "addressed_desk"_a,
        "responder"_a, "roster"_a, "desks"_a,
        "Every active agent the mentions reach, in order, without the responder (SPEC §2.3).");
  m.def("mentioned_members", &op_mentioned_members_on_team, "mentions"_a, py::kw_only(),
        "addressed_desk"_a, "responder"_a, "team"_a, "The same on a prepared thm.Team.");
  m.def("validate_desks", &op_validate_desks, "desks"_a,
        "None for a well-formed desk snapshot, else the thm.DeskError it has, not raised.");
  m.def("desk_members", &op_desk_members, "desks"_a, py::kw_only(), "identity"_a,
        "(members, lead) of the desk `identity` names; raises thm.DeskError (SPEC §1.2).");
  m.def("responder_plan", &op_responder_plan, "request"_a, py::kw_only(), "roster"_a, "desks"_a,
        "candidate_details"_a, "trace"_a = py::none(),
        "Who answers `request` (SPEC §2.2): a Decided plan, or a Select plan that asks the "
        "host's selector first; raises thm.RosterError, thm.DeskError or thm.ResponderError. "
        "With `trace=` a list, the steps of the decision are appended to it as thm.TraceStep "
        "values (SPEC §8), also when it raises.");
  m.def("responder_plan", &op_responder_plan_on_team, "request"_a, py::kw_only(), "team"_a,
        "candidate_details"_a, "trace"_a = py::none(),
        "The same on a prepared thm.Team; raises thm.ResponderError only.");
  m.def("briefing_text", &op_briefing_text, "briefing"_a, "context"_a = py::none(),
        "The briefing's system text, offering dispatch when `context` allows it (SPEC §7).");
  m.def(
      "offers_dispatch",
      [](py::handle text) {
        return offers_dispatch(from_py<std::string>(text, "offers_dispatch(text)"));
      },
      "text"_a, "Whether a system text offers dispatch (SPEC §7).");
  m.def("accept_selection", &op_accept_selection, "output"_a, py::kw_only(), "candidates"_a,
        "The candidate a selector's free-text answer names, or None (SPEC §2.5).");
  m.def("accept_evaluation", &op_accept_evaluation, "evaluation"_a, py::kw_only(), "candidates"_a,
        "minimum_confidence"_a, "The candidate a scored answer settles on, or None (SPEC §2.5).");
  m.def("settle_selection", &op_settle_selection, "plan"_a, py::kw_only(), "selector"_a,
        "trace"_a = py::none(),
        "The decision a plan settles to with the selector's result (SPEC §2.6); its steps are "
        "appended to `trace=` when it is a list (SPEC §8).");
  m.def("mention_dispatch", &op_mention_dispatch, py::kw_only(), "policy"_a, "input"_a, "roster"_a,
        "trace"_a = py::none(),
        "Whether a committed reply starts exactly one child turn (SPEC §3): NoDispatch or "
        "DispatchOne; raises thm.RosterError. Its steps are appended to `trace=` when it is a "
        "list (SPEC §8), also when it raises.");
  m.def("mention_dispatch", &op_mention_dispatch_on_team, py::kw_only(), "policy"_a, "input"_a,
        "team"_a, "trace"_a = py::none(), "The same on a prepared thm.Team: never raises.");
  m.def(
      "agent_sentences",
      [](py::handle trace) {
        const auto steps = from_py<std::vector<TraceStep>>(trace, "agent_sentences(trace)");
        py::list out;
        for (const std::string_view sentence : agent_sentences(steps))
          out.append(py::str(sentence.data(), sentence.size()));
        return out;
      },
      "trace"_a,
      "What an agent may be shown of a trace (SPEC §8.4): the steps on its own policy, hop and "
      "identity, then the outcome's sentence; never another agent's id. `str(step)` is the "
      "operator's line (SPEC §8.3).");
  m.def("may_dispatch", &op_may_dispatch, "context"_a,
        "Whether a reply in this turn may start one more (SPEC §3.4).");
  m.def("turn_key", &op_turn_key, "request"_a,
        "The canonical idempotency key of the child turn request would start (SPEC §3.3): "
        "v1/<desk id's UTF-8 byte length>:<desk id>/<c | t<root>>/<sequence>, every General "
        "spelling folded to General; the one column or map key a queue keeps per child turn.");
  m.def("display", &op_display, "value"_a,
        "The sentence for a NoDispatchReason, EnqueueRefusal, ResponderRung or "
        "SelectionDisposition (SPEC §5).");
  const auto static_method = [](py::handle type, const char* name, py::cpp_function function) {
    type.attr(name) = py::reinterpret_steal<py::object>(PyStaticMethod_New(function.ptr()));
  };
  static_method(py::type::of<TeamBriefing>(), "from_snapshots",
                py::cpp_function(&op_from_snapshots, "viewer_id"_a, py::kw_only(), "conversation"_a,
                                 "desks"_a, "roster"_a,
                                 py::doc("The briefing for `viewer_id` in `conversation` (SPEC "
                                         "§7); raises thm.RosterError or thm.DeskError.")));
  static_method(
      py::type::of<TeamBriefing>(), "from_team",
      py::cpp_function(&op_from_team, "viewer_id"_a, py::kw_only(), "conversation"_a, "team"_a,
                       py::doc("As from_snapshots, on a prepared thm.Team; raises "
                               "thm.DeskError for a desk that does not resolve.")));
  static_method(py::type::of<DispatchConversation>(), "from_conversation",
                py::cpp_function(&op_dispatch_conversation, "conversation"_a,
                                 py::doc("As dispatch_conversation(conversation).")));
  py::type::of<TeamBriefing>().attr("system_text") = py::cpp_function(
      [](py::handle self, py::handle context) { return op_briefing_text(self, context); },
      py::is_method(py::type::of<TeamBriefing>()), "context"_a = py::none(),
      py::doc("As briefing_text(self, context)."));
  py::type::of<MentionDispatchContext>().attr("may_dispatch") = py::cpp_function(
      &op_may_dispatch, py::is_method(py::type::of<MentionDispatchContext>()),
      py::doc("As may_dispatch(self): whether a reply in this turn may start one more."));
  bind_dispatch_mention(m);
}

}  // namespace thm::python
