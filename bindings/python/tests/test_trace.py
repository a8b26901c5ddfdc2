"""Decision traces from Python (SPEC §8): `trace=` a list collects the steps, as the C++
overloads do; `str(step)` is the operator's line and `thm.agent_sentences` what an agent
may read."""

from __future__ import annotations

import pytest

import thm

ROSTER = thm.RosterSnapshot(members=[thm.RosterMember(id="ada", name=None),
                                     thm.RosterMember(id="bob", name=None)],
                            people=[], retired=["bob"], tombstoned=[])
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=3)


def reply(*targets: str) -> thm.MentionDispatchInput:
    mentions = [thm.Mention(target=thm.AgentTarget(id=t), text="@" + t, offset=10 * i)
                for i, t in enumerate(targets)]
    return thm.MentionDispatchInput(
        key=thm.DispatchKey(trigger_sequence=1),
        conversation=thm.DispatchConversation(desk_id="General", thread_root=None),
        author_id="ada", content="over to you", mentions=mentions, hop=0)


def test_a_trace_list_collects_the_steps_and_the_decision_is_unchanged() -> None:
    steps: list[thm.TraceStep] = []
    traced = thm.mention_dispatch(policy=POLICY, input=reply("bob"), roster=ROSTER, trace=steps)
    assert traced == thm.mention_dispatch(policy=POLICY, input=reply("bob"), roster=ROSTER)
    assert traced == thm.NoDispatch(reason=thm.NoDispatchReason.TARGET_INACTIVE)
    assert [step.rule for step in steps] == [
        thm.TraceRule.ENABLED, thm.TraceRule.HOP_BUDGET, thm.TraceRule.VALIDATE,
        thm.TraceRule.SOURCE, thm.TraceRule.MENTION, thm.TraceRule.TARGET,
        thm.TraceRule.SELF_MENTION, thm.TraceRule.TARGET_ACTIVE]
    assert steps[-1] == thm.TraceStep(rule="target_active", outcome="stopped", why="inactive",
                                      subject="bob", offset=None, count=None)
    assert str(steps[-1]) == "target active: bob is not an active member, so dispatch fails closed"


def test_the_agent_reads_the_same_whoever_the_target_was() -> None:
    retired: list[thm.TraceStep] = []
    nobody: list[thm.TraceStep] = []
    thm.mention_dispatch(policy=POLICY, input=reply("bob"), roster=ROSTER, trace=retired)
    thm.mention_dispatch(policy=POLICY, input=reply(), roster=ROSTER, trace=nobody)
    assert thm.agent_sentences(retired) == thm.agent_sentences(nobody)
    assert not any("bob" in sentence for sentence in thm.agent_sentences(retired))


def test_steps_are_appended_even_when_the_call_raises() -> None:
    broken = ROSTER.replace(members=[thm.RosterMember(id="ada", name=None)] * 2)
    steps: list[thm.TraceStep] = []
    with pytest.raises(thm.RosterError):
        thm.mention_dispatch(policy=POLICY, input=reply("bob"), roster=broken, trace=steps)
    assert steps[-1].rule == thm.TraceRule.VALIDATE
    assert steps[-1].outcome == thm.TraceOutcome.STOPPED
    assert steps[-1].subject == "DuplicateRosterMemberId"


def test_plans_and_settling_append_to_one_trace() -> None:
    desks = thm.DeskSnapshot(declared=[thm.Desk(id="eng", name="Eng", description=None,
                                                members=["ada", "cy"], responder_mode="auto")],
                             added=[], member_additions=[], orders=[], retired=[], tombstoned=[])
    roster = ROSTER.replace(members=[*ROSTER.members, thm.RosterMember(id="cy", name=None)])
    request = thm.ResponderRequest(message="who?", chat="eng", mentions=[],
                                   orchestrator_id="ada", selection_policy="allowed")
    steps: list[thm.TraceStep] = []
    plan = thm.responder_plan(request, roster=roster, desks=desks, candidate_details=[],
                              trace=steps)
    decision = thm.settle_selection(plan, selector=thm.SelectorText(output="nobody"), trace=steps)
    assert decision.rung == thm.ResponderRung.DESK_DEFAULT
    assert [str(step) for step in steps][-3:] == [
        "selector: text",
        'accept selection: "nobody" rejected, no candidate',
        "fallback: ada answers, invalid output"]
    assert thm.agent_sentences(steps) == [thm.display(thm.ResponderRung.DESK_DEFAULT),
                                          thm.display(thm.SelectionDisposition.INVALID_OUTPUT)]


def test_a_step_has_a_wire_form() -> None:
    step = thm.TraceStep(rule="mention", outcome="skipped", why="quiet", subject="@bob",
                         offset=4, count=None)
    assert step.to_json() == {"rule": "mention", "outcome": "skipped", "why": "quiet",
                              "subject": "@bob", "offset": 4, "count": None}
    assert thm.TraceStep.from_json(step.to_json()) == step
    assert str(step) == "mention @bob at byte 4: skipped, quiet"


def test_trace_must_be_a_list() -> None:
    with pytest.raises(TypeError, match=r"mention_dispatch\(trace\): expected a list or None"):
        thm.mention_dispatch(policy=POLICY, input=reply(), roster=ROSTER, trace=())  # type: ignore[call-overload]
