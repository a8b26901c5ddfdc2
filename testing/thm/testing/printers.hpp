#pragma once
/// \file
/// GoogleTest printers for the core's value and error types (house style §6): a failed
/// `EXPECT_EQ` on one of them shows its SPEC §6 wire JSON, e.g. `{"status":"refused",
/// "reason":"unauthorized"}`, instead of GoogleTest's byte dump. Errors show their case-file
/// form (`json::error_value`: `variant`, the fields, `message`). Invalid UTF-8 in a string
/// shows as U+FFFD.
///
/// Each printer is a `PrintTo` in namespace `thm`, so GoogleTest finds it by argument-
/// dependent lookup; include this header in every test file that compares these types
/// (a file that does not would print them as bytes, and two files printing one type
/// differently break the one-definition rule of GoogleTest's printer templates).
///
/// GoogleTest 1.12 prints a `std::variant` itself, as `('<alternative type>(index = N)'
/// with value <the alternative>)`, and never calls a `PrintTo` declared for the variant
/// type. So every alternative has a printer of its own, which is what a failure shows
/// inside those parentheses; the printers for the variant types (`RosterError`,
/// `EnqueueOutcome`, `ResponderPlan`, ...) serve direct calls and give the same text.
///
/// Test support (`thm_testing_printers`): neither installed nor exported; it links
/// `thm::json`, which the core never sees.

#include <iosfwd>

#include "thm/core.hpp"

namespace thm {

// ---- mentions (SPEC §1.5, §6) --------------------------------------------------------------

/// A resolved mention: `{"target":{...},"text":...,"offset":...}` (`quiet` when true).
void PrintTo(const Mention& mention, std::ostream* os);

// ---- who answers (SPEC §2, §6) ---------------------------------------------------------------

/// A decided responder: `{"responder_id":...,"rung":...,"disposition":...}`.
void PrintTo(const ResponderDecision& decision, std::ostream* os);
/// A plan: `{"kind":"decided",...}` or `{"kind":"select",...}`.
void PrintTo(const ResponderPlan& plan, std::ostream* os);
/// The `decided` plan, as `ResponderPlan` prints it.
void PrintTo(const Decided& plan, std::ostream* os);
/// The `select` plan, as `ResponderPlan` prints it.
void PrintTo(const Select& plan, std::ostream* os);

// ---- one more turn (SPEC §3, §4, §6) ---------------------------------------------------------

/// The child turn a reply may start: `{"key":{...},"source_id":...,...,"child_hop":...}`.
void PrintTo(const MentionTurnRequest& request, std::ostream* os);
/// The decision of `mention_dispatch`: `{"kind":"none","reason":...}` or `{"kind":"one",...}`.
void PrintTo(const MentionDispatchDecision& decision, std::ostream* os);
/// The `none` decision, as `MentionDispatchDecision` prints it.
void PrintTo(const NoDispatch& decision, std::ostream* os);
/// The `one` decision, as `MentionDispatchDecision` prints it.
void PrintTo(const DispatchOne& decision, std::ostream* os);
/// The idempotency scope of a child turn (SPEC §3.3), which has no wire form of its own:
/// `{"conversation":{"desk_id":...,"thread_root":...},"trigger_sequence":...}`, its fields.
void PrintTo(const TurnKey& key, std::ostream* os);

/// What a queue answered: `{"status":"enqueued"}`, `"already"` or `"refused"` with `reason`.
void PrintTo(const EnqueueOutcome& outcome, std::ostream* os);
/// What `dispatch_mention` reports: `{"status":"not_dispatched","reason":...}` or a queue's
/// answer as `EnqueueOutcome` prints it.
void PrintTo(const MentionDispatchOutcome& outcome, std::ostream* os);
/// `{"status":"enqueued"}`.
void PrintTo(const Enqueued& outcome, std::ostream* os);
/// `{"status":"already"}`.
void PrintTo(const Already& outcome, std::ostream* os);
/// `{"status":"refused","reason":...}`.
void PrintTo(const Refused& outcome, std::ostream* os);
/// `{"status":"not_dispatched","reason":...}`.
void PrintTo(const NotDispatched& outcome, std::ostream* os);
/// A host failure: `{"kind":...,"message":...}`.
void PrintTo(const QueueError& error, std::ostream* os);

// ---- errors, in their case-file form (cases.md) --------------------------------------------

/// A malformed roster (SPEC §1.1): `{"variant":...,<its fields>,"message":...}`.
void PrintTo(const RosterError& error, std::ostream* os);
/// `{"variant":"EmptyRosterMemberId","message":...}`.
void PrintTo(const EmptyRosterMemberId& error, std::ostream* os);
/// `{"variant":"DuplicateRosterMemberId","member_id":...,"message":...}`.
void PrintTo(const DuplicateRosterMemberId& error, std::ostream* os);
/// `{"variant":"EmptyPersonId","message":...}`.
void PrintTo(const EmptyPersonId& error, std::ostream* os);
/// `{"variant":"DuplicatePersonId","person_id":...,"message":...}`.
void PrintTo(const DuplicatePersonId& error, std::ostream* os);

/// A malformed desk set or an identity that names no single desk (SPEC §1.2):
/// `{"variant":...,<its fields>,"message":...}`.
void PrintTo(const DeskError& error, std::ostream* os);
/// `{"variant":"EmptyDeskId","message":...}`.
void PrintTo(const EmptyDeskId& error, std::ostream* os);
/// `{"variant":"EmptyDeskName","desk_id":...,"message":...}`.
void PrintTo(const EmptyDeskName& error, std::ostream* os);
/// `{"variant":"DuplicateDeskId","desk_id":...,"message":...}`.
void PrintTo(const DuplicateDeskId& error, std::ostream* os);
/// `{"variant":"ReservedDeskIdentity","identity":...,"message":...}`.
void PrintTo(const ReservedDeskIdentity& error, std::ostream* os);
/// `{"variant":"UnknownMemberDesk","desk_id":...,"message":...}`.
void PrintTo(const UnknownMemberDesk& error, std::ostream* os);
/// `{"variant":"UnknownOrderDesk","desk_id":...,"message":...}`.
void PrintTo(const UnknownOrderDesk& error, std::ostream* os);
/// `{"variant":"DuplicateDeskOrder","desk_id":...,"message":...}`.
void PrintTo(const DuplicateDeskOrder& error, std::ostream* os);
/// `{"variant":"DuplicateOrderMember","desk_id":...,"agent_id":...,"message":...}`.
void PrintTo(const DuplicateOrderMember& error, std::ostream* os);
/// `{"variant":"UnknownOrderMember","desk_id":...,"agent_id":...,"message":...}`.
void PrintTo(const UnknownOrderMember& error, std::ostream* os);
/// `{"variant":"IncompleteOrder","desk_id":...,"missing_agent_id":...,"message":...}`.
void PrintTo(const IncompleteOrder& error, std::ostream* os);
/// `{"variant":"UnknownDesk","identity":...,"message":...}`.
void PrintTo(const UnknownDesk& error, std::ostream* os);
/// `{"variant":"AmbiguousDesk","identity":...,"message":...}`.
void PrintTo(const AmbiguousDesk& error, std::ostream* os);

/// Why `responder_plan` gave no plan (SPEC §2.2, §2.3): a roster or desk error as those
/// print, or one of the two below.
void PrintTo(const ResponderError& error, std::ostream* os);
/// `{"variant":"DuplicateSelectorCandidate","agent_id":...,"message":...}`.
void PrintTo(const DuplicateSelectorCandidate& error, std::ostream* os);
/// `{"variant":"NoActiveResponder","agent_id":...,"message":...}`.
void PrintTo(const NoActiveResponder& error, std::ostream* os);

/// Why `dispatch_mention` gave no outcome (SPEC §4): `{"variant":"Core","core":{...}}` or
/// `{"variant":"Enqueue","kind":...,"message":...}`.
void PrintTo(const DispatchMentionError& error, std::ostream* os);
/// The `Core` failure, as `DispatchMentionError` prints it.
void PrintTo(const CoreFailure& error, std::ostream* os);
/// The `Enqueue` failure, as `DispatchMentionError` prints it.
void PrintTo(const EnqueueFailure& error, std::ostream* os);

}  // namespace thm
