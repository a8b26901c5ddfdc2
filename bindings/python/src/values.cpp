// The core's values as Python classes (adr/0013): every wire type of SPEC §6 and the case
// files, field for field, in the order the core declares them.
#include "values.hpp"

#include "thm/core.hpp"
#include "value_class.hpp"

namespace thm::python {
namespace {

void bind_enums(py::module_& m) {
  bind_enum(m, "ResponderMode", kAllResponderModes,
            "Who answers a desk addressed as a whole (SPEC §1.2): its lead, or a selector.");
  bind_enum(m, "SelectionPolicy", kAllSelectionPolicies,
            "Whether the host lets a selector pick among a desk's members (SPEC §2.2).");
  bind_enum(m, "ResponderRung", kAllResponderRungs,
            "The rule of the responder ladder that chose the responder (SPEC §2.2).");
  bind_enum(m, "SelectionDisposition", kAllSelectionDispositions,
            "What became of the selector's pick (SPEC §2.6).");
  bind_enum(m, "NoDispatchReason", kAllNoDispatchReasons,
            "Why a reply starts no child turn (SPEC §3.2).");
  bind_enum(m, "EnqueueRefusal", kAllEnqueueRefusals,
            "An expected, final refusal from the host's queue (SPEC §4).");
  bind_enum(m, "QueueErrorKind", kAllQueueErrorKinds,
            "The broad kind of an unexpected host failure (SPEC §4).");
  bind_enum(m, "TraceRule", kAllTraceRules,
            "The rule of the spec a trace step looked at (SPEC §8.2).");
  bind_enum(m, "TraceOutcome", kAllTraceOutcomes,
            "What became of a trace step's rule (SPEC §8.2).");
  bind_enum(m, "TraceWhy", kAllTraceWhys, "Why a trace step came out as it did (SPEC §8.2).");
}

void bind_mentions(py::module_& m) {
  ValueClass<AgentTarget, MentionTarget>(m, "AgentTarget",
                                         "A mention of one agent, by id (SPEC §1.5).")
      .field("id", &AgentTarget::id, "The agent's id.");
  ValueClass<PersonTarget, MentionTarget>(m, "PersonTarget",
                                          "A mention of one person, by id (SPEC §1.5).")
      .field("id", &PersonTarget::id, "The person's id.");
  ValueClass<DeskTarget, MentionTarget>(m, "DeskTarget",
                                        "A mention of a desk as a whole (SPEC §1.5).")
      .field("id", &DeskTarget::id, "The desk's id.");
  ValueClass<EveryoneTarget, MentionTarget>(m, "EveryoneTarget", "@everyone (SPEC §1.5).");
  ValueClass<Mention>(m, "Mention", "One resolved mention in a message body (SPEC §1.5).")
      .field("target", &Mention::target, "Whom it names.")
      .field("text", &Mention::text, "The mention as written, e.g. \"@bob\".")
      .field("offset", &Mention::offset, "Its byte offset in the UTF-8 body.")
      .field("quiet", &Mention::quiet, "Whether it was written quietly (no notification).",
             Given::Optional);
  ValueClass<AgentAuthor, MentionAuthor>(m, "AgentAuthor", "A message written by an agent.")
      .field("id", &AgentAuthor::id, "The agent's id.");
  ValueClass<PersonAuthor, MentionAuthor>(m, "PersonAuthor", "A message written by a person.")
      .field("id", &PersonAuthor::id, "The person's id.");
  ValueClass<OtherAuthor, MentionAuthor>(m, "OtherAuthor",
                                         "A message written by the system or unknown.");
}

void bind_snapshots(py::module_& m) {
  ValueClass<RosterMember>(m, "RosterMember", "An agent on the roster (SPEC §1.1).")
      .field("id", &RosterMember::id, "The agent's id.")
      .field("name", &RosterMember::name, "Its display name, or None.");
  ValueClass<Person>(m, "Person", "A person in the chat (SPEC §1.1).")
      .field("id", &Person::id, "The person's id.")
      .field("label", &Person::label, "How the person is shown.");
  ValueClass<RosterSnapshot>(m, "RosterSnapshot", "Who is on the team (SPEC §1.1).")
      .field("members", &RosterSnapshot::members, "The registered agents.", Given::Optional)
      .field("people", &RosterSnapshot::people, "The people.", Given::Optional)
      .field("retired", &RosterSnapshot::retired, "Ids of agents that no longer answer.",
             Given::Optional)
      .field("tombstoned", &RosterSnapshot::tombstoned, "Ids of deleted agents.", Given::Optional);
  ValueClass<Desk>(m, "Desk", "A desk: a named group of agents (SPEC §1.2).")
      .field("id", &Desk::id, "The desk's id.")
      .field("name", &Desk::name, "Its name.")
      .field("description", &Desk::description, "What it is for, or None.")
      .field("members", &Desk::members, "Its agents' ids; the first leads.")
      .field("responder_mode", &Desk::responder_mode, "Who answers the desk as a whole.",
             Given::Optional);
  ValueClass<DeskMember>(m, "DeskMember", "An agent added to a desk (SPEC §1.2).")
      .field("desk_id", &DeskMember::desk_id, "The desk's id.")
      .field("agent_id", &DeskMember::agent_id, "The agent's id.");
  ValueClass<DeskOrder>(m, "DeskOrder", "A desk's members in the host's order (SPEC §1.2).")
      .field("desk_id", &DeskOrder::desk_id, "The desk's id.")
      .field("ordered", &DeskOrder::ordered, "Every member's id, in order.");
  ValueClass<DeskSnapshot>(m, "DeskSnapshot", "The desks of a team (SPEC §1.2).")
      .field("declared", &DeskSnapshot::declared, "Desks the host declares.", Given::Optional)
      .field("added", &DeskSnapshot::added, "Desks added at run time.", Given::Optional)
      .field("member_additions", &DeskSnapshot::member_additions, "Agents added to desks.",
             Given::Optional)
      .field("orders", &DeskSnapshot::orders, "Member orders.", Given::Optional)
      .field("retired", &DeskSnapshot::retired, "Ids of retired desks.", Given::Optional)
      .field("tombstoned", &DeskSnapshot::tombstoned, "Ids of deleted desks.", Given::Optional);
  ValueClass<Conversation>(m, "Conversation", "Where a message was posted (SPEC §1.3).")
      .field("desk_id", &Conversation::desk_id, "The desk's id.")
      .field("desk_name", &Conversation::desk_name, "The desk's name.")
      .field("thread_root", &Conversation::thread_root, "The thread's root sequence, or None.");
  ValueClass<DispatchConversation>(m, "DispatchConversation",
                                   "A conversation as dispatch keys it (SPEC §3.3).")
      .field("desk_id", &DispatchConversation::desk_id, "The canonical desk id.")
      .field("thread_root", &DispatchConversation::thread_root, "The thread's root, or None.");
}

void bind_responder(py::module_& m) {
  ValueClass<SelectorCandidate>(m, "SelectorCandidate", "One agent a selector may pick.")
      .field("id", &SelectorCandidate::id, "The agent's id.")
      .field("label", &SelectorCandidate::label, "How it is shown.")
      .field("role", &SelectorCandidate::role, "Its role.")
      .field("description", &SelectorCandidate::description, "What it does, or None.");
  ValueClass<SelectionRequest>(m, "SelectionRequest", "What a selector is asked (SPEC §2.5).")
      .field("message", &SelectionRequest::message, "The message to answer.")
      .field("desk_id", &SelectionRequest::desk_id, "The desk addressed.")
      .field("candidates", &SelectionRequest::candidates, "Whom it may pick.");
  ValueClass<ResponderRequest>(m, "ResponderRequest", "A message to find a responder for.")
      .field("message", &ResponderRequest::message, "The message body.")
      .field("chat", &ResponderRequest::chat, "The chat it was posted in, or None.")
      .field("mentions", &ResponderRequest::mentions, "Its resolved mentions.")
      .field("orchestrator_id", &ResponderRequest::orchestrator_id, "Who answers by default.")
      .field("selection_policy", &ResponderRequest::selection_policy, "Whether to select.",
             Given::Optional)
      .field("thread_responder", &ResponderRequest::thread_responder,
             "The agent that answered last in the message's thread, or None.", Given::Optional);
  ValueClass<ResponderDecision>(m, "ResponderDecision", "Who answers, and by which rule.")
      .field("responder_id", &ResponderDecision::responder_id, "The responder's id.")
      .field("rung", &ResponderDecision::rung, "The rule that chose it.")
      .field("disposition", &ResponderDecision::disposition, "What became of a selection.");
  ValueClass<Decided, ResponderPlan>(m, "Decided", "A plan that needs no selector.")
      .field("decision", &Decided::decision, "The decision.");
  ValueClass<Select, ResponderPlan>(m, "Select", "A plan that asks the host's selector first.")
      .field("request", &Select::request, "What to ask the selector.")
      .field("fallback", &Select::fallback, "The decision if the selection fails.");
  ValueClass<Probability>(m, "Probability", "A probability in parts per million.")
      .field("parts_per_million", &Probability::parts_per_million, "0 to 1,000,000.");
  ValueClass<CandidateProbability>(m, "CandidateProbability", "One candidate's probability.")
      .field("candidate_id", &CandidateProbability::candidate_id, "The candidate's id.")
      .field("probability", &CandidateProbability::probability, "Its probability.");
  ValueClass<SelectionEvaluation>(m, "SelectionEvaluation", "A selector's scored answer.")
      .field("choice", &SelectionEvaluation::choice, "The candidate it chose.")
      .field("probabilities", &SelectionEvaluation::probabilities, "Every candidate's score.")
      .field("confidence", &SelectionEvaluation::confidence, "Its confidence in the choice.");
  ValueClass<SelectorAbsent, SelectorResult>(m, "SelectorAbsent", "The host has no selector.");
  ValueClass<SelectorFailed, SelectorResult>(m, "SelectorFailed",
                                             "The host's selector errored or timed out.");
  ValueClass<SelectorText, SelectorResult>(m, "SelectorText", "The selector answered in free text.")
      .field("output", &SelectorText::output, "Its answer.");
  ValueClass<SelectorEvaluation, SelectorResult>(m, "SelectorEvaluation",
                                                 "The selector answered with scores.")
      .field("evaluation", &SelectorEvaluation::evaluation, "Its scored answer.")
      .field("minimum_confidence", &SelectorEvaluation::minimum_confidence, "The bar to pass.");
}

void bind_dispatch(py::module_& m) {
  ValueClass<Handoff>(m, "Handoff",
                      "A hand-off a host allows: a reply by one agent may start another.")
      .field("source_id", &Handoff::source_id, "The agent whose reply starts the turn.")
      .field("target_id", &Handoff::target_id, "The agent that takes it.");
  ValueClass<MentionDispatchPolicy>(m, "MentionDispatchPolicy", "The host's dispatch policy.")
      .field("enabled", &MentionDispatchPolicy::enabled, "Whether replies may start turns.")
      .field("max_hops", &MentionDispatchPolicy::max_hops, "Child turns a chain may start.")
      .field("no_return", &MentionDispatchPolicy::no_return,
             "Refuse a turn straight back to the previous reply's author.", Given::Optional)
      .field("max_turns_per_agent", &MentionDispatchPolicy::max_turns_per_agent,
             "Turns an agent may take in one chain, the root's included, or None.", Given::Optional)
      .field("allowed_handoffs", &MentionDispatchPolicy::allowed_handoffs,
             "The only hand-offs allowed, or None for any.", Given::Optional);
  ValueClass<DispatchKey>(m, "DispatchKey", "The committed reply's host sequence.")
      .field("trigger_sequence", &DispatchKey::trigger_sequence, "A u64.");
  ValueClass<MentionDispatchInput>(m, "MentionDispatchInput", "One committed agent reply.")
      .field("key", &MentionDispatchInput::key, "Its sequence.")
      .field("conversation", &MentionDispatchInput::conversation, "Where it was posted.")
      .field("author_id", &MentionDispatchInput::author_id, "The agent that wrote it.")
      .field("content", &MentionDispatchInput::content, "Its body.")
      .field("mentions", &MentionDispatchInput::mentions, "Its resolved mentions.")
      .field("hop", &MentionDispatchInput::hop, "Its depth in its chain (0: a reply to a person).")
      .field("chain", &MentionDispatchInput::chain,
             "The authors of the chain's earlier replies, root first.", Given::Optional);
  ValueClass<MentionTurnRequest>(m, "MentionTurnRequest", "The one child turn a reply starts.")
      .field("key", &MentionTurnRequest::key, "The trigger's sequence.")
      .field("source_id", &MentionTurnRequest::source_id, "Who asked.")
      .field("target_id", &MentionTurnRequest::target_id, "Who answers.")
      .field("content", &MentionTurnRequest::content, "The reply's content.")
      .field("conversation", &MentionTurnRequest::conversation, "Where.")
      .field("child_hop", &MentionTurnRequest::child_hop, "The reply's hop + 1.");
  ValueClass<NoDispatch, MentionDispatchDecision>(m, "NoDispatch",
                                                  "The reply starts no child turn.")
      .field("reason", &NoDispatch::reason, "Why.");
  ValueClass<DispatchOne, MentionDispatchDecision>(m, "DispatchOne",
                                                   "The reply starts exactly this child turn.")
      .field("request", &DispatchOne::request, "The child turn to enqueue.");
  ValueClass<MentionDispatchContext>(m, "MentionDispatchContext", "What a briefing may offer.")
      .field("policy", &MentionDispatchContext::policy, "The host's policy.")
      .field("hop", &MentionDispatchContext::hop, "The turn's hop.")
      .field("chain", &MentionDispatchContext::chain,
             "The authors of the chain's earlier replies, root first.", Given::Optional);
  ValueClass<Enqueued, EnqueueOutcome>(m, "Enqueued", "The queue committed the child turn.");
  ValueClass<Already, EnqueueOutcome>(m, "Already",
                                      "A child turn for this key was already committed.");
  ValueClass<Refused, EnqueueOutcome>(m, "Refused", "The host refused; nothing was written.")
      .field("reason", &Refused::reason, "Why.");
  ValueClass<NotDispatched, MentionDispatchOutcome>(m, "NotDispatched",
                                                    "dispatch_mention declined before the queue.")
      .field("reason", &NotDispatched::reason, "Why.");
}

void bind_briefing(py::module_& m) {
  ValueClass<BriefedTeammate>(m, "BriefedTeammate", "One teammate in a briefing (SPEC §7).")
      .field("id", &BriefedTeammate::id, "The agent's id.")
      .field("label", &BriefedTeammate::label, "How it is shown.")
      .field("role", &BriefedTeammate::role, "Its role, or None.")
      .field("description", &BriefedTeammate::description, "What it does, or None.");
  ValueClass<Brevity>(m, "Brevity", "How short the briefing asks replies to be.")
      .field("message_chars", &Brevity::message_chars, "Characters per message.")
      .field("window", &Brevity::window, "Messages of history.");
  ValueClass<TeamBriefing>(m, "TeamBriefing", "The team briefing an agent reads (SPEC §7).")
      .field("viewer_id", &TeamBriefing::viewer_id, "The agent it is for.")
      .field("desk_id", &TeamBriefing::desk_id, "The desk.")
      .field("desk_name", &TeamBriefing::desk_name, "The desk's name.")
      .field("teammates", &TeamBriefing::teammates, "Who else is there.")
      .field("brevity", &TeamBriefing::brevity, "How short to be.", Given::Optional);
}

void bind_trace(py::module_& m) {
  ValueClass<TraceStep>(m, "TraceStep", "One step of a decision's trace (SPEC §8.2).")
      .field("rule", &TraceStep::rule, "The rule it looked at.")
      .field("outcome", &TraceStep::outcome, "What became of the rule.")
      .field("why", &TraceStep::why, "Why, when rule and outcome do not say; or None.")
      .field("subject", &TraceStep::subject,
             "What it was about: a mention's text, an id, a normalized answer; or \"\".")
      .field("offset", &TraceStep::offset, "A mention's byte offset, or None.")
      .field("count", &TraceStep::count,
             "The number it turned on (members, candidates, hop, child hop), or None.")
      .str([](const TraceStep& step) { return to_string(step); },
           "The operator's line (SPEC §8.3): it names agents, so never show it to one.");
}

}  // namespace

void bind_values(py::module_& m) {
  bind_enums(m);
  bind_mentions(m);
  bind_snapshots(m);
  bind_responder(m);
  bind_dispatch(m);
  bind_briefing(m);
  bind_trace(m);
}

}  // namespace thm::python
