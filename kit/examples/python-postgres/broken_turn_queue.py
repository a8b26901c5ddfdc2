"""turn_queue.py with one bug a host could well write: a replay answers Enqueued, because
"the turn is in the queue either way". dispatch_mention then tells the agent it started a
turn it did not start, and the host counts one turn twice."""

from __future__ import annotations

import thm
from turn_queue import PostgresTurnQueue


class BrokenTurnQueue(PostgresTurnQueue):
    async def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        outcome = await super().enqueue_once(request)
        return thm.Enqueued() if isinstance(outcome, thm.Already) else outcome
