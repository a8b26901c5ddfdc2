#include "thm/queue/queue.hpp"

#include "thm/overloaded.hpp"

namespace thm {

namespace {

// SPEC §4 on a `Roster` or a `Team`: the decision, then at most one queue call.
template <class Snapshots>
Result<MentionDispatchOutcome, DispatchMentionError> dispatch(MentionTurnQueue& queue,
                                                              const MentionDispatchPolicy& policy,
                                                              const MentionDispatchInput& input,
                                                              const Snapshots& roster) {
  auto decision = mention_dispatch(policy, input, roster);
  if (!decision.has_value()) return unexpected{DispatchMentionError{CoreFailure{decision.error()}}};

  return std::visit(
      overloaded{
          [](const NoDispatch& none) -> Result<MentionDispatchOutcome, DispatchMentionError> {
            return NotDispatched{none.reason};
          },
          [&queue](const DispatchOne& one) -> Result<MentionDispatchOutcome, DispatchMentionError> {
            auto answer = queue.enqueue_once(one.request);
            if (!answer.has_value()) {
              return unexpected{DispatchMentionError{EnqueueFailure{std::move(answer).error()}}};
            }
            return std::visit(overloaded{
                                  [](Enqueued done) -> MentionDispatchOutcome { return done; },
                                  [](Already done) -> MentionDispatchOutcome { return done; },
                                  [](Refused refused) -> MentionDispatchOutcome { return refused; },
                              },
                              *answer);
          },
      },
      *decision);
}

}  // namespace

Result<MentionDispatchOutcome, DispatchMentionError> dispatch_mention(
    MentionTurnQueue& queue, const MentionDispatchPolicy& policy, const MentionDispatchInput& input,
    const Roster& roster) {
  return dispatch(queue, policy, input, roster);
}

Result<MentionDispatchOutcome, DispatchMentionError> dispatch_mention(
    MentionTurnQueue& queue, const MentionDispatchPolicy& policy, const MentionDispatchInput& input,
    const Team& team) {
  return dispatch(queue, policy, input, team);
}

std::string_view name(const DispatchMentionError& error) noexcept {
  return std::visit(overloaded{[](const CoreFailure&) { return "Core"; },
                               [](const EnqueueFailure&) { return "Enqueue"; }},
                    error);
}

std::string to_string(const DispatchMentionError& error) {
  return std::visit(overloaded{
                        [](const CoreFailure& failure) { return to_string(failure.core); },
                        [](const EnqueueFailure& failure) {
                          return "the host queue failed (" + std::string(name(failure.error.kind)) +
                                 "): " + failure.error.message;
                        },
                    },
                    error);
}

}  // namespace thm
