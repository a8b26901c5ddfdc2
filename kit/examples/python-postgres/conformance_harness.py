"""The conformance harness of turn_queue.py: what the suite needs beside the queue to drive
it (the host's writes, a look at the tables, a restart), for ``thm.conformance``.

The database is the one the PG* environment variables name (asyncpg reads them); the suite
wipes the thm tables, so name a scratch database. ``THM_POSTGRES_RESTART`` is a shell command
that restarts the server, for EQ-23.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import asyncpg

import thm
from thm.conformance import Capabilities, Child, Hook, Lease, LeaseError, Record, Reply
from turn_queue import (MAX_ATTEMPTS, MAX_CONTENT_BYTES, MAX_ID_BYTES, MAX_LEASE_MS,
                        PostgresTurnQueue, raw, request_of)

MIGRATION = Path(os.environ.get("THM_QUEUE_SQL") or
                 Path(__file__).resolve().parents[2] / "stores" / "postgres" / "thm_queue.sql")
SCHEMA_VERSION = 5
LOCK_TIMEOUT = "20s"  # below the suite's --exec-timeout: a lock wait ends with an answer


async def migrate(connection: asyncpg.Connection) -> None:
    """Applies thm_queue.sql once, under the advisory lock every opener takes."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(7411262)")
        present = await connection.fetchval("SELECT to_regclass('thm_schema') IS NOT NULL")
        version = await connection.fetchval(
            "SELECT coalesce(max(version), 0) FROM thm_schema") if present else 0
        if version < SCHEMA_VERSION:
            await connection.execute(MIGRATION.read_text())


HOOK_LOCKS = 7411270  # thm_hook_point's first lock: (backend pid, 7411270 + ordinal)
INNER_POINTS = {"after_begin": 0, "after_validate_reads": 1, "after_idempotency_statement": 2,
                "after_child_insert": 3, "before_commit": 4}


class Session:
    """One session of the suite: the host's queue on a connection of its own, and the hook
    seam of thm_queue.sql around its step (kit/stores/postgres/README.md): with a hook, the
    connection has thm.hooks = 'on' and a second connection holds the advisory locks the
    step waits on at each point; each `thm hook <point>` notice is a point, answered by
    taking the point's go-ahead lock and releasing its lock, or by cancelling the step."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.queue = PostgresTurnQueue(connection)
        self.seam: asyncpg.Connection | None = None  # the second connection
        self.seam_on = False

    async def close(self) -> None:
        await self.queue.connection.close()
        if self.seam is not None:
            await self.seam.close()

    async def enqueue_once(self, request: thm.MentionTurnRequest,
                           hook: Hook | None = None) -> thm.EnqueueOutcome:
        await self.arm(hook is not None)
        if hook is None:
            return await self.queue.enqueue_once(request)
        outcome = await self.hooked_step(request, hook)
        if isinstance(outcome, thm.Enqueued) and not await hook("after_commit_before_return"):
            raise thm.QueueError(thm.QueueErrorKind.INDETERMINATE,
                                 "the answer was lost after commit")
        return outcome

    async def arm(self, on: bool) -> None:
        if on and (self.seam is None or self.seam.is_closed()):
            self.seam = await asyncpg.connect()
        if on != self.seam_on:
            await self.queue.connection.execute(f"SET thm.hooks = '{'on' if on else 'off'}'")
            self.seam_on = on

    async def hooked_step(self, request: thm.MentionTurnRequest, hook: Hook) -> Any:
        connection, seam = self.queue.connection, self.seam
        assert seam is not None
        backend = connection.get_server_pid()
        await seam.execute("SELECT pg_advisory_lock($1, $2 + point) FROM generate_series(0, 4) "
                           "point", backend, HOOK_LOCKS)
        refused: list[str] = []
        answers: list[asyncio.Task[None]] = []

        async def answer(point: str, before: asyncio.Task[None] | None) -> None:
            if before is not None:
                await before
            if await hook(point) and point in INNER_POINTS:
                await seam.execute("SELECT pg_advisory_unlock($1, $2) FROM "
                                   "(SELECT pg_advisory_lock($1, $2 + 10)) go_ahead",
                                   backend, HOOK_LOCKS + INNER_POINTS[point])
            else:
                refused.append(point)
                await seam.execute("SELECT pg_cancel_backend($1)", backend)

        def on_notice(_: Any, message: Any) -> None:
            found = re.fullmatch(r"thm hook (\w+)", getattr(message, "message", ""))
            if found:
                answers.append(asyncio.ensure_future(
                    answer(found.group(1), answers[-1] if answers else None)))

        connection.add_log_listener(on_notice)
        try:
            return await self.queue.enqueue_once(request)
        except thm.QueueError:
            if refused:
                raise thm.QueueError(thm.QueueErrorKind.UNAVAILABLE,
                                     f"the step was rolled back at {refused[0]}") from None
            raise
        finally:
            connection.remove_log_listener(on_notice)
            await asyncio.gather(*answers, return_exceptions=True)
            await seam.execute("SELECT pg_advisory_unlock_all()")

    async def lease_call(self, call: Any, *arguments: Any) -> Any:
        try:
            return await call(*arguments)
        except (asyncpg.PostgresError, OSError, asyncpg.InterfaceError) as error:
            raise LeaseError("unavailable") from error

    async def claim(self, duration_ms: int) -> Lease | None:
        if not 0 < duration_ms < MAX_LEASE_MS:
            raise LeaseError("invalid_duration")
        row = await self.lease_call(self.queue.claim, duration_ms)
        if row is None:
            return None
        return Lease(child_id=row["child_id"], token=row["lease_token"],
                     expires_at=row["lease_expires_at"], attempt=row["attempt"],
                     request=request_of(row))

    async def renew(self, token: str, duration_ms: int) -> int:
        if not 0 < duration_ms < MAX_LEASE_MS:
            raise LeaseError("invalid_duration")
        expiry = await self.lease_call(self.queue.renew, token, duration_ms)
        if expiry is None:
            raise LeaseError("stale_token")
        return int(expiry)

    async def complete(self, token: str) -> str:
        return self.settled(await self.lease_call(self.queue.complete, token))

    async def fail(self, token: str) -> str:
        return self.settled(await self.lease_call(self.queue.fail, token))

    @staticmethod
    def settled(state: str | None) -> str:
        if state is None:
            raise LeaseError("stale_token")
        return state


class Harness:
    """The suite's harness over turn_queue.py: one connection for the host's writes (one
    statement at a time), and one per session."""

    name = "python-asyncpg"
    # `persistent` (EQ-23, crash and restart) only with a way to restart the server: without
    # THM_POSTGRES_RESTART the check is skipped and named in "left unproven", never passed
    # by a restart that did nothing.
    capabilities = Capabilities(hooks=True, leases=True, skewable_client_clock=True,
                                persistent=bool(os.environ.get("THM_POSTGRES_RESTART")),
                                sql_schema=True, row_locking=True,
                                max_content_bytes=MAX_CONTENT_BYTES, max_id_bytes=MAX_ID_BYTES,
                                max_attempts=MAX_ATTEMPTS, max_sessions=48)

    def __init__(self) -> None:
        self.store: asyncpg.Connection | None = None
        self.lock = asyncio.Lock()

    async def connection(self) -> asyncpg.Connection:
        if self.store is None or self.store.is_closed():
            self.store = await asyncpg.connect()
            await migrate(self.store)
        return self.store

    async def execute(self, sql: str, *arguments: Any) -> list[asyncpg.Record]:
        async with self.lock:
            return await (await self.connection()).fetch(sql, *arguments)

    async def open_session(self) -> Session:
        await self.execute("SELECT 1")  # migrated before any session's step
        connection = await asyncpg.connect()
        await connection.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        return Session(connection)

    async def reset(self) -> None:
        await self.execute("TRUNCATE thm_reply, thm_policy, thm_forbidden_pair, "
                           "thm_available_agent, thm_idempotency, thm_child_turn")

    async def commit_reply(self, reply: Reply) -> None:
        await self.execute("SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)", raw(reply.desk_id),
                           reply.thread_root, reply.sequence, raw(reply.author_id),
                           raw(reply.content), reply.hop)

    async def set_policy(self, policy: thm.MentionDispatchPolicy) -> None:
        await self.execute("INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2) "
                           "ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, "
                           "max_hops = excluded.max_hops", policy.enabled, policy.max_hops)

    async def set_authorized(self, source_id: str, target_id: str, authorized: bool) -> None:
        await self.execute(
            "DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2" if authorized
            else "INSERT INTO thm_forbidden_pair VALUES ($1, $2) ON CONFLICT DO NOTHING",
            raw(source_id), raw(target_id))

    async def set_available(self, agent_id: str, available: bool) -> None:
        await self.execute(
            "INSERT INTO thm_available_agent VALUES ($1) ON CONFLICT DO NOTHING" if available
            else "DELETE FROM thm_available_agent WHERE agent_id = $1", raw(agent_id))

    async def settle(self, child_id: int, how: str) -> None:
        states = {"complete": "completed", "fail": "failed", "dead_letter": "dead"}
        if how == "delete":
            rows = await self.execute("DELETE FROM thm_child_turn WHERE id = $1 RETURNING id",
                                      child_id)
        else:
            rows = await self.execute("UPDATE thm_child_turn SET state = $2, lease_token = NULL "
                                      "WHERE id = $1 RETURNING id", child_id, states[how])
        if not rows:
            raise LookupError(f"no child turn with id {child_id}")

    async def run_maintenance(self) -> None:
        await self.execute("DELETE FROM thm_child_turn WHERE state <> 'pending'")

    async def records(self) -> list[Record]:
        rows = await self.execute("SELECT turn_key, id FROM thm_idempotency ORDER BY id")
        return [Record(key=row["turn_key"], child_id=row["id"]) for row in rows]

    async def children(self) -> list[Child]:
        rows = await self.execute(
            "SELECT id, turn_key, state, attempts, lease_expires_at, desk_id, "
            "thm_column_to_u64(thread_root) AS thread_root, "
            "thm_column_to_u64(trigger_sequence) AS trigger_sequence, source_id, target_id, "
            "content, child_hop FROM thm_child_turn ORDER BY id")
        return [Child(id=row["id"], key=row["turn_key"], request=request_of(row),
                      state=row["state"], attempts=row["attempts"],
                      lease_expires_at=row["lease_expires_at"]) for row in rows]

    async def unique_key_index(self) -> tuple[list[str], bool] | None:
        rows = await self.execute(
            "SELECT i.indpred IS NOT NULL AS partial, array(SELECT a.attname::text "
            "FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) "
            "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum "
            "ORDER BY k.ord) AS columns FROM pg_index i "
            "WHERE i.indrelid = 'thm_idempotency'::regclass AND i.indisunique "
            "AND NOT i.indisprimary ORDER BY i.indexrelid LIMIT 1")
        return (list(rows[0]["columns"]), rows[0]["partial"]) if rows else None

    async def store_now(self) -> int:
        return int((await self.execute("SELECT thm_now() AS now"))[0]["now"])

    async def reopen(self) -> None:
        async with self.lock:
            if self.store is not None:
                await self.store.close()
            self.store = None

    async def restart_store(self) -> None:
        """Runs THM_POSTGRES_RESTART and waits for it. Without libfaketime, which the suite
        puts on this process to move its clock, and through asyncio's child watcher: under
        libfaketime, time.sleep (and so subprocess's own timeout) fails."""
        command = os.environ["THM_POSTGRES_RESTART"]  # declared persistent only with it
        environment = {name: value for name, value in os.environ.items()
                       if name != "LD_PRELOAD" and not name.startswith("FAKETIME")}
        restart = await asyncio.create_subprocess_shell(command, env=environment,
                                                        stdout=subprocess.DEVNULL)
        if await asyncio.wait_for(restart.wait(), timeout=25) != 0:
            raise RuntimeError(f"{command!r} exited with {restart.returncode}")
