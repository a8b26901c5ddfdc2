"""The protocol's wire forms (kit/protocol/PROTOCOL.md §4) and the package's values.

A byte-string field is a JSON string when its bytes are UTF-8, else ``{"base64": ...}``; in
Python it is a ``str`` whose bytes that are not UTF-8 are surrogate escapes, which is what
the package's values hold (PEP 383)."""

from __future__ import annotations

import base64
from typing import Any

import thm
from thm.conformance._types import Child, Lease, Record, Reply


def text(value: Any) -> str:
    """A bytes field from the wire as the package's text."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("base64"), str):
        return base64.b64decode(value["base64"], validate=True).decode("utf-8", "surrogateescape")
    raise ValueError(f"not a bytes field: {value!r:.80}")


def raw(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")


def wire_text(value: str | bytes) -> Any:
    """The package's text (or bytes) on the wire."""
    data = raw(value)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def conversation(wire: dict[str, Any]) -> thm.DispatchConversation:
    return thm.DispatchConversation(desk_id=text(wire["desk_id"]), thread_root=wire["thread_root"])


def request(wire: dict[str, Any]) -> thm.MentionTurnRequest:
    return thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=wire["key"]["trigger_sequence"]),
        source_id=text(wire["source_id"]), target_id=text(wire["target_id"]),
        content=text(wire["content"]), conversation=conversation(wire["conversation"]),
        child_hop=wire["child_hop"])


def wire_request(value: thm.MentionTurnRequest) -> dict[str, Any]:
    if not isinstance(value, thm.MentionTurnRequest):
        raise TypeError(f"expected a thm.MentionTurnRequest, got {type(value).__name__}")
    return {"key": {"trigger_sequence": value.key.trigger_sequence},
            "source_id": wire_text(value.source_id), "target_id": wire_text(value.target_id),
            "content": wire_text(value.content),
            "conversation": {"desk_id": wire_text(value.conversation.desk_id),
                             "thread_root": value.conversation.thread_root},
            "child_hop": value.child_hop}


def reply(wire: dict[str, Any]) -> Reply:
    where = wire["conversation"]
    return Reply(desk_id=text(where["desk_id"]), thread_root=where["thread_root"],
                 sequence=wire["sequence"], author_id=text(wire["author_id"]),
                 content=text(wire["content"]), hop=wire["hop"])


def outcome(value: Any) -> dict[str, Any]:
    if not isinstance(value, (thm.Enqueued, thm.Already, thm.Refused)):
        raise TypeError("enqueue_once must answer thm.Enqueued(), thm.Already() or "
                        f"thm.Refused(...), or raise thm.QueueError; it answered {value!r:.80}")
    return {"outcome": value.to_json()}


def queue_error(error: thm.QueueError) -> dict[str, Any]:
    return {"queue_error": error.to_json()}


def _items(method: str, values: Any, kind: type) -> list[Any]:
    """What ``method`` gave: a list of ``kind`` values, or a TypeError saying what it was."""
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{method}() must give a list, not {type(values).__name__}")
    items = list(values)
    for value in items:
        if not isinstance(value, kind):
            raise TypeError(f"{method}() must give thm.conformance.{kind.__name__} values, "
                            f"got {value!r:.80}")
    return items


def records(values: Any) -> dict[str, Any]:
    return {"records": [{"key": wire_text(value.key), "child_id": value.child_id}
                        for value in _items("records", values, Record)]}


def children(values: Any) -> dict[str, Any]:
    return {"children": [{"id": value.id, "key": wire_text(value.key),
                          "request": wire_request(value.request), "state": value.state,
                          "attempts": value.attempts, "lease_expires_at": value.lease_expires_at}
                         for value in _items("children", values, Child)]}


def lease(value: Any) -> dict[str, Any]:
    if value is None:
        return {"lease": None}
    if not isinstance(value, Lease):
        raise TypeError(f"claim() must give a thm.conformance.Lease or None, got {value!r:.80}")
    return {"lease": {"child_id": value.child_id, "token": value.token,
                      "expires_at": value.expires_at, "attempt": value.attempt,
                      "request": wire_request(value.request)}}


def index(value: Any) -> dict[str, Any]:
    if value is None:
        return {"index": None}
    columns, partial = value
    return {"index": {"columns": list(columns), "partial": bool(partial)}}
