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


def test_a_chain_with_a_shape_from_python_values() -> None:
    team = ROSTER.replace(retired=[], members=[*ROSTER.members, thm.RosterMember(id="cy", name=None)])
    shaped = POLICY.replace(no_return=True, max_turns_per_agent=2,
                            allowed_handoffs=[thm.Handoff(source_id="ada", target_id="cy")])
    assert shaped.allowed_handoffs == (thm.Handoff(source_id="ada", target_id="cy"),)
    back = reply("bob").replace(hop=1, chain=["bob"])
    steps: list[thm.TraceStep] = []
    assert thm.mention_dispatch(policy=shaped, input=back, roster=team, trace=steps) == \
        thm.NoDispatch(reason=thm.NoDispatchReason.IMMEDIATE_RETURN)
    assert steps[-1].rule == thm.TraceRule.NO_RETURN
    elsewhere = reply("bob").replace(hop=1, chain=["cy"])
    assert thm.mention_dispatch(policy=shaped, input=elsewhere, roster=team) == \
        thm.NoDispatch(reason=thm.NoDispatchReason.HANDOFF_NOT_ALLOWED)
    onward = reply("cy").replace(hop=1, chain=["bob"])
    decision = thm.mention_dispatch(policy=shaped, input=onward, roster=team)
    assert isinstance(decision, thm.DispatchOne) and decision.request.target_id == "cy"
    # Off by default: the same reply straight back dispatches, as it always did.
    assert isinstance(thm.mention_dispatch(policy=POLICY, input=back, roster=team), thm.DispatchOne)


def test_a_thread_keeps_its_agent() -> None:
    team = ROSTER.replace(retired=[])
    request = thm.ResponderRequest(message="and then?", chat=None, mentions=[],
                                   orchestrator_id="ada", thread_responder="bob")
    plan = thm.responder_plan(request, roster=team, desks=thm.DeskSnapshot(),
                              candidate_details=[])
    assert plan == thm.Decided(decision=thm.ResponderDecision(
        responder_id="bob", rung=thm.ResponderRung.THREAD_RESPONDER,
        disposition=thm.SelectionDisposition.NOT_APPLICABLE))
    assert request.replace(thread_responder=None).thread_responder is None
