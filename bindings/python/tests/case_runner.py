"""The shared case files (spec/cases.md), run through the Python package's own API.

Each operation of a case is answered by calling ``thm``'s functions on typed values that
``thm.from_json`` decodes from the case's ``input``, and the answer is written back as the
case's result object with ``to_json()``, so the case files prove the binding's surface, not
the C++ tool's operation table. What the C++ runner (``cli/thm/cli/args.hpp``) does at the
JSON level before any value exists is done here the same way: a missing key or a key that
is not a string or an array is a ``Decode`` error at ``/input/<key>``, and a key repeated
within one object of the input refuses the whole input (SPEC §0.5).
"""

from __future__ import annotations

import enum

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import thm

Json = Any


class _Refused(Exception):
    """The first decode error of an operation's input: the operation answers it."""

    def __init__(self, error: dict[str, Json]) -> None:
        super().__init__(error.get("reason"))
        self.error = error


def decode_error(path: str, reason: str) -> dict[str, Json]:
    """The case-file form of a decode error."""
    return {"variant": "Decode", "path": path, "reason": reason}


class Args:
    """The keys of an operation's ``input``, read as the C++ runner reads them."""

    def __init__(self, value: Json, root: str = "/input", prepared: bool = False,
                 awaited: bool = False) -> None:
        if not isinstance(value, dict):
            raise _Refused(decode_error(root, "expected an object"))
        self.value: dict[str, Json] = value
        self.root = root
        self.prepared = prepared
        self.awaited = awaited

    def team(self, roster: thm.RosterSnapshot,
             desks: thm.DeskSnapshot | None = None) -> thm.Team | None:
        """With ``prepared``, the team of these snapshots (no desks: none); None without it,
        or for snapshots no team holds, which the operation then answers on the snapshots
        (as ``thm check --impl prepared`` does)."""
        if not self.prepared:
            return None
        empty = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[],
                                 retired=[], tombstoned=[])
        try:
            return thm.Team.prepare(roster=roster, desks=empty if desks is None else desks)
        except (thm.RosterError, thm.DeskError):
            return None

    def path(self, key: str) -> str:
        return f"{self.root}/{key}"

    def field(self, key: str) -> Json:
        if key not in self.value:
            raise _Refused(decode_error(self.path(key), f'required key "{key}" is missing'))
        return self.value[key]

    def text(self, key: str) -> str:
        value = self.field(key)
        if not isinstance(value, str):
            raise _Refused(decode_error(self.path(key), "expected a string"))
        return value

    def nullable_text(self, key: str) -> str | None:
        return None if self.field(key) is None else self.text(key)

    def wire(self, key: str, wire_type: str) -> Any:
        try:
            return thm.from_json(wire_type, self.field(key), root=self.path(key))
        except thm.DecodeError as error:
            raise _Refused(error.to_json()) from error

    def nullable_wire(self, key: str, wire_type: str) -> Any:
        return None if self.field(key) is None else self.wire(key, wire_type)

    def array(self, key: str, wire_type: str) -> list[Any]:
        value = self.field(key)
        if not isinstance(value, list):
            raise _Refused(decode_error(self.path(key), "expected an array"))
        out = []
        for index, item in enumerate(value):
            try:
                out.append(thm.from_json(wire_type, item, root=f"{self.path(key)}/{index}"))
            except thm.DecodeError as error:
                raise _Refused(error.to_json()) from error
        return out

    def nullable_array(self, key: str, wire_type: str) -> list[Any] | None:
        return None if self.field(key) is None else self.array(key, wire_type)


def _jsonable(value: Any) -> Json:
    if isinstance(value, enum.Enum):
        return value.value  # a bare token, e.g. "agent_turns_spent"
    return value.to_json() if hasattr(value, "to_json") else value


# ---- the operations (cases.md, "Operations") ---------------------------------------------


def op_is_general_chat(a: Args) -> Json:
    return {"result": thm.is_general_chat(a.nullable_text("chat"))}


def op_same_conversation(a: Args) -> Json:
    first, second = a.nullable_text("a"), a.nullable_text("b")
    return {"result": thm.same_conversation(first, second)}


def op_dispatch_conversation(a: Args) -> Json:
    conversation = a.wire("conversation", "Conversation")
    return {"conversation": thm.dispatch_conversation(conversation).to_json()}


def op_resolve_mentions(a: Args) -> Json:
    body = a.text("body")
    supplied = a.nullable_array("supplied", "Mention")
    author = a.wire("author", "MentionAuthor")
    roster = a.wire("roster", "RosterSnapshot")
    desks = a.wire("desks", "DeskSnapshot")
    team = a.team(roster, desks)
    if team is not None:
        mentions = thm.resolve_mentions(body, supplied=supplied, author=author, team=team)
    else:
        mentions = thm.resolve_mentions(body, supplied=supplied, author=author, roster=roster,
                                        desks=desks)
    return {"mentions": [mention.to_json() for mention in mentions]}


def op_direct_responder(a: Args) -> Json:
    mentions = a.array("mentions", "Mention")
    roster = a.wire("roster", "RosterSnapshot")
    team = a.team(roster)
    if team is not None:
        return {"responder_id": thm.direct_responder(mentions, team=team)}
    return {"responder_id": thm.direct_responder(mentions, roster=roster)}


def op_mentioned_members(a: Args) -> Json:
    mentions = a.array("mentions", "Mention")
    addressed_desk = a.nullable_text("addressed_desk")
    responder = a.nullable_text("responder")
    roster = a.wire("roster", "RosterSnapshot")
    desks = a.wire("desks", "DeskSnapshot")
    team = a.team(roster, desks)
    if team is not None:
        return {"members": thm.mentioned_members(mentions, addressed_desk=addressed_desk,
                                                 responder=responder, team=team)}
    return {"members": thm.mentioned_members(mentions, addressed_desk=addressed_desk,
                                             responder=responder, roster=roster, desks=desks)}


def op_validate_desks(a: Args) -> Json:
    error = thm.validate_desks(a.wire("desks", "DeskSnapshot"))
    return {"valid": True} if error is None else {"error": error.to_json()}


def op_desk_members(a: Args) -> Json:
    desks = a.wire("desks", "DeskSnapshot")
    identity = a.text("identity")
    try:
        members, lead = thm.desk_members(desks, identity=identity)
    except thm.DeskError as error:
        return {"error": error.to_json()}
    return {"members": members, "lead": lead}


def op_responder_plan(a: Args) -> Json:
    request = a.wire("request", "ResponderRequest")
    roster = a.wire("roster", "RosterSnapshot")
    desks = a.wire("desks", "DeskSnapshot")
    details = a.array("candidate_details", "SelectorCandidate")
    team = a.team(roster, desks)
    try:
        if team is not None:
            plan = thm.responder_plan(request, team=team, candidate_details=details)
        else:
            plan = thm.responder_plan(request, roster=roster, desks=desks,
                                      candidate_details=details)
    except (thm.RosterError, thm.DeskError, thm.ResponderError) as error:
        return {"error": error.to_json()}
    return {"plan": plan.to_json()}


def _briefing_text(a: Args) -> str:
    briefing = a.wire("briefing", "TeamBriefing")
    context = a.nullable_wire("context", "MentionDispatchContext")
    return str(briefing.system_text(context))


def op_briefing_text(a: Args) -> Json:
    return {"text": _briefing_text(a)}


def op_briefing_offers_dispatch(a: Args) -> Json:
    return {"result": thm.offers_dispatch(_briefing_text(a))}


def op_accept_selection(a: Args) -> Json:
    output = a.text("output")
    candidates = a.array("candidates", "SelectorCandidate")
    return {"accepted": thm.accept_selection(output, candidates=candidates)}


def op_accept_evaluation(a: Args) -> Json:
    evaluation = a.wire("evaluation", "SelectionEvaluation")
    candidates = a.array("candidates", "SelectorCandidate")
    minimum = a.wire("minimum_confidence", "Probability")
    return {"accepted": thm.accept_evaluation(evaluation, candidates=candidates,
                                              minimum_confidence=minimum)}


def op_settle_selection(a: Args) -> Json:
    plan = a.wire("plan", "ResponderPlan")
    selector = a.wire("selector", "SelectorResult")
    return {"decision": thm.settle_selection(plan, selector=selector).to_json()}


def op_mention_dispatch(a: Args) -> Json:
    policy = a.wire("policy", "MentionDispatchPolicy")
    reply = a.wire("input", "MentionDispatchInput")
    roster = a.wire("roster", "RosterSnapshot")
    team = a.team(roster)
    try:
        if team is not None:
            decision = thm.mention_dispatch(policy=policy, input=reply, team=team)
        else:
            decision = thm.mention_dispatch(policy=policy, input=reply, roster=roster)
    except thm.RosterError as error:
        return {"error": error.to_json()}
    return {"decision": decision.to_json()}


class ScriptedQueue:
    """A queue written in Python that answers what the case says: an ``EnqueueOutcome``, or
    ``{"fail": message, "kind": token}`` raised as a ``thm.QueueError``."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls = 0
        self.requests: list[thm.MentionTurnRequest] = []

    def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
        self.calls += 1
        self.requests.append(request)
        if isinstance(self.answer, thm.QueueError):
            raise self.answer
        return self.answer


class AsyncScriptedQueue(ScriptedQueue):
    """The same queue with a coroutine ``enqueue_once``, for ``dispatch_mention_async``."""

    async def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
        await asyncio.sleep(0)
        return super().enqueue_once(request)


def _scripted_answer(a: Args) -> Any:
    script = a.field("queue")
    if not isinstance(script, dict) or "fail" not in script:
        return a.wire("queue", "EnqueueOutcome")
    if not isinstance(script["fail"], str):
        raise _Refused(decode_error(a.path("queue"), '"fail" must be a string'))
    kind = thm.QueueErrorKind.UNAVAILABLE
    if "kind" in script:
        try:
            kind = thm.from_json("QueueErrorKind", script["kind"], root="/input/queue/kind")
        except thm.DecodeError as error:
            raise _Refused(error.to_json()) from error
    return thm.QueueError(kind, script["fail"])


def op_dispatch_mention(a: Args) -> Json:
    try:
        policy = a.wire("policy", "MentionDispatchPolicy")
        reply = a.wire("input", "MentionDispatchInput")
        roster = a.wire("roster", "RosterSnapshot")
        queue = (AsyncScriptedQueue if a.awaited else ScriptedQueue)(_scripted_answer(a))
    except _Refused as refused:
        return {"error": refused.error, "queue_calls": 0}
    team = a.team(roster)
    snapshots: dict[str, Any] = {"roster": roster} if team is None else {"team": team}
    try:
        if a.awaited:
            outcome = asyncio.run(
                thm.dispatch_mention_async(queue, policy=policy, input=reply, **snapshots))
        else:
            outcome = thm.dispatch_mention(queue, policy=policy, input=reply, **snapshots)
        result: dict[str, Json] = {"outcome": outcome.to_json()}
    except thm.RosterError as error:
        result = {"error": {"variant": "Core", "core": error.to_json()}}
    except thm.QueueError as error:
        result = {"error": {"variant": "Enqueue", **error.to_json()}}
    result["queue_calls"] = queue.calls
    return result


def op_may_dispatch(a: Args) -> Json:
    return {"result": thm.may_dispatch(a.wire("context", "MentionDispatchContext"))}


_DISPLAYED = ("NoDispatchReason", "EnqueueRefusal", "ResponderRung", "SelectionDisposition")


def _rendering(a: Args) -> Any:
    """The enum member the ``{"type", "variant"}`` object ``a`` names."""
    type_name = a.text("type")
    variant = a.text("variant")
    if type_name not in _DISPLAYED:
        raise _Refused(decode_error(a.path("type"), f'unknown type "{type_name}"'))
    try:
        return getattr(thm, type_name)(variant)
    except ValueError as error:
        raise _Refused(decode_error(a.path("variant"),
                                    f'unknown {type_name} variant "{variant}"')) from error


def op_display(a: Args) -> Json:
    member = _rendering(a)
    return {"display": thm.display(member), "name": str(member)}


def op_display_equal(a: Args) -> Json:
    first, second = a.field("a"), a.field("b")
    x = thm.display(_rendering(Args(first, "/input/a")))
    y = thm.display(_rendering(Args(second, "/input/b")))
    return {"equal": x == y}


def op_decode(a: Args) -> Json:
    type_name = a.text("type")
    value = a.field("json")
    if type_name not in thm.WIRE_TYPES:
        raise _Refused(decode_error(a.path("type"), f'unknown wire type "{type_name}"'))
    try:
        decoded = thm.from_json(type_name, value, root="/input/json")
    except thm.DecodeError as error:
        raise _Refused(error.to_json()) from error
    return {"value": _jsonable(decoded)}


OPERATIONS: dict[str, Callable[[Args], Json]] = {
    name.removeprefix("op_"): function
    for name, function in dict(globals()).items()
    if name.startswith("op_") and callable(function)
}


def run_op(op: str, input_value: Json, refused: dict[str, Json] | None = None,
           prepared: bool = False, awaited: bool = False) -> Json:
    """The result object of ``op`` on ``input_value``; ``refused`` is a decode error already
    found in it (a repeated key), which the operation answers without reading it. With
    ``prepared``, the operations that take snapshots run on a ``thm.Team`` of them; with
    ``awaited``, ``dispatch_mention`` is ``dispatch_mention_async`` with an async queue."""
    if op not in OPERATIONS:
        raise KeyError(f"unknown op {op!r}")
    if refused is not None:
        error: dict[str, Json] = {"error": refused}
        return {**error, "queue_calls": 0} if op == "dispatch_mention" else error
    try:
        return OPERATIONS[op](Args(input_value, prepared=prepared, awaited=awaited))
    except _Refused as refusal:
        if op == "dispatch_mention":
            return {"error": refusal.error, "queue_calls": 0}
        return {"error": refusal.error}


# ---- matching (cases.md): exact, typed, and partial only inside a top-level error ---------


def _equal(expected: Json, actual: Json, subset: bool) -> bool:
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or (not subset and len(expected) != len(actual)):
            return False
        return all(key in actual and _equal(value, actual[key], subset)
                   for key, value in expected.items())
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(_equal(e, x, subset) for e, x in zip(expected, actual)))
    # bool is an int in Python, and 1 == 1.0: compare the JSON kinds first.
    return _same_kind(expected, actual) and expected == actual


def _same_kind(expected: Json, actual: Json) -> bool:
    def kind(value: Json) -> str:
        if isinstance(value, bool):
            return "boolean"
        if isinstance(value, int):
            return "integer"
        return type(value).__name__

    return kind(expected) == kind(actual)


def matches(expected: Json, actual: Json) -> bool:
    """Whether ``actual`` is the case's ``expected`` (cases.md)."""
    if not isinstance(expected, dict) or not isinstance(actual, dict):
        return _equal(expected, actual, False)
    if len(expected) != len(actual):
        return False
    return all(key in actual and _equal(value, actual[key], key == "error")
               for key, value in expected.items())


# ---- case files ----------------------------------------------------------------------------


class _Object(dict):  # type: ignore[type-arg]
    """A JSON object that remembers the keys it saw more than once (the first value kept)."""

    repeated: list[str]


def _object(pairs: list[tuple[str, Json]]) -> _Object:
    out = _Object()
    out.repeated = []
    for key, value in pairs:
        if key in out:
            out.repeated.append(key)
        else:
            out[key] = value
    return out


def _token(key: str) -> str:
    """``key`` as a JSON Pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def _repeated_paths(value: Json, path: str = "") -> list[str]:
    out: list[str] = []
    if isinstance(value, _Object):
        out += [f"{path}/{_token(key)}" for key in value.repeated]
        for key, item in value.items():
            out += _repeated_paths(item, f"{path}/{_token(key)}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _repeated_paths(item, f"{path}/{index}")
    return out


def load_cases(path: Path) -> list[tuple[str, Json, dict[str, Json] | None]]:
    """Every case of a case file as (name, case, refused): ``refused`` is the decode error of
    a key repeated within the case's input, if one is."""
    document = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_object)
    if not isinstance(document, list) or not document:
        raise ValueError(f"{path}: not a non-empty JSON array of cases")
    out = []
    for index, case in enumerate(document):
        refused = None
        for repeated in _repeated_paths(case.get("input"), "/input"):
            refused = refused or decode_error(repeated, "a key is repeated within one object")
        out.append((f"{path.name}#{index} {case['name']}", case, refused))
    return out
