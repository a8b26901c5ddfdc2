"""The values a harness gives and takes, and the shape of a harness (see thm.conformance)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, Union

if TYPE_CHECKING:
    from thm import MentionDispatchPolicy, MentionTurnRequest

Text = Union[str, bytes]
"""A byte-string field: ``bytes``, or ``str`` (surrogate escapes for bytes that are not
UTF-8)."""


@dataclass(frozen=True)
class Capabilities:
    """What the queue can be asked, as ``thm::conformance::Capabilities`` says
    (kit/protocol/PROTOCOL.md, "The handshake"). A check that needs an undeclared one is
    skipped and named in "left unproven"; an operation of an undeclared one is never called.
    """

    hooks: bool = False
    """``enqueue_once`` takes ``hook=`` and stops at the six points (``Hook``)."""
    row_locking: bool = False
    persistent: bool = False
    """The queue survives a restart: ``reopen()`` and ``restart_store()`` are called."""
    sql_schema: bool = False
    """``unique_key_index()`` says which unique index the decision rests on."""
    leases: bool = False
    """Sessions claim, renew, complete and fail children; ``store_now()`` is called."""
    injected_store_clock: bool = False
    """``advance_store_clock(by)`` moves the store's clock."""
    skewable_client_clock: bool = False
    max_content_bytes: int | None = None
    max_id_bytes: int | None = None
    max_attempts: int | None = None
    max_sessions: int | None = None
    """The most sessions open at once (a pool's size); the races shrink to it."""


@dataclass(frozen=True)
class Reply:
    """A reply the host committed: the trigger a request must match (SPEC §4)."""

    desk_id: str
    thread_root: int | None
    sequence: int
    author_id: str
    content: str
    hop: int


@dataclass(frozen=True)
class Record:
    """An idempotency record: the canonical key (``thm.turn_key``) and its child's id."""

    key: Text
    child_id: int


@dataclass(frozen=True)
class Child:
    """A child turn as the store holds it. ``state`` is ``pending`` (claimable or leased),
    ``completed``, ``failed`` or ``dead``; ``lease_expires_at`` is store time in ms."""

    id: int
    key: Text
    request: MentionTurnRequest
    state: str
    attempts: int
    lease_expires_at: int | None


@dataclass(frozen=True)
class Lease:
    """A claimed child: the token that renews, completes or fails it, and when it expires
    (store time in ms)."""

    child_id: int
    token: str
    expires_at: int
    attempt: int
    request: MentionTurnRequest


class LeaseError(Exception):
    """What a lease operation answers when it cannot: ``kind`` is ``stale_token``,
    ``invalid_duration`` or ``unavailable``. An answer of the queue, not a failure."""

    def __init__(self, kind: str) -> None:
        if kind not in ("stale_token", "invalid_duration", "unavailable"):
            raise ValueError(f"LeaseError kind: stale_token, invalid_duration or unavailable, "
                             f"not {kind!r}")
        super().__init__(kind)
        self.kind = kind


class Unsupported(Exception):
    """Raised by a harness for an operation it cannot do; answered ``unsupported``."""


Hook = Callable[[str], Awaitable[bool]]
"""With ``Capabilities(hooks=True)``, ``enqueue_once(request, hook=...)`` is called with
``hook=None``, or, while the suite has a hook installed, a function to await at each of the
six points, in order, inside the step's transaction (``after_begin``,
``after_validate_reads``, ``after_idempotency_statement``, ``after_child_insert``,
``before_commit``, ``after_commit_before_return``). ``False`` means fail there: roll back and
raise ``thm.QueueError`` ``UNAVAILABLE``, or, at the last point, ``INDETERMINATE``. A plain
``enqueue_once`` gets a plain function that blocks until the suite answers."""


class ConformanceSession(Protocol):
    """One session: its own connection. Methods may be plain or ``async``."""

    def enqueue_once(self, request: MentionTurnRequest, **hook: Any) -> Any:
        """The queue's enqueue step (``MentionTurnQueue.enqueue_once``)."""

    def close(self) -> Any: ...

    # With Capabilities(leases=True): claim(duration_ms) -> Lease | None,
    # renew(token, duration_ms) -> int (the new expiry), complete(token) -> str and
    # fail(token) -> str (the child's state afterwards); each may raise LeaseError.


class ConformanceHarness(Protocol):
    """The queue under test and the host's writes beside it. Methods may be plain or
    ``async``. ``reset`` leaves an empty store, dispatch disabled (no policy), every pair
    authorized, no agent available; ``records`` and ``settle``/``run_maintenance`` never lose
    an idempotency record. Optional, by capability: ``store_now()`` (leases),
    ``unique_key_index()`` -> ``(columns, partial) | None`` (sql_schema),
    ``advance_store_clock(by_ms)`` (injected_store_clock), ``reopen()`` and
    ``restart_store()`` (persistent)."""

    name: str
    capabilities: Capabilities

    def open_session(self) -> Any: ...
    def reset(self) -> Any: ...
    def commit_reply(self, reply: Reply) -> Any: ...
    def set_policy(self, policy: MentionDispatchPolicy) -> Any: ...
    def set_authorized(self, source_id: str, target_id: str, authorized: bool) -> Any: ...
    def set_available(self, agent_id: str, available: bool) -> Any: ...
    def settle(self, child_id: int, how: str) -> Any: ...
    def run_maintenance(self) -> Any: ...
    def records(self) -> Any: ...
    def children(self) -> Any: ...
