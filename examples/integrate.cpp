// Integrating thm: one message through the whole core, the way a host would run it.
// Built and run by CTest (label `example`); docs/cpp.md walks through it.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "thm/core.hpp"

namespace {

// 0. The host's queue port. A real one writes to its database in one transaction (see the
//    contract in thm/queue/queue.hpp); this one keeps child turns in memory.
class HostQueue final : public thm::MentionTurnQueue {
 public:
  thm::Result<thm::EnqueueOutcome, thm::QueueError> enqueue_once(
      const thm::MentionTurnRequest& request) noexcept override {
    for (const auto& turn : turns) {
      if (turn.key == request.key && turn.conversation == request.conversation) {
        return thm::EnqueueOutcome{thm::Already{}};
      }
    }
    turns.push_back(request);
    return thm::EnqueueOutcome{thm::Enqueued{}};
  }
  std::vector<thm::MentionTurnRequest> turns;
};

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
  if (!ok) ++failures;
}

// 1 to 3. Sam's message: its mentions, the plan, and who answers. Nothing when no plan can
//    be made.
std::optional<thm::ResponderDecision> answer_message(const thm::Roster& roster,
                                                     const thm::DeskSet& desk_set) {
  // 1. Sam writes in the Engineering desk. Resolve the mentions in the text.
  const std::string message = "Can someone check `@bob`'s patch? cc @pat_doe";
  const auto mentions =
      thm::resolve_mentions(message, std::nullopt, thm::PersonAuthor{"p2"}, roster, desk_set);
  expect(mentions.size() == 1 && mentions[0].target == thm::MentionTarget{thm::PersonTarget{"p1"}},
         "the only live mention is the person; code is masked");

  // 2. Plan who answers. The desk is in auto mode, so the plan asks the host's selector.
  const thm::ResponderRequest request{
      .message = message, .chat = "eng", .mentions = mentions, .orchestrator_id = "orch"};
  auto plan = thm::responder_plan(request, roster, desk_set, {});
  if (!plan) {
    std::cerr << "cannot plan: " << thm::to_string(plan.error()) << "\n";
    return std::nullopt;
  }
  const auto* select = std::get_if<thm::Select>(&*plan);
  expect(select != nullptr && select->request.candidates.size() == 2, "the plan asks a selector");

  // 3. The host asks its model once (here: a canned answer) and settles the plan.
  const thm::SelectorResult answer = thm::SelectorText{"Bob."};
  const thm::ResponderDecision decision = thm::settle_selection(*plan, answer);
  expect(decision.responder_id == "bob" && decision.rung == thm::ResponderRung::AutoSelection,
         "bob answers: " + std::string(thm::to_string(decision.rung)));
  return decision;
}

// 4. Bob is briefed before his turn: the dispatch sentence appears because he may dispatch.
//    False when no briefing can be built.
bool brief_responder(const thm::ResponderDecision& decision,
                     const thm::MentionDispatchPolicy& policy, const thm::Roster& roster,
                     const thm::DeskSet& desk_set) {
  auto briefing = thm::TeamBriefing::from_snapshots(
      decision.responder_id, {.desk_id = "eng", .desk_name = "Engineering"}, desk_set, roster);
  if (!briefing) return false;
  const std::string system_text = briefing->system_text_with_dispatch({.policy = policy, .hop = 0});
  expect(system_text.find(thm::kDispatchSentence) != std::string::npos,
         "the briefing offers dispatch");
  return true;
}

// 5 to 7. Bob's reply hands a turn to alice, once; alice's reply at the hop limit does not.
void dispatch_replies(const thm::MentionDispatchPolicy& policy, const thm::Roster& roster,
                      const thm::DeskSet& desk_set) {
  // 5. Bob's reply is committed (sequence 42) and mentions alice. May it start her turn?
  const std::string reply = "@alice can you double-check the migration?";
  const auto reply_mentions =
      thm::resolve_mentions(reply, std::nullopt, thm::AgentAuthor{"bob"}, roster, desk_set);
  const thm::MentionDispatchInput input{
      .key = {.trigger_sequence = 42},
      .conversation =
          thm::DispatchConversation::from({.desk_id = "eng", .desk_name = "Engineering"}),
      .author_id = "bob",
      .content = reply,
      .mentions = reply_mentions,
      .hop = 0,  // a reply to a person; derive it from your own rows, never from the message
  };
  HostQueue queue;
  auto outcome = thm::dispatch_mention(queue, policy, input, roster);
  expect(outcome && *outcome == thm::MentionDispatchOutcome{thm::Enqueued{}} &&
             queue.turns.size() == 1 && queue.turns[0].child_hop == 1,
         "one child turn for alice, at hop 1");

  // 6. The same reply dispatched again (a retry after a crash) starts nothing new.
  outcome = thm::dispatch_mention(queue, policy, input, roster);
  expect(
      outcome && *outcome == thm::MentionDispatchOutcome{thm::Already{}} && queue.turns.size() == 1,
      "a duplicate is Already");

  // 7. Alice's reply at hop 2 would exceed the budget: declined with a sentence safe to show.
  thm::MentionDispatchInput at_limit = input;
  at_limit.author_id = "alice";
  at_limit.key.trigger_sequence = 43;
  at_limit.mentions = thm::resolve_mentions("@bob over to you", std::nullopt,
                                            thm::AgentAuthor{"alice"}, roster, desk_set);
  at_limit.hop = 2;
  outcome = thm::dispatch_mention(queue, policy, at_limit, roster);
  const auto* declined = outcome ? std::get_if<thm::NotDispatched>(&*outcome) : nullptr;
  expect(declined != nullptr && declined->reason == thm::NoDispatchReason::HopLimitReached,
         "declined: " + std::string(declined ? thm::to_string(declined->reason) : "?"));
}

}  // namespace

int main() {
  // The host's snapshots: who exists, who is retired, how desks are staffed.
  const thm::RosterSnapshot team{
      .members = {{.id = "orch", .name = "Orchestrator"},
                  {.id = "alice", .name = "Alice"},
                  {.id = "bob", .name = "Bob"}},
      .people = {{.id = "p1", .label = "Pat Doe"}, {.id = "p2", .label = "Sam"}},
  };
  const thm::DeskSnapshot desks{
      .declared = {{.id = "eng",
                    .name = "Engineering",
                    .members = {"alice", "bob"},
                    .responder_mode = thm::ResponderMode::Auto}},
  };
  const thm::Roster roster(team);
  const thm::DeskSet desk_set(desks);

  // Steps 1 to 3: who answers Sam's message.
  const auto decision = answer_message(roster, desk_set);
  if (!decision) return 1;
  // Step 4: the responder's briefing, under the host's dispatch policy.
  const thm::MentionDispatchPolicy policy{.enabled = true, .max_hops = 2};
  if (!brief_responder(*decision, policy, roster, desk_set)) return 1;
  // Steps 5 to 7: the replies, and the turns they may start.
  dispatch_replies(policy, roster, desk_set);

  std::cout << (failures == 0 ? "integration example passed\n" : "integration example FAILED\n");
  return failures == 0 ? 0 : 1;
}
