"""The queue port a host writes in Python (SPEC §4, adr/0013)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from thm._thm import EnqueueOutcome, MentionTurnRequest


@runtime_checkable
class MentionTurnQueue(Protocol):
    """What ``dispatch_mention`` calls, exactly once per admitted reply: durably enqueue
    ``request``'s child turn at most once per key, in one transaction that re-reads the
    committed reply and the live policy (SPEC §4, queue-conformance.md). Answer
    ``Enqueued()``, ``Already()`` or ``Refused(reason=...)``; raise ``thm.QueueError`` for a
    host failure of a known kind. Anything else it raises or returns becomes a
    ``thm.QueueError`` of kind ``INTERNAL``."""

    def enqueue_once(self, request: MentionTurnRequest) -> EnqueueOutcome: ...
