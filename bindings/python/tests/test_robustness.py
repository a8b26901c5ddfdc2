"""What a fresh pair of eyes broke (session of 2026-12-01), each pinned by a test first."""

from __future__ import annotations

import copy
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

import thm

ROSTER = thm.RosterSnapshot(members=[thm.RosterMember(id="ada", name=None),
                                     thm.RosterMember(id="bob", name=None)],
                            people=[], retired=[], tombstoned=[])
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=3)
REPLY = thm.MentionDispatchInput(
    key=thm.DispatchKey(trigger_sequence=1),
    conversation=thm.DispatchConversation(desk_id="eng", thread_root=None),
    author_id="ada", content="@bob go", hop=0,
    mentions=[thm.Mention(target=thm.AgentTarget(id="bob"), text="@bob", offset=0)])


def untyped(value: object) -> Any:
    return value


@pytest.mark.parametrize("cls", [thm.RosterSnapshot, thm.Mention, thm.Probability, thm.Desk,
                                 thm.Refused, thm.Enqueued])
def test_a_value_made_by_new_alone_is_refused_not_read(cls: type) -> None:
    blank: Any = untyped(cls).__new__(cls)
    uses: list[Callable[[], object]] = [lambda: blank == blank, lambda: repr(blank),
                                        lambda: blank.to_json(), lambda: hash(blank),
                                        lambda: blank.replace()]
    for use in uses:
        with pytest.raises(TypeError, match="keyword arguments"):
            use()


def test_an_operation_refuses_a_value_made_by_new_alone() -> None:
    blank = untyped(thm.RosterSnapshot).__new__(thm.RosterSnapshot)
    with pytest.raises(TypeError, match="keyword arguments"):
        thm.mention_dispatch(policy=POLICY, input=REPLY, roster=blank)

    class Queue:
        def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
            return untyped(thm.Refused).__new__(thm.Refused)

    with pytest.raises(thm.QueueError) as raised:
        thm.dispatch_mention(Queue(), policy=POLICY, input=REPLY, roster=ROSTER)
    assert raised.value.kind is thm.QueueErrorKind.INTERNAL


def test_a_queue_that_dispatches_inside_itself_is_stopped_before_the_stack_is() -> None:
    class Reentrant:
        def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
            return thm.dispatch_mention(self, policy=POLICY, input=REPLY,  # type: ignore[return-value]
                                        roster=ROSTER)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    try:
        with pytest.raises(thm.QueueError) as raised:
            thm.dispatch_mention(Reentrant(), policy=POLICY, input=REPLY, roster=ROSTER)
    finally:
        sys.setrecursionlimit(limit)
    cause = raised.value
    while cause.__cause__ is not None:
        cause = cause.__cause__  # type: ignore[assignment]
    assert isinstance(cause, RecursionError)


def test_a_decode_error_says_where_in_its_message() -> None:
    with pytest.raises(thm.DecodeError, match="at /members/0/id"):
        thm.RosterSnapshot.from_json({"members": [{"id": 1, "name": None}], "people": [],
                                      "retired": [], "tombstoned": []})


@pytest.mark.parametrize(("value", "path"), [
    ({"trigger_sequence": 2**64}, "/trigger_sequence"),
    ({"trigger_sequence": float("nan")}, "/trigger_sequence"),
    ({"trigger_sequence": {1, 2}}, "/trigger_sequence"),
])
def test_what_is_not_json_is_a_decode_error_with_its_path(value: Any, path: str) -> None:
    with pytest.raises(thm.DecodeError) as raised:
        thm.from_json("DispatchKey", value)
    assert raised.value.path == path


def test_the_wrong_alternative_is_a_decode_error() -> None:
    with pytest.raises(thm.DecodeError, match="Already"):
        thm.Enqueued.from_json({"status": "already"})


def test_a_huge_int_keeps_the_field_name() -> None:
    with pytest.raises(ValueError, match="Mention.offset"):
        thm.Mention(target=thm.EveryoneTarget(), text="@everyone", offset=10**5000)


def test_values_are_hashable_copyable_and_picklable() -> None:
    again = thm.MentionDispatchInput.from_json(REPLY.to_json())
    assert hash(again) == hash(REPLY) and len({REPLY, again}) == 1
    assert copy.copy(REPLY) is REPLY and copy.deepcopy(REPLY) is REPLY
    for value in (REPLY, thm.AgentTarget(id="bob"), thm.Enqueued(), ROSTER):
        assert pickle.loads(pickle.dumps(value)) == value


def test_errors_pickle() -> None:
    queue_error = thm.QueueError(thm.QueueErrorKind.UNAVAILABLE, "down")
    back = pickle.loads(pickle.dumps(queue_error))
    assert (back.kind, back.message) == (queue_error.kind, queue_error.message)
    with pytest.raises(thm.RosterError) as raised:
        thm.mention_dispatch(policy=POLICY, input=REPLY,
                             roster=ROSTER.replace(members=[ROSTER.members[0]] * 2))
    assert pickle.loads(pickle.dumps(raised.value)).to_json() == raised.value.to_json()


def test_repr_with_an_enum_field_is_the_constructor_call() -> None:
    value = thm.NoDispatch(reason=thm.NoDispatchReason.DISABLED)
    assert repr(value) == "NoDispatch(reason=NoDispatchReason.DISABLED)"
    assert eval(repr(value), vars(thm)) == value  # noqa: S307


def test_a_queue_error_without_a_message_says_its_kind() -> None:
    assert "unavailable" in str(thm.QueueError("unavailable"))


def test_value_classes_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError):
        type("Mine", (thm.Enqueued,), {})


def test_the_queue_protocol_is_checkable_at_run_time() -> None:
    class Queue:
        def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
            return thm.Enqueued()

    assert isinstance(Queue(), thm.MentionTurnQueue)
    assert not isinstance(object(), thm.MentionTurnQueue)


def test_an_error_getting_enqueue_once_is_not_hidden() -> None:
    class Broken:
        def __getattr__(self, name: str) -> Any:
            raise RuntimeError("the connection pool is closed")

    with pytest.raises(RuntimeError, match="pool is closed"):
        thm.dispatch_mention(Broken(), policy=POLICY, input=REPLY, roster=ROSTER)


def test_other_threads_run_while_a_long_body_is_resolved() -> None:
    body = "@bob " * 400_000  # 2 MB
    desks = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                             tombstoned=[])
    ticks = 0
    done = threading.Event()

    def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            ticks += 1

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        thm.resolve_mentions(body, supplied=None, author=thm.OtherAuthor(), roster=ROSTER,
                             desks=desks)
    finally:
        done.set()
        ticker.join()
    assert ticks > 1000, ticks
