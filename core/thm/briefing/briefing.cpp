#include "thm/briefing/briefing.hpp"

#include <algorithm>
#include <unordered_set>

#include "thm/detail/unicode.hpp"
#include "thm/dispatch/shape.hpp"
#include "thm/overloaded.hpp"
#include "thm/team/snapshot_team.hpp"

namespace thm {

namespace {

// SPEC §7 on snapshots that validated.
template <class Team>
Result<TeamBriefing, BriefingError> brief(std::string_view viewer_id,
                                          const Conversation& conversation, const Team& team) {
  TeamBriefing briefing{.viewer_id = std::string(viewer_id)};
  std::vector<std::string_view> candidates;
  if (conversation.is_general()) {
    briefing.desk_id = kGeneralDesk;
    briefing.desk_name = kGeneralDesk;
    for (const RosterMember* member : team.active_members()) candidates.push_back(member->id);
  } else {
    const detail::DeskLookup found = team.find_desk(conversation.desk_id);
    if (found.ambiguous) {
      return unexpected{BriefingError{DeskError{AmbiguousDesk{.identity = conversation.desk_id}}}};
    }
    if (found.desk == nullptr) {
      return unexpected{BriefingError{DeskError{UnknownDesk{.identity = conversation.desk_id}}}};
    }
    briefing.desk_id = found.desk->id;
    briefing.desk_name = found.desk->name;
    for (const std::string_view agent_id : team.effective_members(*found.desk)) {
      candidates.push_back(agent_id);
    }
  }

  std::unordered_set<std::string_view> seen{viewer_id};
  for (const std::string_view agent_id : candidates) {
    const RosterMember* member = team.active_member(agent_id);
    if (member == nullptr || !seen.insert(agent_id).second) continue;
    const bool named = member->name.has_value() && !detail::is_blank(*member->name);
    briefing.teammates.push_back({.id = member->id, .label = named ? *member->name : member->id});
  }
  return briefing;
}

}  // namespace

Result<TeamBriefing, BriefingError> TeamBriefing::from_snapshots(std::string_view viewer_id,
                                                                 const Conversation& conversation,
                                                                 const DeskSet& desks,
                                                                 const Roster& roster) {
  if (auto error = roster.validate()) return unexpected{BriefingError{*std::move(error)}};
  if (auto error = desks.validate()) return unexpected{BriefingError{*std::move(error)}};
  return brief(viewer_id, conversation, detail::SnapshotTeam(roster, desks));
}

Result<TeamBriefing, BriefingError> TeamBriefing::from_team(std::string_view viewer_id,
                                                            const Conversation& conversation,
                                                            const Team& team) {
  return brief(viewer_id, conversation, team);
}

namespace {

// Host-supplied text on one line: line breaks become spaces, so no field can add a line of
// its own (in particular, one that reads like the dispatch sentence).
std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\v' || c == '\f') c = ' ';
  }
  return out;
}

}  // namespace

std::string TeamBriefing::render(bool offer_dispatch) const {
  std::string text = "You are @" + one_line(viewer_id) + ", working in the " + one_line(desk_name) +
                     " desk (desk id: " + one_line(desk_id) + ").\n";
  if (teammates.empty()) {
    text += "You have no teammates in this conversation.\n";
  } else {
    text += "Your teammates in this conversation:\n";
    for (const BriefedTeammate& mate : teammates) {
      text += "- @" + one_line(mate.id) + " (" + one_line(mate.label) + ")";
      if (mate.role) text += ", " + one_line(*mate.role);
      if (mate.description) text += ": " + one_line(*mate.description);
      text += "\n";
    }
  }
  text +=
      "Rules of this shared session:\n"
      "- Each peer message stays attributed to the teammate who wrote it; speak only for "
      "yourself.\n"
      "- @everyone, desk mentions and mentions of people give context only; they never start "
      "turns for other agents.\n";
  if (offer_dispatch) {
    text += kDispatchSentence;
    text += "\n";
  }
  text += "- Brevity: keep each message under " + std::to_string(brevity.message_chars) +
          " characters; only the last " + std::to_string(brevity.window) + " messages are in view.";
  return text;
}

std::string TeamBriefing::system_text() const { return render(false); }

bool offers_dispatch(std::string_view system_text) {
  for (std::size_t begin = 0; begin <= system_text.size();) {
    const std::size_t end = std::min(system_text.find('\n', begin), system_text.size());
    if (system_text.substr(begin, end - begin) == kDispatchSentence) return true;
    begin = end + 1;
  }
  return false;
}

bool TeamBriefing::offers_dispatch_under(const MentionDispatchContext& context) const {
  if (!context.may_dispatch()) return false;
  if (!context.policy.shapes_chains()) return true;
  return std::ranges::any_of(teammates, [&](const BriefedTeammate& teammate) {
    return teammate.id != viewer_id &&
           !detail::shape_refusal(context.policy, context.chain, viewer_id, teammate.id,
                                  detail::Untraced{});
  });
}

std::string TeamBriefing::system_text_with_dispatch(const MentionDispatchContext& context) const {
  return render(offers_dispatch_under(context));
}

}  // namespace thm
