#include "thm/trace/trace.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "thm/dispatch/dispatch.hpp"
#include "thm/explain/explain.hpp"
#include "thm/responder/responder.hpp"
#include "thm/selection/selection.hpp"

namespace thm {
namespace {

std::vector<std::string> lines(const DecisionTrace& trace) {
  std::vector<std::string> out;
  for (const TraceStep& step : trace) out.push_back(to_string(step));
  return out;
}

Mention agent(std::string id, std::size_t offset, bool quiet = false) {
  return {.target = AgentTarget{id}, .text = "@" + id, .offset = offset, .quiet = quiet};
}

// ---- responder_plan -------------------------------------------------------------------------

struct Ladder {
  RosterSnapshot roster{.members = {{.id = "orch"}, {.id = "ana"}, {.id = "bob"}, {.id = "cy"}}};
  DeskSnapshot desks{.declared = {{.id = "eng",
                                   .name = "Engineering",
                                   .members = {"ana", "bob", "cy"},
                                   .responder_mode = ResponderMode::Auto}}};
  ResponderRequest request{.message = "who?", .orchestrator_id = "orch"};

  DecisionTrace trace() const {
    DecisionTrace steps;
    const auto plan = responder_plan(request, Roster(roster), DeskSet(desks), {}, steps);
    const auto untraced = responder_plan(request, Roster(roster), DeskSet(desks), {});
    EXPECT_EQ(plan.has_value(), untraced.has_value());
    if (plan.has_value() && untraced.has_value()) {
      EXPECT_EQ(*plan, *untraced);
    }
    return steps;
  }
};

TEST(DecisionTraceTest, AnAutoDeskAsksItsSelector) {
  Ladder s;
  s.request.chat = "eng";
  EXPECT_EQ(lines(s.trace()),
            (std::vector<std::string>{
                "validate: the snapshots are well formed",
                "explicit mention: no mention names an active agent",
                "desk: the chat is desk eng",
                "desk plan: 3 active effective members, auto mode: a selector is asked, ana if "
                "it cannot answer",
                "selector candidates: 3",
            }));
}

TEST(DecisionTraceTest, AThreadKeepsItsAgentBeforeAnyDesk) {
  Ladder s;
  s.request.chat = "eng";
  s.request.thread_responder = "cy";
  const DecisionTrace kept = s.trace();
  EXPECT_EQ(lines(kept), (std::vector<std::string>{
                             "validate: the snapshots are well formed",
                             "explicit mention: no mention names an active agent",
                             "thread responder: cy answered last in this thread and answers",
                         }));
  EXPECT_EQ(agent_sentences(kept),
            (std::vector<std::string_view>{to_string(ResponderRung::ThreadResponder)}));

  // Retired since: the step says so, and the ladder goes on to the desk.
  s.roster.retired = {"cy"};
  const DecisionTrace skipped = s.trace();
  ASSERT_GE(skipped.size(), 3U);
  EXPECT_EQ(skipped[2], (TraceStep{.rule = TraceRule::ThreadResponder,
                                   .outcome = TraceOutcome::Skipped,
                                   .why = TraceWhy::Inactive,
                                   .subject = "cy"}));
  EXPECT_EQ(skipped[3].rule, TraceRule::Desk);

  // None given: no step at all, as before the rung existed.
  s.request.thread_responder.reset();
  for (const TraceStep& step : s.trace()) EXPECT_NE(step.rule, TraceRule::ThreadResponder);
}

TEST(DecisionTraceTest, MentionsAreReadInReadingOrderUpToTheOneThatAnswers) {
  Ladder s;
  s.roster.retired = {"bob"};
  s.request.mentions = {agent("cy", 20),
                        agent("ana", 3, /*quiet=*/true),
                        agent("bob", 9),
                        {.target = PersonTarget{"pat"}, .text = "@pat", .offset = 14},
                        agent("ana", 30)};
  const DecisionTrace trace = s.trace();
  EXPECT_EQ(lines(trace), (std::vector<std::string>{
                              "validate: the snapshots are well formed",
                              "mention @ana at byte 3: skipped, quiet",
                              "mention @bob at byte 9: skipped, inactive",
                              "mention @pat at byte 14: skipped, person",
                              "mention @cy at byte 20: chosen",
                              "explicit mention: cy answers",
                          }));
  EXPECT_EQ(agent_sentences(trace),
            (std::vector<std::string_view>{to_string(ResponderRung::ExplicitMention)}));
}

TEST(DecisionTraceTest, AnAmbiguousDeskNameGoesToTheOrchestrator) {
  Ladder s;
  s.desks.declared.push_back({.id = "eng2", .name = "Engineering", .members = {"cy"}});
  s.request.chat = "Engineering";
  const DecisionTrace trace = s.trace();
  ASSERT_EQ(trace.size(), 4U);
  EXPECT_EQ(trace[2], (TraceStep{.rule = TraceRule::Desk,
                                 .outcome = TraceOutcome::Skipped,
                                 .why = TraceWhy::Ambiguous,
                                 .subject = "Engineering"}));
  EXPECT_EQ(trace[3], (TraceStep{.rule = TraceRule::Orchestrator,
                                 .outcome = TraceOutcome::Applied,
                                 .subject = "orch"}));
}

TEST(DecisionTraceTest, AnErrorEndsTheTraceWithTheStepThatFoundIt) {
  Ladder s;
  s.roster.retired = {"orch"};
  const DecisionTrace trace = s.trace();
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.back(), (TraceStep{.rule = TraceRule::Orchestrator,
                                     .outcome = TraceOutcome::Stopped,
                                     .why = TraceWhy::Inactive,
                                     .subject = "orch"}));
  EXPECT_TRUE(agent_sentences(trace).empty());

  Ladder broken;
  broken.roster.members.push_back({.id = "ana"});
  EXPECT_EQ(broken.trace(), (DecisionTrace{{.rule = TraceRule::Validate,
                                            .outcome = TraceOutcome::Stopped,
                                            .subject = "DuplicateRosterMemberId"}}));
}

// ---- settle_selection -----------------------------------------------------------------------

TEST(DecisionTraceTest, ARejectedEvaluationSaysWhichRuleRejectedIt) {
  const Select plan{.request = {.desk_id = "eng",
                                .candidates = {{.id = "ana", .label = "ana", .role = "Teammate"},
                                               {.id = "bob", .label = "bob", .role = "Teammate"}}},
                    .fallback = {.responder_id = "ana", .rung = ResponderRung::DeskDefault}};
  const SelectorEvaluation answer{
      .evaluation = {.choice = "bob",
                     .probabilities = {{"ana", {600'000}}, {"bob", {400'000}}},
                     .confidence = {900'000}},
      .minimum_confidence = {500'000}};
  DecisionTrace trace;
  EXPECT_EQ(settle_selection(plan, answer, trace), settle_selection(plan, answer));
  EXPECT_EQ(lines(trace), (std::vector<std::string>{
                              "selector: evaluation",
                              "accept evaluation: rejected, more probable entry (ana)",
                              "fallback: ana answers, invalid output",
                          }));
  EXPECT_EQ(agent_sentences(trace),
            (std::vector<std::string_view>{to_string(ResponderRung::DeskDefault),
                                           to_string(SelectionDisposition::InvalidOutput)}));
}

TEST(DecisionTraceTest, ARejectedTextShowsItNormalized) {
  const Select plan{.request = {.candidates = {{.id = "ana"}, {.id = "ANA"}}},
                    .fallback = {.responder_id = "ana"}};
  DecisionTrace trace;
  (void)settle_selection(plan, SelectorText{" 'Ana'. "}, trace);
  ASSERT_EQ(trace.size(), 3U);
  EXPECT_EQ(trace[1], (TraceStep{.rule = TraceRule::AcceptSelection,
                                 .outcome = TraceOutcome::Skipped,
                                 .why = TraceWhy::SeveralCandidates,
                                 .subject = "Ana"}));
}

// ---- mention_dispatch and the agent's form (SPEC §5, §8.4) -------------------------------------

struct Reply {
  RosterSnapshot roster{.members = {{.id = "ana"}, {.id = "bob"}, {.id = "ghost"}},
                        .retired = {"ghost"}};
  MentionDispatchPolicy policy{.enabled = true, .max_hops = 3};
  MentionDispatchInput input{.author_id = "ana", .content = "over to you", .hop = 1};

  DecisionTrace trace() const {
    DecisionTrace steps;
    const auto decision = mention_dispatch(policy, input, Roster(roster), steps);
    const auto untraced = mention_dispatch(policy, input, Roster(roster));
    EXPECT_TRUE(decision.has_value() && untraced.has_value() && *decision == *untraced);
    return steps;
  }
};

TEST(DecisionTraceTest, TheFirstDirectAgentMentionBeingTheAuthorFailsClosed) {
  Reply s;
  s.input.mentions = {agent("bob", 12), agent("ana", 0)};
  EXPECT_EQ(lines(s.trace()),
            (std::vector<std::string>{
                "enabled: dispatch is on",
                "hop budget: hop 1 is under max_hops",
                "validate: the snapshots are well formed",
                "source: ana is active",
                "mention @ana at byte 0: chosen",
                "target: ana",
                "self mention: the first direct agent mention is the author, so dispatch fails "
                "closed",
            }));
}

// Every refusal §3.2 can reach, from a reply by `ana` that names `bob`, `ghost` or `ana`.
std::map<NoDispatchReason, Reply> one_reply_per_refusal() {
  std::map<NoDispatchReason, Reply> replies;
  Reply off;
  off.policy.enabled = false;
  off.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::Disabled] = off;
  Reply spent;
  spent.input.hop = 3;
  spent.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::HopLimitReached] = spent;
  Reply retired;
  retired.roster.retired.push_back("ana");
  retired.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::SourceInactive] = retired;
  Reply nobody;
  nobody.input.mentions = {{.target = PersonTarget{"bob"}, .text = "@bob", .offset = 0},
                           agent("ghost", 5, /*quiet=*/true)};
  replies[NoDispatchReason::NoDirectAgentMention] = nobody;
  Reply self;
  self.input.mentions = {agent("ana", 0), agent("bob", 9)};
  replies[NoDispatchReason::SelfMention] = self;
  Reply gone;
  gone.input.mentions = {agent("ghost", 0), agent("bob", 9)};
  replies[NoDispatchReason::TargetInactive] = gone;
  Reply back;  // bob wrote the previous reply; ana names him again
  back.policy.no_return = true;
  back.input.chain = {"bob"};
  back.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::ImmediateReturn] = back;
  Reply again;  // bob has had his one turn of this chain
  again.policy.max_turns_per_agent = 1;
  again.input.chain = {"bob"};
  again.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::AgentTurnsSpent] = again;
  Reply elsewhere;  // only bob may start ana, not the other way round
  elsewhere.policy.allowed_handoffs =
      std::vector<Handoff>{{.source_id = "bob", .target_id = "ana"}};
  elsewhere.input.mentions = {agent("bob", 0)};
  replies[NoDispatchReason::HandoffNotAllowed] = elsewhere;
  return replies;
}

TEST(DecisionTraceTest, TheAgentsFormOfEveryRefusalDisclosesWhatItsSentenceDoes) {
  const auto replies = one_reply_per_refusal();
  for (const NoDispatchReason reason : kAllNoDispatchReasons) {
    SCOPED_TRACE(std::string(name(reason)));
    DecisionTrace trace;
    if (reason == NoDispatchReason::HopOverflow) {
      // Unreachable through `mention_dispatch` (SPEC §3.2 step 8): the trace it would end.
      Reply last;
      trace = last.trace();
      trace.back() = {.rule = TraceRule::HopOverflow, .outcome = TraceOutcome::Stopped};
    } else {
      ASSERT_TRUE(replies.contains(reason));
      trace = replies.at(reason).trace();
    }
    ASSERT_FALSE(trace.empty());
    const auto sentences = agent_sentences(trace);
    // The whole form: the steps on what the caller holds, as far as evaluation got before
    // it looked at anyone else (SPEC §8.4), then the refusal's sentence, and nothing more.
    std::vector<std::string_view> expected;
    if (reason != NoDispatchReason::Disabled) {
      expected.push_back("handing a turn to a teammate is switched on in this conversation");
    }
    if (reason != NoDispatchReason::Disabled && reason != NoDispatchReason::HopLimitReached) {
      expected.push_back("this chain of handoffs has hops left");
    }
    if (reason != NoDispatchReason::Disabled && reason != NoDispatchReason::HopLimitReached &&
        reason != NoDispatchReason::SourceInactive) {
      expected.push_back("you are an active member of this team");
    }
    expected.push_back(to_string(reason));
    EXPECT_EQ(sentences, expected);
    for (const std::string_view sentence : sentences) {
      EXPECT_EQ(sentence.find('@'), std::string_view::npos) << sentence;
      for (const char* id : {"bob", "ghost"}) {
        EXPECT_EQ(sentence.find(id), std::string_view::npos) << sentence;
      }
    }
    // The operator's form may say everything.
    EXPECT_FALSE(lines(trace).empty());
  }
}

// SPEC §8.4: a list reused across decisions renders each one's steps in turn, as if each
// had its own list; a plan and then its settling are one decision.
TEST(DecisionTraceTest, AListReusedAcrossDecisionsRendersEachInTurn) {
  const auto replies = one_reply_per_refusal();
  const auto alone = [](const DecisionTrace& trace) {
    const auto sentences = agent_sentences(trace);
    return std::vector<std::string_view>(sentences.begin(), sentences.end());
  };
  const auto joined = [](std::vector<std::string_view> a, const std::vector<std::string_view>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const DecisionTrace off = replies.at(NoDispatchReason::Disabled).trace();
  const DecisionTrace gone = replies.at(NoDispatchReason::TargetInactive).trace();
  const DecisionTrace spent = replies.at(NoDispatchReason::HopLimitReached).trace();
  Ladder threaded;
  threaded.request.thread_responder = "cy";
  const DecisionTrace plan = threaded.trace();
  const DecisionTrace settle = [] {
    DecisionTrace steps;
    (void)settle_selection(Decided{{.responder_id = "ana", .rung = ResponderRung::DeskDefault}},
                           SelectorAbsent{}, steps);
    return steps;
  }();
  const auto twice = [](const DecisionTrace& a, const DecisionTrace& b) {
    DecisionTrace both = a;
    both.insert(both.end(), b.begin(), b.end());
    return both;
  };
  EXPECT_EQ(alone(twice(off, off)), joined(alone(off), alone(off)));
  EXPECT_EQ(alone(twice(gone, off)), joined(alone(gone), alone(off)));
  EXPECT_EQ(alone(twice(twice(off, gone), spent)),
            joined(joined(alone(off), alone(gone)), alone(spent)));
  EXPECT_EQ(alone(twice(gone, plan)), joined(alone(gone), alone(plan)));
  EXPECT_EQ(alone(twice(plan, gone)), joined(alone(plan), alone(gone)));
  EXPECT_EQ(alone(twice(settle, settle)), joined(alone(settle), alone(settle)));
  EXPECT_EQ(alone(twice(spent, settle)), joined(alone(spent), alone(settle)));
  // A plan and its settling are one decision: the settled answer, once.
  EXPECT_EQ(alone(twice(plan, settle)), alone(settle));
  EXPECT_EQ(alone(twice(twice(plan, settle), off)), joined(alone(settle), alone(off)));
}

TEST(DecisionTraceTest, RefusalsWordedAlikeRenderAlikeForTheAgent) {
  const auto replies = one_reply_per_refusal();
  const auto nobody = agent_sentences(replies.at(NoDispatchReason::NoDirectAgentMention).trace());
  const auto gone = agent_sentences(replies.at(NoDispatchReason::TargetInactive).trace());
  EXPECT_EQ(nobody, gone);
  EXPECT_EQ(nobody.back(), kNoAvailableTarget);

  // Whatever the mentions name, an inactive or unknown target reads the same.
  Reply unknown = replies.at(NoDispatchReason::TargetInactive);
  unknown.input.mentions = {agent("zed", 0)};
  EXPECT_EQ(agent_sentences(unknown.trace()), gone);

  // A hand-off the host's graph does not allow reads as an inactive target does: an agent
  // cannot map the graph one mention at a time.
  EXPECT_EQ(agent_sentences(replies.at(NoDispatchReason::HandoffNotAllowed).trace()), gone);
}

// The shape rules read the chain and the mention, never the roster: their sentences are
// the same whether the named agent is active, retired or was never on the roster.
TEST(DecisionTraceTest, ShapeRefusalsReadTheSameWhateverTheNamedAgentsState) {
  const auto replies = one_reply_per_refusal();
  for (const NoDispatchReason reason :
       {NoDispatchReason::ImmediateReturn, NoDispatchReason::AgentTurnsSpent}) {
    SCOPED_TRACE(std::string(name(reason)));
    const auto active = agent_sentences(replies.at(reason).trace());
    Reply retired = replies.at(reason);
    retired.roster.retired.push_back("bob");
    EXPECT_EQ(agent_sentences(retired.trace()), active);
    Reply unknown = replies.at(reason);
    unknown.input.chain = {"zed"};
    unknown.input.mentions = {agent("zed", 0)};
    EXPECT_EQ(agent_sentences(unknown.trace()), active);
  }
}

TEST(DecisionTraceTest, TheShapeRulesNoteOneStepEachOnlyWhenOn) {
  Reply all;
  all.policy.no_return = true;
  all.policy.max_turns_per_agent = 2;
  all.policy.allowed_handoffs = std::vector<Handoff>{{.source_id = "ana", .target_id = "bob"}};
  all.input.chain = {"bob"};
  all.input.hop = 1;
  all.input.mentions = {agent("bob", 0)};
  Reply back = all;
  EXPECT_EQ(lines(back.trace()).back(),
            "no return: bob wrote the previous reply, so the turn may not go straight back");
  all.input.chain = {"bob", "carol"};
  all.input.hop = 2;
  EXPECT_EQ(lines(all.trace()),
            (std::vector<std::string>{
                "enabled: dispatch is on",
                "hop budget: hop 2 is under max_hops",
                "validate: the snapshots are well formed",
                "source: ana is active",
                "mention @bob at byte 0: chosen",
                "target: bob",
                "self mention: the target is not the author",
                "no return: bob did not write the previous reply",
                "agent turns: bob has taken 1 turn of this chain, under max_turns_per_agent",
                "handoff: a hand-off to bob is allowed",
                "target active: bob is active",
                "hop overflow: the child hop fits",
                "dispatch: one child turn for bob at hop 3",
            }));
  Reply off;
  off.input.chain = {"bob"};
  off.input.mentions = {agent("bob", 0)};
  for (const TraceStep& step : off.trace()) {
    EXPECT_NE(step.rule, TraceRule::NoReturn);
    EXPECT_NE(step.rule, TraceRule::AgentTurns);
    EXPECT_NE(step.rule, TraceRule::Handoff);
  }
}

TEST(DecisionTraceTest, ADispatchRecordsTheChildHop) {
  Reply s;
  s.input.mentions = {agent("bob", 4)};
  const DecisionTrace trace = s.trace();
  ASSERT_FALSE(trace.empty());
  EXPECT_EQ(trace.back(), (TraceStep{.rule = TraceRule::Dispatch,
                                     .outcome = TraceOutcome::Applied,
                                     .subject = "bob",
                                     .count = 2}));
}

// A subject is text from the host's input (a mention as written, a chat): a line break or an
// escape sequence in it must not forge a line of the operator's form or steer a terminal.
TEST(DecisionTraceTest, TheOperatorsLineShowsControlCharactersEscaped) {
  const TraceStep forged{.rule = TraceRule::Mention,
                         .outcome = TraceOutcome::Skipped,
                         .why = TraceWhy::Quiet,
                         .subject = "@bob\n  3. explicit mention: bob answers\x1b[31m\x7f\t",
                         .offset = 0};
  EXPECT_EQ(to_string(forged),
            "mention @bob\\n  3. explicit mention: bob answers\\x1b[31m\\x7f\\t at byte 0: "
            "skipped, quiet");
  const TraceStep chat{.rule = TraceRule::Desk,
                       .outcome = TraceOutcome::Skipped,
                       .why = TraceWhy::Unknown,
                       .subject = "caf\xc3\xa9 \"x\"\\"};
  EXPECT_EQ(to_string(chat), "desk: \"caf\xc3\xa9 \\\"x\\\"\\\\\" is no desk");
}

// C1 controls (U+0080 to U+009F: NEL, CSI) and the Unicode line and paragraph separators
// break or steer a line as C0 controls do, so they are escaped too; other text above ASCII
// is kept, and a byte that is no UTF-8 is shown as its value rather than passed to a terminal.
TEST(DecisionTraceTest, TheOperatorsLineEscapesC1ControlsAndUnicodeSeparators) {
  const TraceStep forged{.rule = TraceRule::Source,
                         .outcome = TraceOutcome::Stopped,
                         .why = TraceWhy::Inactive,
                         .subject =
                             "a\xc2\x85"
                             "b\xc2\x9b"
                             "31m\xe2\x80\xa8"
                             "d\xe2\x80\xa9"
                             "e"
                             "\xc2\xa0\xe2\x80\xa7\xff\xc2"};
  EXPECT_EQ(to_string(forged),
            "source: a\\u0085b\\u009b31m\\u2028d\\u2029e\xc2\xa0\xe2\x80\xa7\\xff\\xc2 is not an "
            "active member");
}

TEST(DecisionTraceTest, EveryTokenRoundTrips) {
  for (const TraceRule rule : kAllTraceRules) EXPECT_EQ(trace_rule_from_name(name(rule)), rule);
  for (const TraceOutcome outcome : kAllTraceOutcomes) {
    EXPECT_EQ(trace_outcome_from_name(name(outcome)), outcome);
  }
  for (const TraceWhy why : kAllTraceWhys) EXPECT_EQ(trace_why_from_name(name(why)), why);
}

}  // namespace
}  // namespace thm
