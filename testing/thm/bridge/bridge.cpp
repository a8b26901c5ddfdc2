#include "thm/bridge/bridge.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace thm::bridge {
namespace {

template <class T, class F>
auto map_all(const std::vector<T>& items, F convert) {
  std::vector<decltype(convert(items.front()))> out;
  for (const T& item : items) out.push_back(convert(item));
  return out;
}

model::Desk desk_to_model(const Desk& desk) {
  return {desk.id, desk.name, desk.description, desk.members,
          desk.responder_mode == ResponderMode::Auto};
}

template <class E>
E token(std::optional<E> value) {
  if (!value) detail::unreachable();
  return *value;
}

// A core error as the model shows it: its variant name and its fields in the order the
// case files write them (cases.md; `json::error_value` without `message`).
model::Error error_with(std::string_view variant,
                        std::vector<std::pair<std::string, std::string>> fields = {}) {
  return {std::string(variant), std::move(fields)};
}

}  // namespace

model::Roster to_model(const RosterSnapshot& roster) {
  model::Roster out;
  for (const RosterMember& m : roster.members) out.members.push_back({m.id, m.name});
  for (const Person& p : roster.people) out.people.push_back({p.id, p.label});
  out.retired = roster.retired;
  out.tombstoned = roster.tombstoned;
  return out;
}

model::Desks to_model(const DeskSnapshot& desks) {
  model::Desks out;
  for (const Desk& d : desks.declared) out.declared.push_back(desk_to_model(d));
  for (const Desk& d : desks.added) out.added.push_back(desk_to_model(d));
  for (const DeskMember& m : desks.member_additions)
    out.member_additions.push_back({m.desk_id, m.agent_id});
  for (const DeskOrder& o : desks.orders) out.orders.push_back({o.desk_id, o.ordered});
  out.retired = desks.retired;
  out.tombstoned = desks.tombstoned;
  return out;
}

model::Target to_model(const MentionTarget& target) {
  return std::visit(overloaded{
                        [](const AgentTarget& t) {
                          return model::Target{"agent", t.id};
                        },
                        [](const PersonTarget& t) {
                          return model::Target{"person", t.id};
                        },
                        [](const DeskTarget& t) {
                          return model::Target{"desk", t.id};
                        },
                        [](const EveryoneTarget&) {
                          return model::Target{"everyone", ""};
                        },
                    },
                    target);
}

model::Mention to_model(const Mention& mention) {
  return {to_model(mention.target), mention.text, mention.offset, mention.quiet};
}

std::vector<model::Mention> to_model(const std::vector<Mention>& mentions) {
  return map_all(mentions, [](const Mention& m) { return to_model(m); });
}

model::Author to_model(const MentionAuthor& author) {
  return std::visit(overloaded{
                        [](const AgentAuthor& a) {
                          return model::Author{"agent", a.id};
                        },
                        [](const PersonAuthor& a) {
                          return model::Author{"person", a.id};
                        },
                        [](const OtherAuthor&) {
                          return model::Author{"other", ""};
                        },
                    },
                    author);
}

model::Conversation to_model(const Conversation& c) {
  return {c.desk_id, c.desk_name, c.thread_root};
}
model::DispatchConversation to_model(const DispatchConversation& c) {
  return {c.desk_id, c.thread_root};
}

model::Candidate to_model(const SelectorCandidate& c) {
  return {c.id, c.label, c.role, c.description};
}

std::vector<model::Candidate> to_model(const std::vector<SelectorCandidate>& candidates) {
  return map_all(candidates, [](const SelectorCandidate& c) { return to_model(c); });
}

model::ResponderRequest to_model(const ResponderRequest& r) {
  return {r.message,
          r.chat,
          to_model(r.mentions),
          r.orchestrator_id,
          r.selection_policy == SelectionPolicy::Allowed,
          r.thread_responder};
}

model::Decision to_model(const ResponderDecision& d) {
  return {d.responder_id, std::string(name(d.rung)), std::string(name(d.disposition))};
}

model::Plan to_model(const ResponderPlan& plan) {
  return std::visit(overloaded{
                        [](const Decided& d) {
                          model::Plan out;
                          out.decision = to_model(d.decision);
                          return out;
                        },
                        [](const Select& s) {
                          model::Plan out;
                          out.select = true;
                          out.decision = to_model(s.fallback);
                          out.message = s.request.message;
                          out.desk_id = s.request.desk_id;
                          out.candidates = to_model(s.request.candidates);
                          return out;
                        },
                    },
                    plan);
}

model::Evaluation to_model(const SelectionEvaluation& e) {
  model::Evaluation out{e.choice, {}, e.confidence.parts_per_million};
  for (const CandidateProbability& p : e.probabilities) {
    out.probabilities.emplace_back(p.candidate_id, p.probability.parts_per_million);
  }
  return out;
}

model::Selector to_model(const SelectorResult& selector) {
  return std::visit(overloaded{
                        [](const SelectorAbsent&) {
                          return model::Selector{"absent", "", {}, 0};
                        },
                        [](const SelectorFailed&) {
                          return model::Selector{"failed", "", {}, 0};
                        },
                        [](const SelectorText& t) {
                          return model::Selector{"text", t.output, {}, 0};
                        },
                        [](const SelectorEvaluation& e) {
                          return model::Selector{"evaluation", "", to_model(e.evaluation),
                                                 e.minimum_confidence.parts_per_million};
                        },
                    },
                    selector);
}

model::Policy to_model(const MentionDispatchPolicy& p) {
  model::Policy out{p.enabled, p.max_hops, p.no_return, p.max_turns_per_agent, std::nullopt};
  if (p.allowed_handoffs) {
    out.allowed_handoffs.emplace();
    for (const Handoff& h : *p.allowed_handoffs)
      out.allowed_handoffs->emplace_back(h.source_id, h.target_id);
  }
  return out;
}

model::DispatchInput to_model(const MentionDispatchInput& i) {
  return {i.key.trigger_sequence,
          to_model(i.conversation),
          i.author_id,
          i.content,
          to_model(i.mentions),
          i.hop,
          i.chain};
}

model::DispatchContext to_model(const MentionDispatchContext& c) {
  return {to_model(c.policy), c.hop, c.chain};
}

model::QueueScript to_model(const Result<EnqueueOutcome, QueueError>& answer) {
  model::QueueScript script;
  if (!answer.has_value()) {
    script.fail = true;
    script.kind = name(answer.error().kind);
    script.message = answer.error().message;
    return script;
  }
  std::visit(overloaded{
                 [&](const Enqueued&) { script.status = "enqueued"; },
                 [&](const Already&) { script.status = "already"; },
                 [&](const Refused& r) {
                   script.status = "refused";
                   script.reason = name(r.reason);
                 },
             },
             *answer);
  return script;
}

Mention to_core(const model::Mention& m) {
  MentionTarget target = EveryoneTarget{};
  if (m.target.kind == "agent") target = AgentTarget{m.target.id};
  if (m.target.kind == "person") target = PersonTarget{m.target.id};
  if (m.target.kind == "desk") target = DeskTarget{m.target.id};
  return {.target = target, .text = m.text, .offset = m.offset, .quiet = m.quiet};
}

std::vector<Mention> to_core(const std::vector<model::Mention>& mentions) {
  return map_all(mentions, [](const model::Mention& m) { return to_core(m); });
}

DispatchConversation to_core(const model::DispatchConversation& c) {
  return {.desk_id = c.desk_id, .thread_root = c.thread_root};
}

model::Step to_model(const TraceStep& step) {
  return {std::string(name(step.rule)),
          std::string(name(step.outcome)),
          step.why ? std::string(name(*step.why)) : std::string(),
          step.subject,
          step.offset,
          step.count};
}

std::vector<model::Step> to_model(const DecisionTrace& trace) {
  std::vector<model::Step> out;
  out.reserve(trace.size());
  for (const TraceStep& step : trace) out.push_back(to_model(step));
  return out;
}

ResponderDecision to_core(const model::Decision& d) {
  return {.responder_id = d.responder_id,
          .rung = token(responder_rung_from_name(d.rung)),
          .disposition = token(selection_disposition_from_name(d.disposition))};
}

ResponderPlan to_core(const model::Plan& plan) {
  if (!plan.select) return Decided{to_core(plan.decision)};
  Select select{.request = {.message = plan.message, .desk_id = plan.desk_id},
                .fallback = to_core(plan.decision)};
  for (const model::Candidate& c : plan.candidates) {
    select.request.candidates.push_back(
        {.id = c.id, .label = c.label, .role = c.role, .description = c.description});
  }
  return select;
}

MentionDispatchDecision to_core(const model::DispatchDecision& d) {
  if (!d.reason.empty()) return NoDispatch{token(no_dispatch_reason_from_name(d.reason))};
  const model::TurnRequest& r = d.request;
  return DispatchOne{MentionTurnRequest{.key = {.trigger_sequence = r.trigger_sequence},
                                        .source_id = r.source_id,
                                        .target_id = r.target_id,
                                        .content = r.content,
                                        .conversation = to_core(r.conversation),
                                        .child_hop = r.child_hop}};
}

MentionDispatchOutcome to_core_outcome(const model::DispatchResult& result) {
  if (result.status == "not_dispatched")
    return NotDispatched{token(no_dispatch_reason_from_name(result.reason))};
  if (result.status == "enqueued") return Enqueued{};
  if (result.status == "already") return Already{};
  if (result.status == "refused") return Refused{token(enqueue_refusal_from_name(result.reason))};
  detail::unreachable();
}

model::Error to_model_error(const RosterError& error) {
  const std::string_view variant = name(error);
  return std::visit(overloaded{
                        [&](const EmptyRosterMemberId&) { return error_with(variant); },
                        [&](const DuplicateRosterMemberId& e) {
                          return error_with(variant, {{"member_id", e.member_id}});
                        },
                        [&](const EmptyPersonId&) { return error_with(variant); },
                        [&](const DuplicatePersonId& e) {
                          return error_with(variant, {{"person_id", e.person_id}});
                        },
                    },
                    error);
}

model::Error to_model_error(const DeskError& error) {
  const std::string_view variant = name(error);
  return std::visit(
      overloaded{
          [&](const EmptyDeskId&) { return error_with(variant); },
          [&](const EmptyDeskName& e) {
            return error_with(variant, {{"desk_id", e.desk_id}});
          },
          [&](const DuplicateDeskId& e) {
            return error_with(variant, {{"desk_id", e.desk_id}});
          },
          [&](const ReservedDeskIdentity& e) {
            return error_with(variant, {{"identity", e.identity}});
          },
          [&](const UnknownMemberDesk& e) {
            return error_with(variant, {{"desk_id", e.desk_id}});
          },
          [&](const UnknownOrderDesk& e) {
            return error_with(variant, {{"desk_id", e.desk_id}});
          },
          [&](const DuplicateDeskOrder& e) {
            return error_with(variant, {{"desk_id", e.desk_id}});
          },
          [&](const DuplicateOrderMember& e) {
            return error_with(variant, {{"desk_id", e.desk_id}, {"agent_id", e.agent_id}});
          },
          [&](const UnknownOrderMember& e) {
            return error_with(variant, {{"desk_id", e.desk_id}, {"agent_id", e.agent_id}});
          },
          [&](const IncompleteOrder& e) {
            return error_with(variant,
                              {{"desk_id", e.desk_id}, {"missing_agent_id", e.missing_agent_id}});
          },
          [&](const UnknownDesk& e) {
            return error_with(variant, {{"identity", e.identity}});
          },
          [&](const AmbiguousDesk& e) {
            return error_with(variant, {{"identity", e.identity}});
          },
      },
      error);
}

model::Error to_model_error(const ResponderError& error) {
  const std::string_view variant = name(error);
  return std::visit(overloaded{
                        [](const RosterError& e) { return to_model_error(e); },
                        [](const DeskError& e) { return to_model_error(e); },
                        [&](const DuplicateSelectorCandidate& e) {
                          return error_with(variant, {{"agent_id", e.agent_id}});
                        },
                        [&](const NoActiveResponder& e) {
                          return error_with(variant, {{"agent_id", e.agent_id}});
                        },
                    },
                    error);
}

}  // namespace thm::bridge
