#pragma once
/// \file
/// The team briefing (SPEC §7): the system text that tells an agent who it is, who its
/// teammates are, and the rules of a shared session; the one sentence that offers
/// dispatch appears only when the run could actually dispatch.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "thm/chat/chat.hpp"
#include "thm/desks/desks.hpp"
#include "thm/dispatch/types.hpp"
#include "thm/result.hpp"
#include "thm/roster/roster.hpp"
#include "thm/team/team.hpp"

namespace thm {

/// One teammate as the briefing shows it (SPEC §7). Wire: `role` and `description` are
/// required, nullable keys.
struct BriefedTeammate {
  std::string id{};
  std::string label{};
  std::optional<std::string> role{};
  std::optional<std::string> description{};
  friend bool operator==(const BriefedTeammate&, const BriefedTeammate&) = default;
};

/// How short agents should keep their messages (SPEC §7, v2): at most `message_chars`
/// characters per message, with the last `window` messages in view. Defaults 600 and 30.
struct Brevity {
  std::uint32_t message_chars = 600;
  std::uint32_t window = 30;
  friend bool operator==(const Brevity&, const Brevity&) = default;
};

/// The one line that tells an agent it may hand a turn on by mentioning a teammate. It is
/// shown only when `TeamBriefing::offers_dispatch_under` holds (SPEC §7).
inline constexpr std::string_view kDispatchSentence =
    "- Mentioning one teammate directly as @id may start one follow-up turn for them; a chain "
    "of such handoffs is bounded.";

/// True when `system_text` has `kDispatchSentence` as one of its lines (SPEC §7). Fields of
/// a briefing are rendered on one line each, so no host data can forge that line.
[[nodiscard]] bool offers_dispatch(std::string_view system_text);

/// A snapshot was malformed, or the conversation's desk does not resolve: the same type as
/// `TeamError` (a roster error or a desk error), so `name` and `to_string` are `TeamError`'s.
using BriefingError = TeamError;

/// What an agent is told about its team (SPEC §7). Wire: the four keys are required;
/// `brevity` is optional on input (defaults) and always written.
struct TeamBriefing {
  std::string viewer_id{};
  std::string desk_id{};
  std::string desk_name{};
  std::vector<BriefedTeammate> teammates{};
  Brevity brevity{};

  /// The briefing of `viewer_id` in `conversation` (SPEC §7): both snapshots validated
  /// (roster first); in a General conversation every active roster member in roster order,
  /// otherwise the active effective members of the conversation's desk (an unknown desk is
  /// an error); the viewer and repeats dropped; `label` is the member's name, or its id
  /// when it has none; role and description unset. A General briefing names the desk
  /// `General`; otherwise the desk's canonical id and its name.
  [[nodiscard]] static Result<TeamBriefing, BriefingError> from_snapshots(
      std::string_view viewer_id, const Conversation& conversation, const DeskSet& desks,
      const Roster& roster);

  /// `from_snapshots` on a prepared team (adr/0016): the same briefing; the only errors
  /// left are an unknown or ambiguous desk.
  [[nodiscard]] static Result<TeamBriefing, BriefingError> from_team(
      std::string_view viewer_id, const Conversation& conversation, const Team& team);

  /// The system text without the dispatch sentence: lines joined by `\n`, no trailing
  /// newline. Line breaks inside ids, names, roles and descriptions become spaces.
  [[nodiscard]] std::string system_text() const;

  /// Whether the dispatch sentence is shown under `context` (SPEC §7): when
  /// `context.may_dispatch()`, and, if the policy turns on a rule of the chain's shape, some
  /// listed teammate other than the viewer would pass every rule that is on.
  [[nodiscard]] bool offers_dispatch_under(const MentionDispatchContext& context) const;

  /// `system_text()` plus `kDispatchSentence` exactly when `offers_dispatch_under(context)`;
  /// otherwise byte-identical to `system_text()`.
  [[nodiscard]] std::string system_text_with_dispatch(const MentionDispatchContext& context) const;

  friend bool operator==(const TeamBriefing&, const TeamBriefing&) = default;

 private:
  [[nodiscard]] std::string render(bool offer_dispatch) const;
};

}  // namespace thm
