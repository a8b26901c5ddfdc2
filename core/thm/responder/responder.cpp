#include "thm/responder/responder.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "thm/chat/chat.hpp"
#include "thm/mentions/direct.hpp"
#include "thm/overloaded.hpp"
#include "thm/team/snapshot_team.hpp"
#include "thm/trace/note.hpp"

namespace thm {
namespace {

using PlanResult = Result<ResponderPlan, ResponderError>;

ResponderPlan decided(std::string responder_id, ResponderRung rung,
                      SelectionDisposition disposition = SelectionDisposition::NotApplicable) {
  return Decided{
      {.responder_id = std::move(responder_id), .rung = rung, .disposition = disposition}};
}

// SPEC §2.2 step 4.
template <class Team, class Note>
PlanResult orchestrator_plan(const ResponderRequest& request, const Team& team, const Note& note) {
  const bool active = team.is_active(request.orchestrator_id);
  note([&] {
    return TraceStep{.rule = TraceRule::Orchestrator,
                     .outcome = active ? TraceOutcome::Applied : TraceOutcome::Stopped,
                     .why = active ? std::optional<TraceWhy>() : TraceWhy::Inactive,
                     .subject = request.orchestrator_id};
  });
  if (!active) {
    return unexpected{ResponderError{NoActiveResponder{.agent_id = request.orchestrator_id}}};
  }
  return decided(request.orchestrator_id, ResponderRung::Orchestrator);
}

// SPEC §2.2 step 3.2: the agent whose own chat this is, if exactly one.
template <class Team, class Note>
std::optional<std::string> direct_agent(std::string_view chat, const Team& team, const Note& note) {
  if (chat.starts_with("dm:")) chat.remove_prefix(3);
  const RosterMember* member = team.active_member(chat);
  const TraceWhy why = member != nullptr ? TraceWhy::Id : TraceWhy::Name;
  if (member == nullptr) member = team.only_active_member_named(chat);
  note([&] {
    return member != nullptr ? TraceStep{.rule = TraceRule::DirectAgent,
                                         .outcome = TraceOutcome::Applied,
                                         .why = why,
                                         .subject = member->id}
                             : TraceStep{.rule = TraceRule::DirectAgent,
                                         .outcome = TraceOutcome::Skipped,
                                         .why = TraceWhy::NoMatch,
                                         .subject = std::string(chat)};
  });
  if (member == nullptr) return std::nullopt;
  return member->id;
}

// SPEC §2.3.
template <class Team, class Note>
PlanResult desk_plan(const ResponderRequest& request, const Desk& desk, const Team& team,
                     std::span<const SelectorCandidate> candidate_details, const Note& note) {
  // The active effective members, read in place: the lead and disabled rungs need only the
  // first of them and whether there is a second.
  const auto members = team.effective_members(desk);
  const auto active = [&](std::string_view agent_id) { return team.is_active(agent_id); };
  const auto first = std::ranges::find_if(members, active);
  const auto note_plan = [&](TraceOutcome outcome, TraceWhy why) {
    note([&] {
      return TraceStep{.rule = TraceRule::DeskPlan,
                       .outcome = outcome,
                       .why = why,
                       .subject = first == members.end() ? std::string() : std::string(*first),
                       .count = static_cast<std::uint64_t>(std::ranges::count_if(members, active))};
    });
  };
  if (first == members.end()) {
    note_plan(TraceOutcome::Skipped, TraceWhy::NoActiveMember);
    return orchestrator_plan(request, team, note);
  }
  const bool alone = std::none_of(std::next(first), members.end(), active);
  if (desk.responder_mode == ResponderMode::Lead || alone) {
    note_plan(TraceOutcome::Applied,
              desk.responder_mode == ResponderMode::Lead ? TraceWhy::Lead : TraceWhy::OneMember);
    return decided(std::string(*first), ResponderRung::DeskDefault);
  }
  if (request.selection_policy == SelectionPolicy::Disabled) {
    note_plan(TraceOutcome::Applied, TraceWhy::SelectionDisabled);
    return decided(std::string(*first), ResponderRung::DeskDefault, SelectionDisposition::Disabled);
  }
  note_plan(TraceOutcome::Passed, TraceWhy::SelectorAsked);
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
        note([&] {
          return TraceStep{.rule = TraceRule::SelectorCandidates,
                           .outcome = TraceOutcome::Stopped,
                           .why = TraceWhy::DuplicateDetail,
                           .subject = std::string(agent_id)};
        });
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
  note([&] {
    return TraceStep{.rule = TraceRule::SelectorCandidates,
                     .outcome = TraceOutcome::Applied,
                     .subject = desk.id,
                     .count = select.request.candidates.size()};
  });
  return select;
}

// SPEC §2.2 steps 1 to 4, on snapshots that validated.
template <class Team, class Note>
PlanResult plan(const ResponderRequest& request, const Team& team,
                std::span<const SelectorCandidate> candidate_details, const Note& note) {
  auto mentioned = detail::first_direct_responder(request.mentions, team);
  if constexpr (Note::kOn) {
    detail::note_mentions(request.mentions, note, [&](const Mention& mention) {
      const std::optional<TraceWhy> shape = detail::mention_shape(mention);
      if (shape || team.is_active(std::get<AgentTarget>(mention.target).id)) return shape;
      return std::optional(TraceWhy::Inactive);
    });
  }
  note([&] {
    return TraceStep{.rule = TraceRule::ExplicitMention,
                     .outcome = mentioned ? TraceOutcome::Applied : TraceOutcome::Skipped,
                     .subject = mentioned.value_or("")};
  });
  if (mentioned) return decided(*std::move(mentioned), ResponderRung::ExplicitMention);
  if (request.thread_responder) {
    const bool active = team.is_active(*request.thread_responder);
    note([&] {
      return TraceStep{.rule = TraceRule::ThreadResponder,
                       .outcome = active ? TraceOutcome::Applied : TraceOutcome::Skipped,
                       .why = active ? std::optional<TraceWhy>() : TraceWhy::Inactive,
                       .subject = *request.thread_responder};
    });
    if (active) return decided(*request.thread_responder, ResponderRung::ThreadResponder);
  }
  if (!request.chat || is_general_chat(*request.chat)) {
    note([&] {
      return TraceStep{.rule = TraceRule::Chat,
                       .outcome = TraceOutcome::Skipped,
                       .why = TraceWhy::General,
                       .subject = request.chat.value_or("")};
    });
    return orchestrator_plan(request, team, note);
  }
  const detail::DeskLookup desk = team.find_desk(*request.chat);
  note([&] {
    if (desk.desk != nullptr) {
      return TraceStep{
          .rule = TraceRule::Desk, .outcome = TraceOutcome::Applied, .subject = desk.desk->id};
    }
    return TraceStep{.rule = TraceRule::Desk,
                     .outcome = TraceOutcome::Skipped,
                     .why = desk.ambiguous ? TraceWhy::Ambiguous : TraceWhy::Unknown,
                     .subject = *request.chat};
  });
  if (desk.desk != nullptr) return desk_plan(request, *desk.desk, team, candidate_details, note);
  if (desk.ambiguous) return orchestrator_plan(request, team, note);
  if (auto agent = direct_agent(*request.chat, team, note)) {
    return decided(*std::move(agent), ResponderRung::DirectAgent);
  }
  return orchestrator_plan(request, team, note);
}

// SPEC §8.2 `validate`: the first step of a traced call.
void note_validation(DecisionTrace& trace, std::string_view error = {}) {
  trace.push_back(TraceStep{.rule = TraceRule::Validate,
                            .outcome = error.empty() ? TraceOutcome::Passed : TraceOutcome::Stopped,
                            .subject = std::string(error)});
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
  return plan(request, detail::SnapshotTeam(roster, desks), candidate_details, detail::Untraced{});
}

Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Team& team,
    std::span<const SelectorCandidate> candidate_details) {
  return plan(request, team, candidate_details, detail::Untraced{});
}

Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Roster& roster, const DeskSet& desks,
    std::span<const SelectorCandidate> candidate_details, DecisionTrace& trace) {
  std::optional<ResponderError> error;
  if (auto invalid = roster.validate()) error = ResponderError{*std::move(invalid)};
  if (!error) {
    if (auto invalid = desks.validate()) error = ResponderError{*std::move(invalid)};
  }
  if (error) {
    note_validation(trace, name(*error));
    return unexpected{*std::move(error)};
  }
  note_validation(trace);
  return plan(request, detail::SnapshotTeam(roster, desks), candidate_details,
              detail::Traced{&trace});
}

Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Team& team,
    std::span<const SelectorCandidate> candidate_details, DecisionTrace& trace) {
  note_validation(trace);  // done when the team was prepared
  return plan(request, team, candidate_details, detail::Traced{&trace});
}

}  // namespace thm
