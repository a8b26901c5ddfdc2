"""A queue in memory, written in plain Python, and its conformance harness: what the tests
of thm.conformance serve to the suite. Plain methods, so the package runs them in threads;
one lock makes each step atomic. No hooks and no leases: those checks are skipped."""

from __future__ import annotations

import threading

import thm
from thm.conformance import Capabilities, Child, Record, Reply

MAX_CONTENT_BYTES = 1 << 20
MAX_ID_BYTES = 1024


def raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def reply_key(reply: Reply) -> str:
    return thm.turn_key(thm.MentionTurnRequest(
        key=thm.DispatchKey(trigger_sequence=reply.sequence), source_id="", target_id="",
        content="", conversation=thm.DispatchConversation(desk_id=reply.desk_id,
                                                          thread_root=reply.thread_root),
        child_hop=0))


class MemoryHarness:
    name = "python-memory"
    capabilities = Capabilities(max_content_bytes=MAX_CONTENT_BYTES, max_id_bytes=MAX_ID_BYTES)

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.replies: dict[str, Reply] = {}
        self.policy: thm.MentionDispatchPolicy | None = None
        self.forbidden: set[tuple[str, str]] = set()
        self.available: set[str] = set()
        self.keys: dict[str, int] = {}
        self.rows: dict[int, Child] = {}

    def open_session(self) -> MemoryHarness:
        return self

    def close(self) -> None:
        pass

    def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        if len(raw(request.content)) > MAX_CONTENT_BYTES or max(
                len(raw(field)) for field in (request.source_id, request.target_id,
                                              request.conversation.desk_id)) > MAX_ID_BYTES:
            raise thm.QueueError(thm.QueueErrorKind.INVALID_REQUEST, "over the store's limits")
        key = thm.turn_key(request)
        with self.lock:
            reply = self.replies.get(key)
            if reply is None:
                raise thm.QueueError(thm.QueueErrorKind.TRIGGER_MISSING, "no committed reply")
            if (reply.author_id, reply.content, reply.hop + 1) != (
                    request.source_id, request.content, request.child_hop):
                raise thm.QueueError(thm.QueueErrorKind.TRIGGER_MISMATCH, "not the reply")
            if self.policy is None or not self.policy.enabled or \
                    request.child_hop > self.policy.max_hops:
                return thm.Refused(reason=thm.EnqueueRefusal.FEATURE_DISABLED)
            if (request.source_id, request.target_id) in self.forbidden:
                return thm.Refused(reason=thm.EnqueueRefusal.UNAUTHORIZED)
            if request.target_id not in self.available:
                return thm.Refused(reason=thm.EnqueueRefusal.TARGET_UNAVAILABLE)
            if key in self.keys:
                return thm.Already()
            child = len(self.keys) + 1
            self.keys[key] = child
            self.rows[child] = Child(id=child, key=key, request=request, state="pending",
                                     attempts=0, lease_expires_at=None)
            return thm.Enqueued()

    def commit_reply(self, reply: Reply) -> None:
        with self.lock:
            self.replies[reply_key(reply)] = reply

    def set_policy(self, policy: thm.MentionDispatchPolicy) -> None:
        with self.lock:
            self.policy = policy

    def set_authorized(self, source_id: str, target_id: str, authorized: bool) -> None:
        with self.lock:
            (self.forbidden.discard if authorized else self.forbidden.add)((source_id, target_id))

    def set_available(self, agent_id: str, available: bool) -> None:
        with self.lock:
            (self.available.add if available else self.available.discard)(agent_id)

    def settle(self, child_id: int, how: str) -> None:
        with self.lock:
            child = self.rows.pop(child_id)
            if how != "delete":
                state = {"complete": "completed", "fail": "failed", "dead_letter": "dead"}[how]
                self.rows[child_id] = Child(id=child.id, key=child.key, request=child.request,
                                            state=state, attempts=0, lease_expires_at=None)

    def run_maintenance(self) -> None:
        with self.lock:
            self.rows = {id: row for id, row in self.rows.items() if row.state == "pending"}

    def records(self) -> list[Record]:
        with self.lock:
            return [Record(key=key, child_id=child) for key, child in self.keys.items()]

    def children(self) -> list[Child]:
        with self.lock:
            return list(self.rows.values())


class ReplayAnsweredEnqueued(MemoryHarness):
    """The same queue with one bug: a replay answers Enqueued."""

    def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        outcome = super().enqueue_once(request)
        return thm.Enqueued() if isinstance(outcome, thm.Already) else outcome


class HangsInEnqueue(MemoryHarness):
    """The same queue, stuck in every enqueue_once: it writes its process id to the file
    $THM_TEST_PID_FILE and waits a minute."""

    def enqueue_once(self, request: thm.MentionTurnRequest) -> thm.EnqueueOutcome:
        import os
        with open(os.environ["THM_TEST_PID_FILE"], "w", encoding="utf-8") as out:
            out.write(str(os.getpid()))
        threading.Event().wait(60)
        return super().enqueue_once(request)
