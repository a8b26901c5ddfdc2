"""A host's turn queue on PostgreSQL, in Python with asyncpg: the queue a chat host hands to
``thm.dispatch_mention_async``, and the worker's side that claims the turns it enqueued.

It keeps nothing of its own: every step is one call of a function of thm_queue.sql (the kit's
migration, kit/stores/postgres/), which holds SPEC §4's transaction. So this file is what a
host writes: the parameters in, the answers out, and what an error means.

Text fields are bytes in the tables (BYTEA): ``s.encode("utf-8", "surrogateescape")`` is a
field's exact bytes, also when they are not UTF-8 (the conformance suite sends such).
"""

from __future__ import annotations

import asyncpg

import thm

MAX_ATTEMPTS = 3  # claims a child may receive; then it is dead
MAX_CONTENT_BYTES = 1 << 20  # a larger request is invalid_request, and nothing is written
MAX_ID_BYTES = 1024  # source, target and desk id each
MAX_LEASE_MS = 1 << 62


def raw(text: str) -> bytes:
    """A field's exact bytes."""
    return text.encode("utf-8", "surrogateescape")


def text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def store_error(error: BaseException, what: str, lost: bool) -> thm.QueueError:
    """``unavailable`` when nothing was written and a retry may succeed (a lost connection
    before the statement ran, a serialization failure, a lock wait past lock_timeout, a
    server going down), ``indeterminate`` when the statement may have committed and its
    answer was lost, ``internal`` otherwise."""
    state = getattr(error, "sqlstate", None) or ""
    if lost:
        return thm.QueueError(thm.QueueErrorKind.INDETERMINATE, f"{what}: the connection was "
                              f"lost, the step may have committed: {error}")
    transient = (not state or state[:2] in ("08", "53", "57")
                 or state in ("40001", "40P01", "55P03"))
    kind = thm.QueueErrorKind.UNAVAILABLE if transient else thm.QueueErrorKind.INTERNAL
    return thm.QueueError(kind, f"PostgreSQL error while {what} (SQLSTATE {state}): {error}")


def request_parameters(request: thm.MentionTurnRequest) -> tuple[object, ...]:
    """The request as thm_enqueue_once's parameters, in their order."""
    return (raw(request.conversation.desk_id), request.conversation.thread_root,
            request.key.trigger_sequence, raw(request.source_id), raw(request.target_id),
            raw(request.content), request.child_hop)


def request_of(row: asyncpg.Record) -> thm.MentionTurnRequest:
    """The request a row of thm_child_turn or thm_claim holds."""
    thread_root = row["thread_root"]
    return thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=int(row["trigger_sequence"])),
        source_id=text(row["source_id"]), target_id=text(row["target_id"]),
        content=text(row["content"]),
        conversation=thm.DispatchConversation(
            desk_id=text(row["desk_id"]),
            thread_root=None if thread_root is None else int(thread_root)),
        child_hop=row["child_hop"])


class PostgresTurnQueue:
    """``thm.AsyncMentionTurnQueue`` on one connection: ``enqueue_once`` is thm_enqueue_once,
    one statement in autocommit."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    async def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        if len(raw(request.content)) > MAX_CONTENT_BYTES:
            raise thm.QueueError(thm.QueueErrorKind.INVALID_REQUEST,
                                 f"content is longer than {MAX_CONTENT_BYTES} bytes")
        if max(len(raw(request.source_id)), len(raw(request.target_id)),
               len(raw(request.conversation.desk_id))) > MAX_ID_BYTES:
            raise thm.QueueError(thm.QueueErrorKind.INVALID_REQUEST,
                                 f"an id is longer than {MAX_ID_BYTES} bytes")
        try:
            row = await self.connection.fetchrow(
                "SELECT outcome, reason FROM thm_enqueue_once($1, $2, $3, $4, $5, $6, $7)",
                *request_parameters(request))
        except (asyncpg.PostgresError, OSError, asyncpg.InterfaceError) as error:
            raise store_error(error, "enqueueing", lost=self.connection.is_closed()) from error
        return answer(row["outcome"], row["reason"], request)

    # ---- the worker's side: leases on the server's clock ----

    async def claim(self, duration_ms: int) -> asyncpg.Record | None:
        """The next claimable child, leased for ``duration_ms``, or None."""
        return await self.connection.fetchrow("SELECT * FROM thm_claim($1, $2)", duration_ms,
                                              MAX_ATTEMPTS)

    async def renew(self, token: str, duration_ms: int) -> int | None:
        """The lease's new expiry, or None when the token no longer holds it."""
        return await self.connection.fetchval("SELECT thm_renew($1, $2)", token, duration_ms)

    async def complete(self, token: str) -> str | None:
        return await self.connection.fetchval("SELECT thm_complete($1)", token)

    async def fail(self, token: str) -> str | None:
        return await self.connection.fetchval("SELECT thm_fail($1, $2)", token, MAX_ATTEMPTS)


def answer(outcome: str, reason: str | None, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
    """thm_enqueue_once's answer as the port's: an outcome, or the QueueError it means."""
    if outcome == "enqueued":
        return thm.Enqueued()
    if outcome == "already":
        return thm.Already()
    if outcome == "refused":
        return thm.Refused(reason=reason or "")
    key = thm.turn_key(request)
    if outcome == "trigger_missing":
        raise thm.QueueError(thm.QueueErrorKind.TRIGGER_MISSING, f"no committed reply for {key!r}")
    if outcome == "trigger_mismatch":
        raise thm.QueueError(thm.QueueErrorKind.TRIGGER_MISMATCH,
                             f"the request's {reason} differs from the reply for {key!r}")
    raise thm.QueueError(thm.QueueErrorKind.INTERNAL, f"the store answered {outcome} {reason}")
