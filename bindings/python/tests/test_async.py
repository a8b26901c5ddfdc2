"""The async port: ``dispatch_mention_async`` awaits the queue's ``enqueue_once`` and answers
what ``dispatch_mention`` answers for the same outcome or exception; the sync call refuses
a coroutine and says which call to use. (The case files run through both: test_cases.py.)
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any

import pytest

import thm
from test_api import POLICY, REPLY, ROSTER


class AsyncQueue:
    """A queue whose ``enqueue_once`` is a coroutine, as asyncpg's or aiosqlite's would be."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[thm.MentionTurnRequest] = []

    async def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
        self.requests.append(request)
        await asyncio.sleep(0)  # a real await: the loop runs something else meanwhile
        return self.answer(request) if callable(self.answer) else self.answer


def dispatch(queue: Any, **snapshots: Any) -> Any:
    where = snapshots or {"roster": ROSTER}
    return asyncio.run(thm.dispatch_mention_async(queue, policy=POLICY, input=REPLY, **where))


def test_the_queue_is_awaited_once_with_the_request() -> None:
    queue = AsyncQueue(thm.Enqueued())
    assert dispatch(queue) == thm.Enqueued()
    assert [request.target_id for request in queue.requests] == ["bob"]
    assert dispatch(AsyncQueue(thm.Already())) == thm.Already()
    assert dispatch(AsyncQueue(thm.Refused(reason="unauthorized"))) == thm.Refused(
        reason=thm.EnqueueRefusal.UNAUTHORIZED)


def test_on_a_prepared_team_too() -> None:
    team = thm.Team.prepare(roster=ROSTER, desks=thm.DeskSnapshot(
        declared=[], added=[], member_additions=[], orders=[], retired=[], tombstoned=[]))
    queue = AsyncQueue(thm.Enqueued())
    assert dispatch(queue, team=team) == thm.Enqueued() and len(queue.requests) == 1


def test_a_declined_dispatch_never_calls_the_queue() -> None:
    queue = AsyncQueue(thm.Enqueued())
    closed = thm.MentionDispatchPolicy(enabled=False, max_hops=3)
    outcome = asyncio.run(
        thm.dispatch_mention_async(queue, policy=closed, input=REPLY, roster=ROSTER))
    assert outcome == thm.NotDispatched(reason=thm.NoDispatchReason.DISABLED)
    assert queue.requests == []


def test_a_sync_queue_serves_too() -> None:
    class SyncQueue:
        def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
            return thm.Already()

    assert dispatch(SyncQueue()) == thm.Already()


def test_a_queue_error_the_queue_raises_comes_back_as_it_was() -> None:
    failure = thm.QueueError(thm.QueueErrorKind.INDETERMINATE, "the commit's answer was lost")

    def fail(_: Any) -> Any:
        raise failure

    with pytest.raises(thm.QueueError) as raised:
        dispatch(AsyncQueue(fail))
    assert raised.value is failure


@pytest.mark.parametrize(("answer", "says"), [
    (lambda _: 1 / 0, "ZeroDivisionError: division by zero"),
    (42, "enqueue_once returned 42"),
    (None, "enqueue_once returned None"),
])
def test_anything_else_is_the_internal_queue_error_the_sync_call_raises(answer: Any,
                                                                        says: str) -> None:
    with pytest.raises(thm.QueueError) as awaited:
        dispatch(AsyncQueue(answer))

    class SyncQueue:
        def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
            return answer(request) if callable(answer) else answer

    with pytest.raises(thm.QueueError) as called:
        thm.dispatch_mention(SyncQueue(), policy=POLICY, input=REPLY, roster=ROSTER)
    assert awaited.value.to_json() == called.value.to_json()
    assert awaited.value.kind is thm.QueueErrorKind.INTERNAL and says in awaited.value.message
    assert type(awaited.value.__cause__) is type(called.value.__cause__)


def test_cancellation_is_not_swallowed() -> None:
    async def main() -> None:
        started = asyncio.Event()

        class Stuck:
            async def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
                started.set()
                await asyncio.Event().wait()

        task = asyncio.create_task(
            thm.dispatch_mention_async(Stuck(), policy=POLICY, input=REPLY, roster=ROSTER))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_bad_arguments_are_the_sync_calls_errors() -> None:
    with pytest.raises(TypeError, match="enqueue_once"):
        dispatch(object())
    with pytest.raises(TypeError):
        asyncio.run(thm.dispatch_mention_async(  # type: ignore[call-overload]
            AsyncQueue(thm.Enqueued()), policy=POLICY, input=REPLY))
    with pytest.raises(TypeError):
        dispatch(AsyncQueue(thm.Enqueued()), roster="not a roster")
    broken = thm.RosterSnapshot(members=[thm.RosterMember(id="bob", name=None)] * 2, people=[],
                                retired=[], tombstoned=[])
    with pytest.raises(thm.RosterError):
        dispatch(AsyncQueue(thm.Enqueued()), roster=broken)


def test_the_sync_call_refuses_a_coroutine_and_closes_it() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would fail here
        with pytest.raises(thm.QueueError) as raised:
            thm.dispatch_mention(AsyncQueue(thm.Enqueued()),  # type: ignore[call-overload]
                                 policy=POLICY, input=REPLY, roster=ROSTER)
        gc.collect()
    assert raised.value.kind is thm.QueueErrorKind.INTERNAL
    assert "dispatch_mention_async" in raised.value.message


# ---- one queue for dispatch_mention and the suite: the canonical key --------------------------


def test_turn_key_of_what_dispatch_mention_hands_the_queue() -> None:
    keys: list[str] = []

    class KeyedQueue:
        async def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
            keys.append(thm.turn_key(request))
            return thm.Enqueued()

    assert dispatch(KeyedQueue()) == thm.Enqueued()
    assert keys == [f"v1/3:eng/c/{2**64 - 1}"]
