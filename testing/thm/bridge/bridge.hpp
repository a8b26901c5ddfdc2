#pragma once
/// \file
/// The bridge between the core and the reference model: conversions both ways, so that a
/// test (or `thm check --impl model`) can feed one input to both and compare. Only the test
/// layer and the case runner see both sides; neither the core nor the model includes this.

#include <string>

#include "thm/core.hpp"
#include "thm/model/model.hpp"

namespace thm::bridge {

// ---- core → model -------------------------------------------------------------------------
model::Roster to_model(const RosterSnapshot& roster);
model::Desks to_model(const DeskSnapshot& desks);
model::Target to_model(const MentionTarget& target);
model::Mention to_model(const Mention& mention);
std::vector<model::Mention> to_model(const std::vector<Mention>& mentions);
model::Author to_model(const MentionAuthor& author);
model::Conversation to_model(const Conversation& conversation);
model::DispatchConversation to_model(const DispatchConversation& conversation);
model::Candidate to_model(const SelectorCandidate& candidate);
std::vector<model::Candidate> to_model(const std::vector<SelectorCandidate>& candidates);
model::ResponderRequest to_model(const ResponderRequest& request);
model::Decision to_model(const ResponderDecision& decision);
model::Plan to_model(const ResponderPlan& plan);
model::Evaluation to_model(const SelectionEvaluation& evaluation);
model::Selector to_model(const SelectorResult& selector);
model::Policy to_model(const MentionDispatchPolicy& policy);
model::DispatchInput to_model(const MentionDispatchInput& input);
model::DispatchContext to_model(const MentionDispatchContext& context);
model::QueueScript to_model(const Result<EnqueueOutcome, QueueError>& answer);
model::Step to_model(const TraceStep& step);
std::vector<model::Step> to_model(const DecisionTrace& trace);

// ---- model → core (a token the core does not know is a bridge bug: it aborts) ------------------
Mention to_core(const model::Mention& mention);
std::vector<Mention> to_core(const std::vector<model::Mention>& mentions);
DispatchConversation to_core(const model::DispatchConversation& conversation);
ResponderDecision to_core(const model::Decision& decision);
ResponderPlan to_core(const model::Plan& plan);
MentionDispatchDecision to_core(const model::DispatchDecision& decision);
MentionDispatchOutcome to_core_outcome(const model::DispatchResult& result);

/// The core side of a scripted host queue (cases.md `dispatch_mention`): it answers one
/// fixed outcome or failure to every call and counts the calls. `to_model(answer)` is the
/// same script for the model.
class ScriptedQueue final : public MentionTurnQueue {
 public:
  explicit ScriptedQueue(Result<EnqueueOutcome, QueueError> answer) : answer_(std::move(answer)) {}
  Result<EnqueueOutcome, QueueError> enqueue_once(const MentionTurnRequest&) noexcept override {
    ++calls_;
    return answer_;
  }
  /// How many times `enqueue_once` was called.
  [[nodiscard]] int calls() const noexcept { return calls_; }

 private:
  Result<EnqueueOutcome, QueueError> answer_;
  int calls_ = 0;
};

/// The case-file name of a core error and its fields, in the model's error shape: the
/// variant's `name`, then its fields in the order the case files write them (cases.md;
/// `thm::json::error_value` without `message`). Converted directly, not through JSON.
model::Error to_model_error(const RosterError& error);
model::Error to_model_error(const DeskError& error);
model::Error to_model_error(const ResponderError& error);

}  // namespace thm::bridge
