#!/usr/bin/env python3
"""A host in Python on the native package (`import thm`, bindings/python): who answers
Ada's message, and whether each agent's reply may start one more agent turn.

Usage: host.py. Every answer is asserted, so this file is a test as well as an example
(examples/README.md); mypy --strict checks it against the package's stubs.
"""

from __future__ import annotations

import thm

# The host's own state, made once and reused on every message: three agents, one desk.
ROSTER = thm.RosterSnapshot(
    members=[thm.RosterMember(id="orch", name=None), thm.RosterMember(id="bob", name="Bob"),
             thm.RosterMember(id="carol", name="Carol")],
    people=[thm.Person(id="ada", label="Ada")], retired=[], tombstoned=[])
DESKS = thm.DeskSnapshot(
    declared=[thm.Desk(id="eng", name="Engineering", description=None,
                       members=["bob", "carol"])],
    added=[], member_additions=[], orders=[], retired=[], tombstoned=[])
ENG = thm.DispatchConversation(desk_id="eng", thread_root=None)
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=1)


class TurnQueue:
    """The host's queue (thm.MentionTurnQueue): one child turn per key, kept in memory here.
    A real host does this in one database transaction (queue-conformance.md)."""

    def __init__(self) -> None:
        self.turns: dict[tuple[str, int], thm.MentionTurnRequest] = {}

    def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        key = (request.conversation.desk_id, request.key.trigger_sequence)
        if key in self.turns:
            return thm.Already()
        self.turns[key] = request
        return thm.Enqueued()


def reply(sequence: int, author: str, content: str, hop: int) -> thm.MentionDispatchInput:
    """An agent's committed reply, with its mentions resolved by thm."""
    mentions = thm.resolve_mentions(content, supplied=None, author=thm.AgentAuthor(id=author),
                                    roster=ROSTER, desks=DESKS)
    return thm.MentionDispatchInput(key=thm.DispatchKey(trigger_sequence=sequence),
                                    conversation=ENG, author_id=author, content=content,
                                    mentions=mentions, hop=hop)


def main() -> None:
    # 1. Ada posts in the eng desk: which mentions does the message hold?
    body = "@Bob can you look at the flaky build?"
    mentions = thm.resolve_mentions(body, supplied=None, author=thm.PersonAuthor(id="ada"),
                                    roster=ROSTER, desks=DESKS)
    assert [m.target for m in mentions] == [thm.AgentTarget(id="bob")], mentions

    # 2. Who answers it? Bob, named directly.
    request = thm.ResponderRequest(message=body, chat="eng", mentions=mentions,
                                   orchestrator_id="orch",
                                   selection_policy=thm.SelectionPolicy.ALLOWED)
    plan = thm.responder_plan(request, roster=ROSTER, desks=DESKS, candidate_details=[])
    match plan:
        case thm.Decided(decision=decision):
            assert decision.responder_id == "bob", decision
            assert decision.rung is thm.ResponderRung.EXPLICIT_MENTION, decision
        case thm.Select():
            raise AssertionError(f"expected a decided plan, got {plan!r}")

    # 3. Bob's reply hands the build to Carol: one child turn, enqueued exactly once.
    queue = TurnQueue()
    bobs = reply(2, "bob", "@carol the flaky test is yours", hop=0)
    outcome = thm.dispatch_mention(queue, policy=POLICY, input=bobs, roster=ROSTER)
    assert outcome == thm.Enqueued(), outcome
    (turn,) = queue.turns.values()
    assert (turn.source_id, turn.target_id, turn.child_hop) == ("bob", "carol", 1), turn
    # The same reply dispatched again (a retry after a crash) finds its turn already there.
    assert thm.dispatch_mention(queue, policy=POLICY, input=bobs, roster=ROSTER) == thm.Already()

    # 4. Carol answers Bob at hop 1; with max_hops 1 the chain stops here, and the host can
    #    tell Carol why in words that name nobody else.
    carols = reply(3, "carol", "@bob fixed, please re-run", hop=1)
    outcome = thm.dispatch_mention(queue, policy=POLICY, input=carols, roster=ROSTER)
    assert isinstance(outcome, thm.NotDispatched), outcome
    assert outcome.reason is thm.NoDispatchReason.HOP_LIMIT_REACHED, outcome
    assert len(queue.turns) == 1
    print("Carol is told:", thm.display(outcome.reason))

    # 5. Bad input is a typed error, never a decision.
    try:
        thm.MentionDispatchInput.from_json({**carols.to_json(), "hop": -1})
    except thm.DecodeError as error:
        assert error.path == "/hop", error.to_json()
    else:
        raise AssertionError("hop -1 was accepted")
    print("host.py: every answer as expected")


if __name__ == "__main__":
    main()
