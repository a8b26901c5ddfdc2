// Properties of mention_dispatch and dispatch_mention: hop bounds, fail-closed ordering and
// refusal indistinguishability (SPEC §3, §4, §5).
#include "generators.hpp"

namespace thm::properties {
namespace {

// A roster where every id of the pool is an active member (author and targets exist).
RosterSnapshot everyone_active() {
  RosterSnapshot roster;
  for (const std::string& id : kIds) roster.members.push_back({.id = id});
  return roster;
}

// A chain of replies, each mentioning the next agent, fed back with the child hop it got.
RC_GTEST_PROP(HopBounds, AChainStartsAtMostMaxHopsChildTurns, ()) {
  const RosterSnapshot roster = everyone_active();
  const std::uint32_t max_hops = *rc::gen::inRange<std::uint32_t>(0, 12);
  const bool enabled = *rc::gen::weightedElement<bool>({{1, false}, {4, true}});
  const MentionDispatchPolicy policy{.enabled = enabled, .max_hops = max_hops};
  std::uint32_t hop = 0;
  std::uint32_t started = 0;
  std::string author = "alice";
  for (int step = 0; step < 20; ++step) {
    const std::string next = author == "alice" ? "bob" : "alice";
    const MentionDispatchInput reply{
        .author_id = author,
        .mentions = {{.target = AgentTarget{next}, .text = "@" + next, .offset = 0}},
        .hop = hop};
    const auto decision = mention_dispatch(policy, reply, Roster(roster));
    RC_ASSERT(decision.has_value());
    const auto* one = std::get_if<DispatchOne>(&*decision);
    if (one == nullptr) break;
    RC_ASSERT(one->request.child_hop == hop + 1);
    RC_ASSERT(one->request.target_id == next);
    ++started;
    hop = one->request.child_hop;
    author = next;
  }
  RC_ASSERT(started == (enabled ? max_hops : 0U));
}

RC_GTEST_PROP(HopBounds, EveryAdmittedRequestIsOneTargetAtHopPlusOne, ()) {
  const RosterSnapshot roster = *gen_roster();
  const MentionDispatchPolicy policy = *gen_policy();
  const MentionDispatchInput input = *gen_dispatch_input();
  const auto decision = mention_dispatch(policy, input, Roster(roster));
  if (!decision.has_value()) return;
  if (const auto* one = std::get_if<DispatchOne>(&*decision)) {
    RC_ASSERT(policy.enabled);
    RC_ASSERT(input.hop < policy.max_hops);
    RC_ASSERT(one->request.child_hop == input.hop + 1);
    RC_ASSERT(one->request.source_id == input.author_id);
    RC_ASSERT(one->request.target_id != input.author_id);
    RC_ASSERT(Roster(roster).is_active(one->request.target_id));
    RC_ASSERT(one->request.content == input.content);
    RC_ASSERT(one->request.conversation == input.conversation);
    RC_ASSERT(one->request.key == input.key);
  }
  if (!policy.enabled || policy.max_hops == 0)
    RC_ASSERT(std::holds_alternative<NoDispatch>(*decision));
}

// Everything after the first reading-order direct agent mention is irrelevant.
RC_GTEST_PROP(FailClosed, LaterMentionsNeverChangeTheDecision, ()) {
  const RosterSnapshot roster = *gen_roster();
  const MentionDispatchPolicy policy{.enabled = true, .max_hops = 3};
  MentionDispatchInput input = *gen_dispatch_input();
  input.hop = 0;
  input.mentions.insert(input.mentions.begin(),
                        Mention{.target = AgentTarget{*gen_id()}, .text = "@x", .offset = 0});
  const auto before = mention_dispatch(policy, input, Roster(roster));

  MentionDispatchInput changed = input;
  // Later mentions (offset > 0): add, drop, reorder, and change later targets' activity.
  std::vector<Mention> later(changed.mentions.begin() + 1, changed.mentions.end());
  std::erase_if(later, [](const Mention& m) { return m.offset == 0; });
  for (const Mention& m : *gen_mentions()) {
    if (m.offset > 0) later.push_back(m);
  }
  later = shuffled(later);
  changed.mentions = {input.mentions.front()};
  changed.mentions.insert(changed.mentions.end(), later.begin(), later.end());
  RosterSnapshot other = roster;
  const std::string first = std::get<AgentTarget>(input.mentions.front().target).id;
  for (const Mention& m : later) {
    const auto* agent = std::get_if<AgentTarget>(&m.target);
    if (agent != nullptr && agent->id != first && agent->id != input.author_id)
      other.retired.push_back(agent->id);
  }
  const auto after = mention_dispatch(policy, changed, Roster(other));
  RC_ASSERT(before == after);
}

RC_GTEST_PROP(FailClosed, ASelfOrInactiveFirstTargetIsNeverSkipped, ()) {
  RosterSnapshot roster = everyone_active();
  const std::string author = *gen_id();
  const bool self = *rc::gen::arbitrary<bool>();
  const std::string first =
      self ? author : *rc::gen::elementOf(std::vector<std::string>{"ghost", "retired-one"});
  if (!self)
    roster.members.push_back({.id = "retired-one"}), roster.retired.push_back("retired-one");
  MentionDispatchInput input{
      .author_id = author, .mentions = {{.target = AgentTarget{first}, .text = "@f", .offset = 0}}};
  for (const std::string& later : *gen_ids(4)) {
    input.mentions.push_back({.target = AgentTarget{later}, .text = "@" + later, .offset = 5});
  }
  const auto decision = mention_dispatch({.enabled = true, .max_hops = 2}, input, Roster(roster));
  RC_ASSERT(decision.has_value());
  RC_ASSERT(*decision ==
            MentionDispatchDecision{NoDispatch{self ? NoDispatchReason::SelfMention
                                                    : NoDispatchReason::TargetInactive}});
}

// ADR 0009 / SPEC §5, §8.4: two worlds that differ only in agents other than the author
// (their roster entries, and which hand-offs the host allows towards them) give refusals
// that read the same, to the letter and in the agent's form of their traces, with each
// rule of a chain's shape on or off.
RC_GTEST_PROP(Indistinguishable, RefusalsDoNotRevealOtherAgents, ()) {
  const std::string author = "alice";
  RosterSnapshot a = *gen_roster();
  std::erase_if(a.members, [&](const RosterMember& m) { return m.id == author; });
  a.members.insert(a.members.begin(), {.id = author});
  std::erase(a.retired, author);
  std::erase(a.tombstoned, author);
  RosterSnapshot b = a;
  b.members = {{.id = author}};
  for (const RosterMember& m : a.members) {
    if (m.id != author && *rc::gen::arbitrary<bool>()) b.members.push_back(m);
  }
  b.retired = *gen_ids(3);
  std::erase(b.retired, author);
  if (Roster(a).validate() || Roster(b).validate()) return;
  MentionDispatchPolicy policy_a = gen_shaped_policy(member_ids(a));
  policy_a.enabled = true;
  policy_a.max_hops = 4;
  MentionDispatchPolicy policy_b = policy_a;
  if (one_in(2)) policy_b.allowed_handoffs = *gen_handoffs(member_ids(a));
  MentionDispatchInput input = gen_reply(a, policy_a);
  input.author_id = author;
  input.hop = 1;
  DecisionTrace trace_a;
  DecisionTrace trace_b;
  const auto in_a = mention_dispatch(policy_a, input, Roster(a), trace_a);
  const auto in_b = mention_dispatch(policy_b, input, Roster(b), trace_b);
  const auto* refused_a = std::get_if<NoDispatch>(&*in_a);
  const auto* refused_b = std::get_if<NoDispatch>(&*in_b);
  if (refused_a != nullptr && refused_b != nullptr) {
    RC_TAG(std::string(name(refused_a->reason)) + " / " + std::string(name(refused_b->reason)));
    RC_ASSERT(to_string(refused_a->reason) == to_string(refused_b->reason));
    RC_ASSERT(agent_sentences(trace_a) == agent_sentences(trace_b));
  }
}

RC_GTEST_PROP(Indistinguishable, QueueRefusalsAboutOthersReadTheSame, ()) {
  const auto a = *rc::gen::element(EnqueueRefusal::Unauthorized, EnqueueRefusal::TargetUnavailable);
  const auto b =
      *rc::gen::element(NoDispatchReason::NoDirectAgentMention, NoDispatchReason::TargetInactive);
  RC_ASSERT(to_string(a) == to_string(b));
  RC_ASSERT(to_string(a).find('@') == std::string_view::npos);
}

}  // namespace
}  // namespace thm::properties
