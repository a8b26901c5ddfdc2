#include "thm/responder/responder.hpp"

#include "thm/chat/chat.hpp"
#include "thm/overloaded.hpp"

namespace thm {
namespace {

using PlanResult = Result<ResponderPlan, ResponderError>;

ResponderPlan decided(std::string responder_id, ResponderRung rung,
                      SelectionDisposition disposition = SelectionDisposition::NotApplicable) {
  return Decided{
      {.responder_id = std::move(responder_id), .rung = rung, .disposition = disposition}};
}

// SPEC §2.2 step 3.
PlanResult orchestrator_plan(const ResponderRequest& request, const Roster& roster) {
  if (!roster.is_active(request.orchestrator_id)) {
    return unexpected{ResponderError{NoActiveResponder{.agent_id = request.orchestrator_id}}};
  }
  return decided(request.orchestrator_id, ResponderRung::Orchestrator);
}

// SPEC §2.2 step 1, `direct_responder` (SPEC §1.5) on a roster responder_plan has already
// validated: the first mention in offset order (ties: list order) that is not quiet, names
// an agent, and that agent is active. A mention at or after the best offset so far cannot
// replace it, so its activity is not looked up.
std::optional<std::string> explicit_responder(std::span<const Mention> mentions,
                                              const Roster& roster) {
  const Mention* first = nullptr;
  for (const Mention& mention : mentions) {
    if (first != nullptr && mention.offset >= first->offset) continue;
    const auto* agent = std::get_if<AgentTarget>(&mention.target);
    if (mention.quiet || agent == nullptr || !roster.is_active(agent->id)) continue;
    first = &mention;
  }
  if (first == nullptr) return std::nullopt;
  return std::get<AgentTarget>(first->target).id;
}

// SPEC §2.2 step 2b: the agent whose own chat this is, if exactly one.
std::optional<std::string> direct_agent(std::string_view chat, const Roster& roster) {
  if (chat.starts_with("dm:")) chat.remove_prefix(3);
  if (const RosterMember* member = roster.active_member(chat)) return member->id;
  const RosterMember* named = nullptr;
  for (const RosterMember& member : roster.members()) {
    if (member.name != chat || roster.is_retired(member.id)) continue;
    if (named != nullptr) return std::nullopt;
    named = &member;
  }
  if (named == nullptr) return std::nullopt;
  return named->id;
}

// SPEC §2.3.
PlanResult desk_plan(const ResponderRequest& request, const std::string& desk_id,
                     const Roster& roster, const DeskSet& desks,
                     std::span<const SelectorCandidate> candidate_details) {
  std::vector<std::string> candidates;
  if (auto members = desks.members(desk_id)) {
    for (std::string& agent_id : *members) {
      if (roster.is_active(agent_id)) candidates.push_back(std::move(agent_id));
    }
  }
  if (candidates.empty()) return orchestrator_plan(request, roster);
  const Desk* desk = desks.desk(desk_id);
  if (desk->responder_mode == ResponderMode::Lead || candidates.size() == 1) {
    return decided(candidates.front(), ResponderRung::DeskDefault);
  }
  if (request.selection_policy == SelectionPolicy::Disabled) {
    return decided(candidates.front(), ResponderRung::DeskDefault, SelectionDisposition::Disabled);
  }
  Select select{.request = {.message = request.message, .desk_id = desk_id},
                .fallback = {.responder_id = candidates.front(),
                             .rung = ResponderRung::DeskDefault,
                             .disposition = SelectionDisposition::Unavailable}};
  for (const std::string& agent_id : candidates) {
    const SelectorCandidate* detail = nullptr;
    for (const SelectorCandidate& candidate : candidate_details) {
      if (candidate.id != agent_id) continue;
      if (detail != nullptr) {
        return unexpected{ResponderError{DuplicateSelectorCandidate{.agent_id = agent_id}}};
      }
      detail = &candidate;
    }
    select.request.candidates.push_back(
        detail != nullptr
            ? *detail
            : SelectorCandidate{.id = agent_id, .label = agent_id, .role = "Teammate"});
  }
  return select;
}

}  // namespace

std::string_view name(const ResponderError& error) noexcept {
  return std::visit(
      overloaded{
          [](const RosterError& e) { return name(e); },
          [](const DeskError& e) { return name(e); },
          [](const DuplicateSelectorCandidate&) {
            return std::string_view("DuplicateSelectorCandidate");
          },
          [](const NoActiveResponder&) { return std::string_view("NoActiveResponder"); },
      },
      error);
}

std::string to_string(const ResponderError& error) {
  return std::visit(
      overloaded{
          [](const RosterError& e) { return to_string(e); },
          [](const DeskError& e) { return to_string(e); },
          [](const DuplicateSelectorCandidate& e) {
            return "selector details name candidate " + e.agent_id + " more than once";
          },
          [](const NoActiveResponder& e) {
            return "no one can answer: orchestrator " + e.agent_id + " is not an active member";
          },
      },
      error);
}

Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Roster& roster, const DeskSet& desks,
    std::span<const SelectorCandidate> candidate_details) {
  if (auto error = roster.validate()) return unexpected{ResponderError{*std::move(error)}};
  if (auto error = desks.validate()) return unexpected{ResponderError{*std::move(error)}};

  if (auto mentioned = explicit_responder(request.mentions, roster)) {
    return decided(*std::move(mentioned), ResponderRung::ExplicitMention);
  }
  if (request.chat && !is_general_chat(*request.chat)) {
    auto desk_id = desks.resolve_id(*request.chat);
    if (desk_id.has_value()) return desk_plan(request, *desk_id, roster, desks, candidate_details);
    if (std::holds_alternative<AmbiguousDesk>(desk_id.error())) {
      return orchestrator_plan(request, roster);
    }
    if (auto agent = direct_agent(*request.chat, roster)) {
      return decided(*std::move(agent), ResponderRung::DirectAgent);
    }
  }
  return orchestrator_plan(request, roster);
}

}  // namespace thm
