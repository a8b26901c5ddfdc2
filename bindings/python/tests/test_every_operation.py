"""Every operation, called right and then with each argument wrong: the right call answers,
and each wrong one is a TypeError naming the operation and the argument (a
malformed-input test per operation). The table must name every function of the module."""

from __future__ import annotations

import inspect
from typing import Any, Callable

import pytest

import thm
import thm._thm as module

ROSTER = thm.RosterSnapshot(members=[thm.RosterMember(id="ada", name=None),
                                     thm.RosterMember(id="bob", name=None)],
                            people=[], retired=[], tombstoned=[])
DESKS = thm.DeskSnapshot(declared=[thm.Desk(id="eng", name="Eng", description=None,
                                            members=["ada", "bob"])],
                         added=[], member_additions=[], orders=[], retired=[], tombstoned=[])
MENTION = thm.Mention(target=thm.AgentTarget(id="bob"), text="@bob", offset=0)
CONVERSATION = thm.Conversation(desk_id="eng", desk_name="Eng", thread_root=None)
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=3)
REPLY = thm.MentionDispatchInput(key=thm.DispatchKey(trigger_sequence=1),
                                 conversation=thm.DispatchConversation(desk_id="eng",
                                                                       thread_root=None),
                                 author_id="ada", content="@bob go", mentions=[MENTION], hop=0)
CANDIDATE = thm.SelectorCandidate(id="bob", label="Bob", role="dev", description=None)
EVALUATION = thm.SelectionEvaluation(
    choice="bob", confidence=thm.Probability(parts_per_million=900_000),
    probabilities=[thm.CandidateProbability(candidate_id="bob",
                                            probability=thm.Probability(parts_per_million=1))])
REQUEST = thm.ResponderRequest(message="@bob hi", chat="eng", mentions=[MENTION],
                               orchestrator_id="ada", selection_policy="allowed")
DECIDED = thm.Decided(decision=thm.ResponderDecision(responder_id="ada", rung="orchestrator",
                                                     disposition="not_applicable"))
BRIEFING = thm.TeamBriefing(viewer_id="ada", desk_id="eng", desk_name="Eng", teammates=[])
CONTEXT = thm.MentionDispatchContext(policy=POLICY, hop=0)


class Queue:
    def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        return thm.Enqueued()


# Each operation: the function, its positional and keyword arguments for a right call.
CALLS: dict[str, tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = {
    "is_general_chat": (thm.is_general_chat, ("eng",), {}),
    "same_conversation": (thm.same_conversation, ("eng", "main"), {}),
    "dispatch_conversation": (thm.dispatch_conversation, (CONVERSATION,), {}),
    "resolve_mentions": (thm.resolve_mentions, ("@bob",), {
        "supplied": None, "author": thm.OtherAuthor(), "roster": ROSTER, "desks": DESKS}),
    "direct_responder": (thm.direct_responder, ([MENTION],), {"roster": ROSTER}),
    "mentioned_members": (thm.mentioned_members, ([MENTION],), {
        "addressed_desk": None, "responder": None, "roster": ROSTER, "desks": DESKS}),
    "validate_desks": (thm.validate_desks, (DESKS,), {}),
    "desk_members": (thm.desk_members, (DESKS,), {"identity": "eng"}),
    "responder_plan": (thm.responder_plan, (REQUEST,), {
        "roster": ROSTER, "desks": DESKS, "candidate_details": [], "trace": []}),
    "briefing_text": (thm.briefing_text, (BRIEFING, CONTEXT), {}),
    "offers_dispatch": (thm.offers_dispatch, ("text",), {}),
    "accept_selection": (thm.accept_selection, ("bob",), {"candidates": [CANDIDATE]}),
    "accept_evaluation": (thm.accept_evaluation, (EVALUATION,), {
        "candidates": [CANDIDATE], "minimum_confidence": thm.Probability(parts_per_million=1)}),
    "settle_selection": (thm.settle_selection, (DECIDED,), {
        "selector": thm.SelectorAbsent(), "trace": []}),
    "mention_dispatch": (thm.mention_dispatch, (), {
        "policy": POLICY, "input": REPLY, "roster": ROSTER, "trace": []}),
    "dispatch_mention": (thm.dispatch_mention, (Queue(),), {
        "policy": POLICY, "input": REPLY, "roster": ROSTER}),
    "may_dispatch": (thm.may_dispatch, (CONTEXT,), {}),
    "turn_key": (thm.turn_key, (thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=1), source_id="ada", target_id="bob",
        content="@bob", conversation=thm.DispatchConversation(desk_id="eng", thread_root=None),
        child_hop=1),), {}),
    "display": (thm.display, (thm.NoDispatchReason.DISABLED,), {}),
    "agent_sentences": (thm.agent_sentences, ([thm.TraceStep(
        rule="enabled", outcome="stopped", why=None, subject="", offset=None, count=None)],), {}),
    "from_json": (thm.from_json, ("Probability", 3), {}),
    "TeamBriefing.from_snapshots": (thm.TeamBriefing.from_snapshots, ("ada",), {
        "conversation": CONVERSATION, "desks": DESKS, "roster": ROSTER}),
}
# Arguments that take anything JSON-shaped, or any object with the method, and so have no
# wrong type of their own.
UNTYPED = {("from_json", 1), ("dispatch_mention", 0)}


def test_the_table_has_every_function() -> None:
    functions = {name for name, value in vars(module).items()
                 if not name.startswith("_") and inspect.isbuiltin(value)}
    assert functions <= set(CALLS), functions - set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_right_call_answers(name: str) -> None:
    function, args, kwargs = CALLS[name]
    function(*args, **kwargs)


def wrong_calls() -> list[tuple[str, str, tuple[Any, ...], dict[str, Any]]]:
    out = []
    for name, (_, args, kwargs) in CALLS.items():
        for index in range(len(args)):
            if (name, index) not in UNTYPED:
                out.append((name, f"#{index}",
                            args[:index] + (object(),) + args[index + 1:], kwargs))
        for key in kwargs:
            out.append((name, key, args, {**kwargs, key: object()}))
    return out


@pytest.mark.parametrize(("name", "argument", "args", "kwargs"), wrong_calls(),
                         ids=[f"{name}({argument})" for name, argument, _, _ in wrong_calls()])
def test_each_wrong_argument_is_a_type_error(name: str, argument: str, args: tuple[Any, ...],
                                             kwargs: dict[str, Any]) -> None:
    function = CALLS[name][0]
    with pytest.raises(TypeError, match=r"expected|incompatible"):
        function(*args, **kwargs)
