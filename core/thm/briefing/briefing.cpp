#include "thm/briefing/briefing.hpp"

#include <algorithm>
#include <unordered_set>

#include "thm/detail/unicode.hpp"
#include "thm/overloaded.hpp"

namespace thm {

std::string_view name(const BriefingError& error) noexcept {
  return std::visit([](const auto& inner) { return name(inner); }, error);
}

std::string to_string(const BriefingError& error) {
  return std::visit([](const auto& inner) { return to_string(inner); }, error);
}

Result<TeamBriefing, BriefingError> TeamBriefing::from_snapshots(std::string_view viewer_id,
                                                                 const Conversation& conversation,
                                                                 const DeskSet& desks,
                                                                 const Roster& roster) {
  if (auto error = roster.validate()) return unexpected{BriefingError{*std::move(error)}};
  if (auto error = desks.validate()) return unexpected{BriefingError{*std::move(error)}};

  TeamBriefing briefing{.viewer_id = std::string(viewer_id)};
  std::vector<std::string> candidates;
  if (conversation.is_general()) {
    briefing.desk_id = kGeneralDesk;
    briefing.desk_name = kGeneralDesk;
    for (const RosterMember* member : roster.active_members()) candidates.push_back(member->id);
  } else {
    auto desk_id = desks.resolve_id(conversation.desk_id);
    if (!desk_id.has_value()) return unexpected{BriefingError{std::move(desk_id).error()}};
    auto members = desks.members(*desk_id);
    if (!members.has_value()) return unexpected{BriefingError{std::move(members).error()}};
    briefing.desk_id = *desk_id;
    briefing.desk_name = desks.desk(*desk_id)->name;
    candidates = *std::move(members);
  }

  std::unordered_set<std::string> seen{std::string(viewer_id)};
  for (const std::string& agent_id : candidates) {
    const RosterMember* member = roster.active_member(agent_id);
    if (member == nullptr || !seen.insert(agent_id).second) continue;
    const bool named = member->name.has_value() && !detail::is_blank(*member->name);
    briefing.teammates.push_back({.id = member->id, .label = named ? *member->name : member->id});
  }
  return briefing;
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

std::string TeamBriefing::system_text_with_dispatch(const MentionDispatchContext& context) const {
  return render(context.may_dispatch());
}

}  // namespace thm
