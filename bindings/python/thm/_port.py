"""The queue port a host writes in Python (SPEC §4, adr/0013), and its async form."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Awaitable, Protocol, cast, overload, runtime_checkable

if TYPE_CHECKING:
    from thm._thm import (EnqueueOutcome, MentionDispatchInput, MentionDispatchOutcome,
                          MentionDispatchPolicy, MentionTurnRequest, RosterSnapshot, Team)


@runtime_checkable
class MentionTurnQueue(Protocol):
    """What ``dispatch_mention`` calls, exactly once per admitted reply: durably enqueue
    ``request``'s child turn at most once per key, in one transaction that re-reads the
    committed reply and the live policy (SPEC §4, queue-conformance.md). Answer
    ``Enqueued()``, ``Already()`` or ``Refused(reason=...)``; raise ``thm.QueueError`` for a
    host failure of a known kind. Anything else it raises or returns becomes a
    ``thm.QueueError`` of kind ``INTERNAL``."""

    def enqueue_once(self, request: MentionTurnRequest) -> EnqueueOutcome: ...


@runtime_checkable
class AsyncMentionTurnQueue(Protocol):
    """``MentionTurnQueue`` for an async host (asyncpg, aiosqlite): ``enqueue_once`` is a
    coroutine, awaited by ``dispatch_mention_async``, with the same contract."""

    def enqueue_once(self, request: MentionTurnRequest) -> Awaitable[EnqueueOutcome]: ...


class _Probed(Exception):
    """What the probe raises once it has the request: it ends the first pass."""


class _Probe:
    """A queue that keeps the request of a ``DispatchOne`` decision and answers nothing."""

    def __init__(self) -> None:
        self.request: MentionTurnRequest | None = None

    def enqueue_once(self, request: MentionTurnRequest) -> Any:
        self.request = request
        raise _Probed


class _Replay:
    """A queue that answers, or raises, what the awaited ``enqueue_once`` did."""

    def __init__(self, answer: Any, raised: BaseException | None) -> None:
        self.answer, self.raised = answer, raised

    def enqueue_once(self, request: MentionTurnRequest) -> Any:
        if self.raised is not None:
            raise self.raised
        return self.answer


@overload
async def dispatch_mention_async(queue: AsyncMentionTurnQueue | MentionTurnQueue, *,
                                 policy: MentionDispatchPolicy, input: MentionDispatchInput,
                                 roster: RosterSnapshot) -> MentionDispatchOutcome: ...
@overload
async def dispatch_mention_async(queue: AsyncMentionTurnQueue | MentionTurnQueue, *,
                                 policy: MentionDispatchPolicy, input: MentionDispatchInput,
                                 team: Team) -> MentionDispatchOutcome: ...
async def dispatch_mention_async(queue: AsyncMentionTurnQueue | MentionTurnQueue, *,
                                 policy: MentionDispatchPolicy, input: MentionDispatchInput,
                                 **snapshots: Any) -> MentionDispatchOutcome:
    """``dispatch_mention`` with a queue whose ``enqueue_once`` is awaited (a plain one is
    called): ``mention_dispatch`` on ``roster=`` or a prepared ``team=``, then, for
    ``DispatchOne`` only, ``await queue.enqueue_once(request)`` exactly once. Answers and
    raises what ``dispatch_mention`` does for the same answer or exception (the queue's
    ``thm.QueueError`` as it was, anything else an ``INTERNAL`` one with it as
    ``__cause__``), and its errors for bad arguments; cancellation and other
    ``BaseException``s pass through.

    ``dispatch_mention`` itself runs twice: first with a probe for a queue, which learns the
    request (every other answer and error is the result); then, once ``queue`` has been
    awaited, with its answer or exception replayed. The decision is pure: making it twice
    is safe."""
    from thm import _thm
    from thm._errors import QueueError

    probe = _Probe()
    enqueue_once = getattr(queue, "enqueue_once", None)
    first = probe if callable(enqueue_once) else queue
    try:
        return _thm.dispatch_mention(cast(Any, first), policy=policy, input=input, **snapshots)
    except QueueError:
        if probe.request is None:
            raise
    answer: Any = None
    raised: BaseException | None = None
    try:
        answer = cast(Any, enqueue_once)(probe.request)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as error:  # noqa: BLE001  (mapped below as the sync call maps it)
        raised = error
    return _thm.dispatch_mention(_Replay(answer, raised), policy=policy, input=input, **snapshots)
