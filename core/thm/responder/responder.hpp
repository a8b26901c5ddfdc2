#pragma once
/// \file
/// The responder ladder `responder_plan` (SPEC §2.2, §2.3): who answers a message.

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "thm/desks/desks.hpp"
#include "thm/responder/types.hpp"
#include "thm/result.hpp"
#include "thm/roster/roster.hpp"
#include "thm/team/team.hpp"
#include "thm/trace/trace.hpp"

namespace thm {

/// Two selector details name the desk candidate `agent_id` (SPEC §2.3).
struct DuplicateSelectorCandidate {
  std::string agent_id{};
  friend bool operator==(const DuplicateSelectorCandidate&,
                         const DuplicateSelectorCandidate&) = default;
};
/// The orchestrator rung was reached and `agent_id` (the orchestrator) is not an active
/// member: unknown, retired and tombstoned alike (SPEC §2.2).
struct NoActiveResponder {
  std::string agent_id{};
  friend bool operator==(const NoActiveResponder&, const NoActiveResponder&) = default;
};

/// Why `responder_plan` produced no plan: a malformed roster or desk set, a duplicated
/// selector detail, or no active orchestrator when one was needed.
using ResponderError =
    std::variant<RosterError, DeskError, DuplicateSelectorCandidate, NoActiveResponder>;

/// The name of the innermost error variant as the case files spell it, e.g.
/// `"NoActiveResponder"` or, for a roster error, `"DuplicateRosterMemberId"`.
[[nodiscard]] std::string_view name(const ResponderError& error) noexcept;
/// A lower-case message naming the offending id, without trailing punctuation.
[[nodiscard]] std::string to_string(const ResponderError& error);

/// Picks who answers `request` (SPEC §2.2), one rung after another; it never dispatches:
///  0. validate the roster, then the desks (errors propagate);
///  1. `ExplicitMention`: `direct_responder(request.mentions)`, whatever the chat;
///  2. `ThreadResponder`: `request.thread_responder`, when given and active (an inactive
///     one is skipped);
///  3. if `chat` is not a General spelling: a desk it resolves to (id, else unique name)
///     gets the desk plan, whatever agent shares that name; an ambiguous desk name goes
///     straight to the orchestrator; otherwise `DirectAgent`: `chat` minus one leading
///     `dm:` that is an active member's exact id, else the one active member with exactly
///     that name;
///  4. `Orchestrator`: `request.orchestrator_id` if active, else `NoActiveResponder`.
/// The desk plan (SPEC §2.3): active effective members; none → orchestrator; `Lead` mode or
/// one candidate → `DeskDefault` with the first; `Auto` with selection `Disabled` →
/// `DeskDefault`/`Disabled`; else `Select` with candidates built from `candidate_details`
/// (a detail with exactly the candidate's id, or a synthesized `{id, id, "Teammate", null}`;
/// two details for one candidate → `DuplicateSelectorCandidate`) and the first member as the
/// `DeskDefault`/`Unavailable` fallback. Settle a `Select` with `settle_selection`.
[[nodiscard]] Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Roster& roster, const DeskSet& desks,
    std::span<const SelectorCandidate> candidate_details);

/// `responder_plan` on a prepared team (adr/0016): the same plan, with step 0 done when the
/// team was prepared, so the only errors left are `DuplicateSelectorCandidate` and
/// `NoActiveResponder`.
[[nodiscard]] Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Team& team,
    std::span<const SelectorCandidate> candidate_details);

/// `responder_plan`, explained (SPEC §8): the same plan or error, and the steps that led to
/// it appended to `trace`, from `validate` to the rung that decided. Only this overload
/// builds a trace; the ones above are as fast as before traces existed (bench/README.md).
[[nodiscard]] Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Roster& roster, const DeskSet& desks,
    std::span<const SelectorCandidate> candidate_details, DecisionTrace& trace);

/// `responder_plan` on a prepared team, explained (SPEC §8); its `validate` step passes, as
/// the team was validated when it was prepared.
[[nodiscard]] Result<ResponderPlan, ResponderError> responder_plan(
    const ResponderRequest& request, const Team& team,
    std::span<const SelectorCandidate> candidate_details, DecisionTrace& trace);

}  // namespace thm
