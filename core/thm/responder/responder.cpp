#include "thm/responder/responder.hpp"

#include <algorithm>

#include "thm/chat/chat.hpp"
#include "thm/mentions/direct.hpp"
#include "thm/overloaded.hpp"
#include "thm/team/snapshot_team.hpp"

namespace thm {
namespace {

using PlanResult = Result<ResponderPlan, ResponderError>;

ResponderPlan decided(std::string responder_id, ResponderRung rung,
                      SelectionDisposition disposition = SelectionDisposition::NotApplicable) {
  return Decided{
      {.responder_id = std::move(responder_id), .rung = rung, .disposition = disposition}};
}

// SPEC §2.2 step 3.
template <class Team>
PlanResult orchestrator_plan(const ResponderRequest& request, const Team& team) {
  if (!team.is_active(request.orchestrator_id)) {
    return unexpected{ResponderError{NoActiveResponder{.agent_id = request.orchestrator_id}}};
  }
  return decided(request.orchestrator_id, ResponderRung::Orchestrator);
}

// SPEC §2.2 step 2b: the agent whose own chat this is, if exactly one.
template <class Team>
std::optional<std::string> direct_agent(std::string_view chat, const Team& team) {
  if (chat.starts_with("dm:")) chat.remove_prefix(3);
  if (const RosterMember* member = team.active_member(chat)) return member->id;
  if (const RosterMember* named = team.only_active_member_named(chat)) return named->id;
  return std::nullopt;
}

// SPEC §2.3.
template <class Team>
PlanResult desk_plan(const ResponderRequest& request, const Desk& desk, const Team& team,
                     std::span<const SelectorCandidate> candidate_details) {
  // The active effective members, read in place: the lead and disabled rungs need only the
  // first of them and whether there is a second.
  const auto members = team.effective_members(desk);
  const auto active = [&](std::string_view agent_id) { return team.is_active(agent_id); };
  const auto first = std::ranges::find_if(members, active);
  if (first == members.end()) return orchestrator_plan(request, team);
  const bool alone = std::none_of(std::next(first), members.end(), active);
  if (desk.responder_mode == ResponderMode::Lead || alone) {
    return decided(std::string(*first), ResponderRung::DeskDefault);
  }
  if (request.selection_policy == SelectionPolicy::Disabled) {
    return decided(std::string(*first), ResponderRung::DeskDefault, SelectionDisposition::Disabled);
  }
  Select select{.request = {.message = request.message, .desk_id = desk.id},
                .fallback = {.responder_id = std::string(*first),
                             .rung = ResponderRung::DeskDefault,
                             .disposition = SelectionDisposition::Unavailable}};
  select.request.candidates.reserve(members.size());  // at most: one block
  for (const std::string_view agent_id : members) {
    if (!active(agent_id)) continue;
    const SelectorCandidate* detail = nullptr;
    for (const SelectorCandidate& candidate : candidate_details) {
      if (candidate.id != agent_id) continue;
      if (detail != nullptr) {
        return unexpected{
            ResponderError{DuplicateSelectorCandidate{.agent_id = std::string(agent_id)}}};
      }
      detail = &candidate;
    }
    select.request.candidates.push_back(detail != nullptr
                                            ? *detail
                                            : SelectorCandidate{.id = std::string(agent_id),
                                                                .label = std::string(agent_id),
                                                                .role = "Teammate"});
  }
  return select;
}

// SPEC §2.2 steps 1 to 3, on snapshots that validated.
template <class Team>
PlanResult plan(const ResponderRequest& request, const Team& team,
                std::span<const SelectorCandidate> candidate_details) {
  if (auto mentioned = detail::first_direct_responder(request.mentions, team)) {
    return decided(*std::move(mentioned), ResponderRung::ExplicitMention);
  }
  if (request.chat && !is_general_chat(*request.chat)) {
    const detail::DeskLookup desk = team.find_desk(*request.chat);
    if (desk.desk != nullptr) return desk_plan(request, *desk.desk, team, candidate_details);
    if (desk.ambiguous) return orchestrator_plan(request, team);
    if (auto agent = direct_agent(*request.chat, team)) {
      return decided(*std::move(agent), ResponderRung::DirectAgent);
    }
  }
  return orchestrator_plan(request, team);
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
  return plan(request, detail::SnapshotTeam(roster, desks), candidate_details);
}

Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Team& team,
    std::span<const SelectorCandidate> candidate_details) {
  return plan(request, team, candidate_details);
}

}  // namespace thm
