#include "thm/testing/printers.hpp"

#include <nlohmann/json.hpp>
#include <ostream>

#include "thm/json/json.hpp"

namespace thm {
namespace {

// The compact text of `value`, as `json::encode` writes it (invalid UTF-8 as U+FFFD).
void print(const json::Value& value, std::ostream* os) {
  *os << value.dump(-1, ' ', false, json::Value::error_handler_t::replace);
}

}  // namespace

void PrintTo(const Mention& mention, std::ostream* os) { print(json::to_value(mention), os); }

void PrintTo(const ResponderDecision& decision, std::ostream* os) {
  print(json::to_value(decision), os);
}
void PrintTo(const ResponderPlan& plan, std::ostream* os) { print(json::to_value(plan), os); }
void PrintTo(const Decided& plan, std::ostream* os) { PrintTo(ResponderPlan{plan}, os); }
void PrintTo(const Select& plan, std::ostream* os) { PrintTo(ResponderPlan{plan}, os); }

void PrintTo(const MentionTurnRequest& request, std::ostream* os) {
  print(json::to_value(request), os);
}
void PrintTo(const MentionDispatchDecision& decision, std::ostream* os) {
  print(json::to_value(decision), os);
}
void PrintTo(const NoDispatch& decision, std::ostream* os) {
  PrintTo(MentionDispatchDecision{decision}, os);
}
void PrintTo(const DispatchOne& decision, std::ostream* os) {
  PrintTo(MentionDispatchDecision{decision}, os);
}
void PrintTo(const TurnKey& key, std::ostream* os) {
  print(json::Value{{"conversation", json::to_value(key.conversation)},
                    {"trigger_sequence", key.trigger_sequence}},
        os);
}

void PrintTo(const EnqueueOutcome& outcome, std::ostream* os) {
  print(json::to_value(outcome), os);
}
void PrintTo(const MentionDispatchOutcome& outcome, std::ostream* os) {
  print(json::to_value(outcome), os);
}
void PrintTo(const Enqueued& outcome, std::ostream* os) { PrintTo(EnqueueOutcome{outcome}, os); }
void PrintTo(const Already& outcome, std::ostream* os) { PrintTo(EnqueueOutcome{outcome}, os); }
void PrintTo(const Refused& outcome, std::ostream* os) { PrintTo(EnqueueOutcome{outcome}, os); }
void PrintTo(const NotDispatched& outcome, std::ostream* os) {
  PrintTo(MentionDispatchOutcome{outcome}, os);
}
void PrintTo(const QueueError& error, std::ostream* os) { print(json::to_value(error), os); }

void PrintTo(const RosterError& error, std::ostream* os) { print(json::error_value(error), os); }
void PrintTo(const EmptyRosterMemberId& error, std::ostream* os) {
  PrintTo(RosterError{error}, os);
}
void PrintTo(const DuplicateRosterMemberId& error, std::ostream* os) {
  PrintTo(RosterError{error}, os);
}
void PrintTo(const EmptyPersonId& error, std::ostream* os) { PrintTo(RosterError{error}, os); }
void PrintTo(const DuplicatePersonId& error, std::ostream* os) { PrintTo(RosterError{error}, os); }

void PrintTo(const DeskError& error, std::ostream* os) { print(json::error_value(error), os); }
void PrintTo(const EmptyDeskId& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const EmptyDeskName& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const DuplicateDeskId& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const ReservedDeskIdentity& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const UnknownMemberDesk& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const UnknownOrderDesk& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const DuplicateDeskOrder& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const DuplicateOrderMember& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const UnknownOrderMember& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const IncompleteOrder& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const UnknownDesk& error, std::ostream* os) { PrintTo(DeskError{error}, os); }
void PrintTo(const AmbiguousDesk& error, std::ostream* os) { PrintTo(DeskError{error}, os); }

void PrintTo(const ResponderError& error, std::ostream* os) { print(json::error_value(error), os); }
void PrintTo(const DuplicateSelectorCandidate& error, std::ostream* os) {
  PrintTo(ResponderError{error}, os);
}
void PrintTo(const NoActiveResponder& error, std::ostream* os) {
  PrintTo(ResponderError{error}, os);
}

void PrintTo(const DispatchMentionError& error, std::ostream* os) {
  print(json::error_value(error), os);
}
void PrintTo(const CoreFailure& error, std::ostream* os) {
  PrintTo(DispatchMentionError{error}, os);
}
void PrintTo(const EnqueueFailure& error, std::ostream* os) {
  PrintTo(DispatchMentionError{error}, os);
}

}  // namespace thm
