// Properties of a chain's shape (SPEC §3.1, §3.2 steps 7 to 9): off, they change nothing; on,
// they bound a chain, forbid a straight return and keep to the hand-off graph. That their
// refusals tell an agent nothing of others is Indistinguishable.RefusalsDoNotRevealOtherAgents.
#include "generators.hpp"

namespace thm::properties {
namespace {

bool is_shape_refusal(const MentionDispatchDecision& decision) {
  const auto* none = std::get_if<NoDispatch>(&decision);
  return none != nullptr && (none->reason == NoDispatchReason::ImmediateReturn ||
                             none->reason == NoDispatchReason::AgentTurnsSpent ||
                             none->reason == NoDispatchReason::HandoffNotAllowed);
}

bool is_shape_step(const TraceStep& step) {
  return step.rule == TraceRule::NoReturn || step.rule == TraceRule::AgentTurns ||
         step.rule == TraceRule::Handoff;
}

// With every rule off, the chain is never read and no step mentions the rules: the decision
// and the trace are those of the same reply with no chain at all. With rules on, a decision
// is the unshaped one, or a shape refusal where the unshaped one dispatched or was refused
// only after the target's state was read (SPEC §3.2 steps 10 to 12).
RC_GTEST_PROP(ChainShape, OffChangesNothingAndOnOnlyRefusesMore, ()) {
  const RosterSnapshot roster = *gen_roster();
  const MentionDispatchPolicy shaped = gen_shaped_policy(member_ids(roster));
  const MentionDispatchInput input = gen_reply(roster, shaped);
  const MentionDispatchPolicy off{.enabled = shaped.enabled, .max_hops = shaped.max_hops};
  MentionDispatchInput unchained = input;
  unchained.chain.clear();

  DecisionTrace with_chain;
  DecisionTrace without_chain;
  const auto plain = mention_dispatch(off, input, Roster(roster), with_chain);
  RC_ASSERT(plain == mention_dispatch(off, unchained, Roster(roster), without_chain));
  RC_ASSERT(with_chain == without_chain);
  RC_ASSERT(std::none_of(with_chain.begin(), with_chain.end(), is_shape_step));

  const auto decided = mention_dispatch(shaped, input, Roster(roster));
  RC_ASSERT(decided.has_value() == plain.has_value());
  if (!decided) return;
  RC_TAG(is_shape_refusal(*decided) ? "shape refusal" : "as unshaped");
  if (is_shape_refusal(*decided)) {
    // (RC_ASSERT does not short-circuit `||`: decide first.)
    const auto* unshaped = std::get_if<NoDispatch>(&*plain);
    const bool later = unshaped == nullptr ||
                       unshaped->reason == NoDispatchReason::TargetInactive ||
                       unshaped->reason == NoDispatchReason::HopOverflow;
    RC_ASSERT(later);
  } else {
    RC_ASSERT(*decided == *plain);
  }
}

// n active agents; each reply is written by the agent the previous one started, and names
// every teammate in turn until one is admitted: the longest chain the rules allow.
struct LongestChain {
  std::vector<std::string> turns;  // the authors, root first
  std::uint32_t started = 0;       // child turns
};

LongestChain longest_chain(const MentionDispatchPolicy& policy,
                           const std::vector<std::string>& team, const std::string& root) {
  RosterSnapshot roster;
  for (const std::string& id : team) roster.members.push_back({.id = id});
  LongestChain chain{.turns = {root}};
  for (std::uint32_t hop = 0; hop < 64; ++hop) {
    MentionDispatchInput reply{.author_id = chain.turns.back(), .hop = hop};
    reply.chain.assign(chain.turns.begin(), chain.turns.end() - 1);
    bool admitted = false;
    for (const std::string& target : shuffled(team)) {
      reply.mentions = {{.target = AgentTarget{target}, .text = "@" + target, .offset = 0}};
      const auto decision = mention_dispatch(policy, reply, Roster(roster));
      RC_ASSERT(decision.has_value());
      if (const auto* one = std::get_if<DispatchOne>(&*decision)) {
        chain.turns.push_back(one->request.target_id);
        ++chain.started;
        admitted = true;
        break;
      }
    }
    if (!admitted) break;
  }
  return chain;
}

RC_GTEST_PROP(ChainShape, ABudgetBoundsTheChain, ()) {
  const auto n = static_cast<std::size_t>(uniform(1, 5));
  const std::vector<std::string> team(kIds.begin(), kIds.begin() + static_cast<long>(n));
  const auto k = static_cast<std::uint32_t>(uniform(0, 4));
  const MentionDispatchPolicy policy{.enabled = true,
                                     .max_hops = static_cast<std::uint32_t>(uniform(0, 20)),
                                     .no_return = *rc::gen::arbitrary<bool>(),
                                     .max_turns_per_agent = k};
  const LongestChain chain = longest_chain(policy, team, *rc::gen::elementOf(team));
  RC_TAG(chain.started);
  // min(max_hops, k·n) turns at most (SPEC §3.1); tighter, k·n − 1 child turns, since the
  // root's turn counts against its agent's budget.
  const std::uint64_t all_turns = std::max<std::uint64_t>(std::uint64_t{k} * n, 1);
  RC_ASSERT(chain.started <= std::min<std::uint64_t>(policy.max_hops, std::uint64_t{k} * n));
  RC_ASSERT(chain.started <= std::min<std::uint64_t>(policy.max_hops, all_turns - 1));
  for (const std::string& agent : team) {
    const auto turns = std::count(chain.turns.begin(), chain.turns.end(), agent);
    // The root's turn is taken before any rule is asked; every later turn is admitted.
    RC_ASSERT(turns <= std::max<std::int64_t>(k, agent == chain.turns.front() ? 1 : 0));
  }
}

RC_GTEST_PROP(ChainShape, NoReturnNeverAdmitsABA, ()) {
  const auto n = static_cast<std::size_t>(uniform(2, 6));
  const std::vector<std::string> team(kIds.begin(), kIds.begin() + static_cast<long>(n));
  const MentionDispatchPolicy policy{
      .enabled = true, .max_hops = static_cast<std::uint32_t>(uniform(1, 30)), .no_return = true};
  const LongestChain chain = longest_chain(policy, team, *rc::gen::elementOf(team));
  for (std::size_t i = 2; i < chain.turns.size(); ++i) {
    RC_ASSERT(chain.turns[i] != chain.turns[i - 2]);
  }
  // With three agents or more, a chain never runs out of someone else to start.
  if (n >= 3) RC_ASSERT(chain.started == std::min<std::uint32_t>(policy.max_hops, 64));
}

// Whatever a reply names, `dispatch_mention` calls the queue only along a listed pair.
RC_GTEST_PROP(ChainShape, ADisallowedHandoffIsNeverEnqueued, ()) {
  const RosterSnapshot roster = *gen_roster();
  MentionDispatchPolicy policy = gen_shaped_policy(member_ids(roster));
  policy.allowed_handoffs = *gen_handoffs(member_ids(roster));
  const MentionDispatchInput input = gen_reply(roster, policy);
  struct Recording final : MentionTurnQueue {
    std::vector<MentionTurnRequest> requests;
    Result<EnqueueOutcome, QueueError> enqueue_once(
        const MentionTurnRequest& request) noexcept override {
      requests.push_back(request);
      return EnqueueOutcome{Enqueued{}};
    }
  } queue;
  (void)dispatch_mention(queue, policy, input, Roster(roster));
  RC_TAG(queue.requests.empty() ? "not enqueued" : "enqueued");
  for (const MentionTurnRequest& request : queue.requests) {
    const Handoff pair{.source_id = request.source_id, .target_id = request.target_id};
    RC_ASSERT(std::find(policy.allowed_handoffs->begin(), policy.allowed_handoffs->end(), pair) !=
              policy.allowed_handoffs->end());
  }
}

}  // namespace
}  // namespace thm::properties
