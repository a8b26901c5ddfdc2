"""The exceptions thm raises (adr/0013), and the warning it gives (adr/0028).

Each carries the case-file form of the C++ error it stands for: ``variant``, the variant's
own fields as attributes (``member_id``, ``desk_id``, ``path``, ...), and ``message``; its
``to_json()`` is that form as a dict, the same object ``thm eval`` prints under ``error``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any


class Error(Exception):
    """Base class of every exception thm raises."""

    variant: str

    def __init__(self, wire: dict[str, Any]) -> None:
        super().__init__(wire.get("message") or wire.get("reason") or wire.get("variant"))
        self._wire = dict(wire)
        self.variant = str(wire.get("variant", ""))
        for key, value in wire.items():
            if key != "variant":
                setattr(self, key, value)

    def to_json(self) -> dict[str, Any]:
        """The error's case-file form: ``{"variant": ..., <fields>, "message": ...}``."""
        return dict(self._wire)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._wire!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._wire))

    if TYPE_CHECKING:  # the variant's own fields, set from the case-file form

        def __getattr__(self, name: str) -> Any: ...


class DecodeError(Error, ValueError):
    """A value the wire decoder refused (SPEC §0.5): ``path`` is the JSON Pointer of the
    offending value, ``reason`` what is wrong with it; ``str()`` says both."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.reason} (at {self.path})" if self.path else self.reason


class RosterError(Error, ValueError):
    """A malformed roster snapshot: ``EmptyRosterMemberId``, ``DuplicateRosterMemberId``
    (``member_id``), ``EmptyPersonId`` or ``DuplicatePersonId`` (``person_id``)."""

    message: str


class DeskError(Error, ValueError):
    """A malformed desk snapshot, or a desk identity that names none or several (SPEC §1.2):
    ``variant`` and its fields (``desk_id``, ``identity``, ``agent_id``, ...)."""

    message: str


class ResponderError(Error, ValueError):
    """A responder request the ladder cannot answer (SPEC §2.2): ``DuplicateSelectorCandidate``
    or ``NoActiveResponder``, each with ``agent_id``."""

    message: str
    agent_id: str


class QueueError(Error):
    """An unexpected host failure from the queue (SPEC §4): ``kind``, a ``QueueErrorKind``,
    and the host's ``message``.

    A queue written in Python raises it from ``enqueue_once`` to report a failure of a given
    kind (``raise thm.QueueError(thm.QueueErrorKind.UNAVAILABLE, "the database is down")``);
    ``dispatch_mention`` raises it for every host failure: the queue's own, or one of kind
    ``INTERNAL`` whose ``__cause__`` is whatever else the queue raised. Its ``to_json()`` is
    the ``QueueError`` wire form, ``{"kind": ..., "message": ...}``.
    """

    kind: str
    message: str

    def __init__(self, kind: str, message: str = "") -> None:
        from thm._thm import QueueErrorKind  # the enum checks the token

        token = QueueErrorKind(kind)
        super().__init__({"variant": "Enqueue", "kind": str(token), "message": message})
        self.kind = token

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" if self.message else str(self.kind)

    def __reduce__(self) -> tuple[Any, ...]:
        return (QueueError, (str(self.kind), self.message))

    def to_json(self) -> dict[str, Any]:
        """The ``QueueError`` wire form: ``{"kind": ..., "message": ...}``."""
        return {"kind": str(self.kind), "message": self.message}


class LargeRosterWarning(UserWarning):
    """An operation was given a roster of more than 1,000 agents as a snapshot, which it
    reads as views: validated and indexed again on every call, at a cost that grows with the
    roster (milliseconds at 10,000 agents). A team prepared once per change
    (``thm.Team.prepare``, passed as ``team=``) makes the same decisions at a cost that does
    not. Warned once per process; ``-W ignore::thm.LargeRosterWarning`` silences it and
    ``-W error::thm.LargeRosterWarning`` raises it."""


def _rebuild(cls: type[Error], wire: dict[str, Any]) -> Error:
    """An error of ``cls`` from its case-file form: how a pickled one is read back."""
    return cls(wire)
