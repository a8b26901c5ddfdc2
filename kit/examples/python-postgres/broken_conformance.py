"""The suite against broken_turn_queue.py: run by test_broken_copy.py, which expects it to
fail exactly the checks that catch the bug."""

from __future__ import annotations

from typing import Any

import conformance_harness
from broken_turn_queue import BrokenTurnQueue
from thm.conformance.pytest import conformance_tests


class BrokenHarness(conformance_harness.Harness):
    name = "python-asyncpg-broken"

    async def open_session(self) -> Any:
        session = await super().open_session()
        session.queue = BrokenTurnQueue(session.queue.connection)
        return session


test_broken_turn_queue = conformance_tests("broken_conformance:BrokenHarness", short=True)
