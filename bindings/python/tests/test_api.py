"""The Python surface beyond the case files: values, errors, the queue port, bad input.

Every bad input must raise a typed error (``TypeError``, ``ValueError`` or a ``thm.Error``)
that names where it is; none may crash the interpreter or be answered as a decision.
"""

from __future__ import annotations

import datetime
import pickle
from typing import Any

import pytest

import thm

BOB = thm.RosterMember(id="bob", name=None)
ADA = thm.RosterMember(id="ada", name="Ada")
ROSTER = thm.RosterSnapshot(members=[ADA, BOB], people=[], retired=[], tombstoned=[])
DESKS = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                         tombstoned=[])
POLICY = thm.MentionDispatchPolicy(enabled=True, max_hops=3)


def untyped(value: object) -> Any:
    """``value``, deliberately of a type the stubs refuse: what a bad caller passes."""
    return value

TO_BOB = thm.Mention(target=thm.AgentTarget(id="bob"), text="@bob", offset=0)
REPLY = thm.MentionDispatchInput(
    key=thm.DispatchKey(trigger_sequence=2**64 - 1),
    conversation=thm.DispatchConversation(desk_id="eng", thread_root=None),
    author_id="ada", content="@bob please review", mentions=[TO_BOB], hop=0)


# ---- values ---------------------------------------------------------------------------------


def test_a_value_needs_every_key_its_wire_form_requires() -> None:
    with pytest.raises(TypeError, match="missing required keyword arguments: 'text' and 'offset'"):
        thm.Mention(target=thm.AgentTarget(id="bob"))  # type: ignore[call-arg]
    assert thm.Mention(target=thm.EveryoneTarget(), text="@everyone", offset=0).quiet is False


def test_an_unknown_key_is_ignored_whatever_it_holds() -> None:
    # SPEC §0.5, as the Node.js package has it: a row with a datetime in a column thm does
    # not read is fine; where the decoder reads a value JSON cannot say, it is refused there.
    row = {"id": "p", "label": "Pat", "created": datetime.datetime(2026, 1, 1),
           "meta": {"score": float("nan"), 1: "x"}, "big": 2**70}
    assert thm.from_json("Person", row) == thm.Person(id="p", label="Pat")
    # Whatever it is, too: a key that is not a str, or not text, is no key of the wire form.
    assert thm.from_json("Person", {**row, 1: "x", None: [], "\ud800": 1}) == thm.Person(id="p", label="Pat")
    with pytest.raises(thm.DecodeError) as raised:
        thm.from_json("Person", {**row, "label": datetime.datetime(2026, 1, 1)})
    assert (raised.value.path, raised.value.reason) == ("/label", "not JSON: a datetime")
    with pytest.raises(thm.DecodeError) as raised:
        thm.from_json("RosterSnapshot", {"members": [{"id": "a", "name": float("inf")}],
                                         "people": [], "retired": [], "tombstoned": []})
    assert (raised.value.path, raised.value.reason) == (
        "/members/0/name", "not JSON: a float that is not finite")


def test_what_cpp_defaults_may_be_left_out() -> None:
    # A snapshot's lists default to empty and a request's policy to allowed, as a C++
    # designated initializer leaves them; the wire form's rule is the decoder's.
    assert thm.RosterSnapshot(members=[BOB]) == ROSTER.replace(members=[BOB])
    assert thm.DeskSnapshot() == DESKS
    request = thm.ResponderRequest(message="hi", chat=None, mentions=[], orchestrator_id="ada")
    assert request.selection_policy is thm.SelectionPolicy.ALLOWED
    with pytest.raises(thm.DecodeError, match="people"):
        thm.from_json("RosterSnapshot", {"members": []})
    with pytest.raises(TypeError, match="missing required keyword argument: 'message'"):
        thm.ResponderRequest(chat=None, mentions=[], orchestrator_id="ada")  # type: ignore[call-arg]


def test_a_value_takes_keywords_only_and_no_unknown_one() -> None:
    with pytest.raises(TypeError):
        untyped(thm.Person)("p", "Pat")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        thm.Person(id="p", label="Pat", **untyped({"nmae": "x"}))


def test_values_are_immutable_and_replace_makes_a_copy() -> None:
    with pytest.raises(AttributeError):
        BOB.id = "carol"  # type: ignore[misc]
    assert isinstance(ROSTER.members, tuple)
    carol = BOB.replace(id="carol")
    assert (carol.id, BOB.id) == ("carol", "bob")


def test_equality_repr_and_pattern_matching() -> None:
    assert BOB == thm.RosterMember(id="bob", name=None)
    assert BOB != ADA and BOB != untyped("bob")
    assert eval(repr(REPLY), vars(thm)) == REPLY  # noqa: S307 - the repr is the constructor
    match thm.mention_dispatch(policy=POLICY, input=REPLY, roster=ROSTER):
        case thm.DispatchOne(request=thm.MentionTurnRequest(target_id=target, child_hop=hop)):
            assert (target, hop) == ("bob", 1)
        case other:
            pytest.fail(f"expected DispatchOne, got {other!r}")


def test_every_value_round_trips_its_wire_form() -> None:
    for value in (ROSTER, DESKS, POLICY, TO_BOB, REPLY, thm.Probability(parts_per_million=7)):
        assert type(value).from_json(value.to_json()) == value
        assert thm.from_json(type(value).__name__, value.to_json()) == value
    assert REPLY.to_json()["key"] == {"trigger_sequence": 18446744073709551615}


def test_enums_are_str_enums_whose_values_are_the_wire_tokens() -> None:
    reason = thm.NoDispatchReason.HOP_LIMIT_REACHED
    assert reason == "hop_limit_reached" and thm.NoDispatchReason("disabled").name == "DISABLED"
    assert [member.value for member in thm.ResponderMode] == ["lead", "auto"]
    assert thm.display(thm.EnqueueRefusal.UNAUTHORIZED)
    desk = thm.Desk(id="eng", name="Eng", description=None, members=[], responder_mode="auto")
    assert desk.responder_mode is thm.ResponderMode.AUTO


# ---- bad values: typed errors that say where ----------------------------------------------


@pytest.mark.parametrize(("make", "error", "says"), [
    (lambda: thm.DispatchKey(trigger_sequence=2**64), ValueError, "trigger_sequence"),
    (lambda: thm.DispatchKey(trigger_sequence=-1), ValueError, "trigger_sequence"),
    (lambda: thm.DispatchKey(trigger_sequence=True), TypeError, "got bool"),
    (lambda: thm.DispatchKey(trigger_sequence=untyped(1.0)), TypeError, "got float"),
    (lambda: thm.MentionDispatchPolicy(enabled=untyped(1), max_hops=1), TypeError, "enabled"),
    (lambda: thm.MentionDispatchPolicy(enabled=True, max_hops=2**32), ValueError, "max_hops"),
    (lambda: thm.Person(id=untyped(b"p"), label="Pat"), TypeError, "got bytes"),
    (lambda: thm.Person(id="\ud800", label="Pat"), ValueError, "lone surrogate"),
    (lambda: thm.Person(id=untyped(None), label="Pat"), TypeError, "Person.id"),
    (lambda: thm.RosterSnapshot(members=untyped([{"id": "x"}]), people=[], retired=[], tombstoned=[]),
     TypeError, r"members\[0\]: expected RosterMember, got dict"),
    (lambda: thm.RosterSnapshot(members=untyped("bob"), people=[], retired=[], tombstoned=[]),
     TypeError, "a sequence of RosterMember"),
    (lambda: thm.Mention(target=untyped("bob"), text="@bob", offset=0), TypeError, "AgentTarget"),
    (lambda: thm.Desk(id="d", name="D", description=None, members=[], responder_mode="boss"),
     TypeError, "ResponderMode"),
    (lambda: thm.Probability(parts_per_million=1_000_001), ValueError, "at most 1000000"),
])
def test_a_bad_field_is_a_typed_error_naming_it(make: Any, error: type[Exception],
                                                says: str) -> None:
    with pytest.raises(error, match=says):
        make()


def test_text_carries_bytes_that_are_not_utf8_as_surrogate_escapes() -> None:
    # PEP 383, as os.fsdecode: U+DC80..U+DCFF stand for the bytes 0x80..0xFF, exactly.
    raw = b"caf\xe9 \x00 \xff@bob"
    text = raw.decode("utf-8", "surrogateescape")
    request = thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=7), source_id="\udcff", target_id="bob",
        content=text, conversation=thm.DispatchConversation(desk_id="d\udc80", thread_root=None),
        child_hop=1)
    assert request.content == text
    assert request.content.encode("utf-8", "surrogateescape") == raw
    assert request.source_id.encode("utf-8", "surrogateescape") == b"\xff"
    assert thm.turn_key(request).encode("utf-8", "surrogateescape") == b"v1/2:d\x80/c/7"
    briefing = thm.TeamBriefing.from_snapshots(
        "ann", conversation=thm.Conversation(desk_id="", desk_name="General", thread_root=None),
        desks=thm.DeskSnapshot(), roster=thm.RosterSnapshot(
            members=[thm.RosterMember(id="bob", name="B\udcffb")]))
    assert "B\udcffb" in thm.briefing_text(briefing)
    # Valid UTF-8 stays as it was; an escape of an ASCII byte is no escape of a byte.
    assert thm.Person(id="caf\u00e9", label="P").id == "caf\u00e9"
    with pytest.raises(ValueError, match="lone surrogate"):
        thm.Person(id="\udc41", label="P")


def test_bytes_that_are_not_utf8_survive_to_json_and_pickle() -> None:
    # A lossy round trip could turn a refusal into a dispatch: a hand-off allowed only to
    # the bytes b"b\xff" must not become one to "b\ufffd", an agent that exists.
    policy = thm.MentionDispatchPolicy(
        enabled=True, max_hops=3,
        allowed_handoffs=[thm.Handoff(source_id="a", target_id="b\udcff")])
    member = thm.RosterMember(id="b\udcff", name="B\udc80")
    for value in (policy, member):
        assert type(value).from_json(value.to_json()) == value
        assert pickle.loads(pickle.dumps(value)) == value
    assert policy.to_json()["allowed_handoffs"][0]["target_id"] == "b\udcff"
    # Only U+DC80..U+DCFF carry bytes: any other lone surrogate is still refused.
    with pytest.raises(thm.DecodeError):
        thm.Handoff.from_json({"source_id": "a", "target_id": "\udc41"})


@pytest.mark.parametrize(("value", "path"), [
    ({"enabled": True}, "/input/policy/max_hops"),
    ({"enabled": True, "max_hops": -1}, "/input/policy/max_hops"),
    ({"enabled": True, "max_hops": 2**32}, "/input/policy/max_hops"),
    ({"enabled": "yes", "max_hops": 1}, "/input/policy/enabled"),
    ([], "/input/policy"),
])
def test_from_json_refuses_with_the_json_pointer(value: Any, path: str) -> None:
    with pytest.raises(thm.DecodeError) as raised:
        thm.MentionDispatchPolicy.from_json(value, root="/input/policy")
    assert raised.value.path == path and raised.value.variant == "Decode"
    assert raised.value.to_json()["path"] == path


@pytest.mark.parametrize("value", [
    {"enabled": True, "max_hops": 2**64}, {"enabled": {1, 2}}, "\udc80",
    float("nan"), b"{}",
])
def test_from_json_refuses_what_is_not_json(value: Any) -> None:
    with pytest.raises(thm.DecodeError):
        thm.MentionDispatchPolicy.from_json(value)


def test_from_json_refuses_nesting_deeper_than_the_limit() -> None:
    deep: Any = []
    for _ in range(300):
        deep = [deep]
    with pytest.raises(thm.DecodeError, match="nested deeper than 256"):
        thm.from_json("RosterSnapshot", {"members": deep})


def test_from_json_names_unknown_types_and_wrong_alternatives() -> None:
    with pytest.raises(ValueError, match="unknown wire type 'Roster'"):
        thm.from_json("Roster", {})
    with pytest.raises(thm.DecodeError, match="expected AgentTarget, got EveryoneTarget"):
        thm.AgentTarget.from_json({"kind": "everyone"})


# ---- operations: wrong arguments are typed errors naming the argument ----------------------


@pytest.mark.parametrize(("call", "says"), [
    (lambda: thm.resolve_mentions(untyped(b"@bob"), supplied=None, author=thm.OtherAuthor(),
                                  roster=ROSTER, desks=DESKS), r"resolve_mentions\(body\)"),
    (lambda: thm.resolve_mentions("@bob", supplied=None, author=thm.OtherAuthor(),
                                  roster=ROSTER.to_json(), desks=DESKS), r"\(roster\)"),
    (lambda: thm.resolve_mentions("@bob", supplied=untyped([1]), author=thm.OtherAuthor(),
                                  roster=ROSTER, desks=DESKS), r"supplied\)\[0\]"),
    (lambda: thm.mention_dispatch(policy=POLICY, input=REPLY.to_json(), roster=ROSTER),
     r"mention_dispatch\(input\)"),
    (lambda: thm.responder_plan(untyped(None), roster=ROSTER, desks=DESKS, candidate_details=[]),
     r"responder_plan\(request\)"),
    (lambda: thm.settle_selection(untyped(None), selector=thm.SelectorAbsent()), "Decided or Select"),
    (lambda: thm.desk_members(DESKS, identity=untyped(7)), r"desk_members\(identity\)"),
    (lambda: thm.is_general_chat(untyped(7)), r"is_general_chat\(chat\)"),
    (lambda: thm.display(untyped("disabled")), "NoDispatchReason"),
    (lambda: thm.accept_evaluation(untyped(None), candidates=[],
                                   minimum_confidence=untyped(None)), "evaluation"),
])
def test_a_wrong_argument_is_a_typed_error(call: Any, says: str) -> None:
    with pytest.raises(TypeError, match=says):
        call()


def test_a_malformed_snapshot_raises_its_variant() -> None:
    twice = ROSTER.replace(members=[BOB, BOB])
    with pytest.raises(thm.RosterError) as raised:
        thm.mention_dispatch(policy=POLICY, input=REPLY, roster=twice)
    assert (raised.value.variant, raised.value.member_id) == ("DuplicateRosterMemberId", "bob")
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, thm.Error)
    assert raised.value.to_json()["message"] == str(raised.value)


def test_validate_desks_answers_the_error_without_raising_it() -> None:
    desk = thm.Desk(id="eng", name="Eng", description=None, members=[])
    twice = DESKS.replace(declared=[desk, desk])
    error = thm.validate_desks(twice)
    assert isinstance(error, thm.DeskError) and error.variant == "DuplicateDeskId"
    assert thm.validate_desks(DESKS) is None
    with pytest.raises(thm.DeskError):
        thm.desk_members(DESKS, identity="nowhere")


# ---- the queue port -----------------------------------------------------------------------


class Queue:
    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[thm.MentionTurnRequest] = []

    def enqueue_once(self, request: thm.MentionTurnRequest) -> Any:
        self.requests.append(request)
        return self.answer(request) if callable(self.answer) else self.answer


def dispatch(queue: Any) -> Any:
    return thm.dispatch_mention(queue, policy=POLICY, input=REPLY, roster=ROSTER)


def test_the_queue_is_called_once_with_the_request() -> None:
    queue = Queue(thm.Enqueued())
    assert dispatch(queue) == thm.Enqueued()
    assert [request.target_id for request in queue.requests] == ["bob"]
    assert dispatch(Queue(thm.Refused(reason="unauthorized"))) == thm.Refused(
        reason=thm.EnqueueRefusal.UNAUTHORIZED)


def test_a_declined_dispatch_never_calls_the_queue() -> None:
    queue = Queue(thm.Enqueued())
    closed = thm.MentionDispatchPolicy(enabled=False, max_hops=3)
    outcome = thm.dispatch_mention(queue, policy=closed, input=REPLY, roster=ROSTER)
    assert outcome == thm.NotDispatched(reason=thm.NoDispatchReason.DISABLED)
    assert queue.requests == []


def test_a_queue_error_the_queue_raises_comes_back_as_it_was() -> None:
    failure = thm.QueueError(thm.QueueErrorKind.UNAVAILABLE, "the database is down")

    def fail(_: Any) -> Any:
        raise failure

    with pytest.raises(thm.QueueError) as raised:
        dispatch(Queue(fail))
    assert raised.value is failure and raised.value.kind is thm.QueueErrorKind.UNAVAILABLE


@pytest.mark.parametrize(("answer", "says"), [
    (lambda _: 1 / 0, "ZeroDivisionError: division by zero"),
    (42, "enqueue_once returned 42"),
    (None, "enqueue_once returned None"),
    ("enqueued", "enqueue_once returned 'enqueued'"),
])
def test_anything_else_the_queue_does_is_an_internal_queue_error(answer: Any, says: str) -> None:
    with pytest.raises(thm.QueueError) as raised:
        dispatch(Queue(answer))
    assert raised.value.kind is thm.QueueErrorKind.INTERNAL and says in raised.value.message
    if callable(answer):
        assert isinstance(raised.value.__cause__, ZeroDivisionError)


def test_an_interrupt_in_the_queue_is_not_swallowed() -> None:
    def interrupt(_: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dispatch(Queue(interrupt))


def test_a_queue_without_enqueue_once_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="enqueue_once"):
        dispatch(object())


def test_a_queue_error_needs_a_known_kind() -> None:
    with pytest.raises(ValueError):
        thm.QueueError("on_fire", "?")
    assert thm.QueueError("indeterminate").to_json() == {"kind": "indeterminate", "message": ""}


# ---- the canonical key of a child turn -----------------------------------------------------------


def request_in(desk_id: str, thread_root: int | None, sequence: int) -> thm.MentionTurnRequest:
    return thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=sequence), source_id="ada", target_id="bob",
        content="@bob", child_hop=1,
        conversation=thm.DispatchConversation(desk_id=desk_id, thread_root=thread_root))


def test_turn_key_is_the_canonical_key_with_general_folded() -> None:
    assert thm.turn_key(request_in("eng", 42, 17)) == "v1/3:eng/t42/17"
    assert thm.turn_key(request_in("main", None, 2**64 - 1)) == "v1/7:General/c/18446744073709551615"
    assert thm.turn_key(request_in("MAIN", 3, 9)) == thm.turn_key(request_in("General", 3, 9))
    # Length-prefixed: a desk id holding the delimiters cannot pass for another key.
    assert thm.turn_key(request_in("a/t1", None, 5)) != thm.turn_key(request_in("a", 1, 5))
    assert thm.turn_key(request_in("é", None, 1)) == "v1/2:é/c/1"  # bytes, not characters
