"""The Python SDK of thm's adapter protocol, version 1 (kit/protocol/PROTOCOL.md).

What every adapter program in Python needs whatever its store, standard library only:

- the wire forms: bytes as a JSON string or {"base64": ...} (`from_wire`, `to_wire`), a
  request (`request_from_wire`), and the canonical key of a child turn (`turn_key`,
  `TurnKey::encoded()`, General spellings folded);
- the answers that are results, not failures: `QueueError`, `LeaseError`, `Unsupported`;
- `Adapter`, the protocol in processes mode: each process reads one request, answers it,
  and reads the next; hook calls go to stdout while the transaction is open and their reply
  is read from stdin before going on. A store's adapter subclasses it, gives it
  `open_queue()` and one `op_<operation>` method per operation, and runs `serve_stdio`.

kit/adapters/python-sqlite/adapter.py is an adapter written on it. Logs go to stderr;
stdout carries protocol messages only.
"""
from __future__ import annotations

import base64
import json
import sys
import traceback

PROTOCOL = 1
HOOK_POINTS = ("after_begin", "after_validate_reads", "after_idempotency_statement",
               "after_child_insert", "before_commit", "after_commit_before_return")

# ---- wire forms ------------------------------------------------------------------------------


def from_wire(value) -> bytes:
    """A bytes field: a JSON string (its UTF-8) or {"base64": "..."}."""
    if isinstance(value, str):
        return value.encode("utf-8")  # a lone surrogate raises: not valid UTF-8
    if isinstance(value, dict) and isinstance(value.get("base64"), str):
        return base64.b64decode(value["base64"], validate=True)
    raise ValueError(f"not a bytes field: {value!r:.80}")


def to_wire(data: bytes):
    """A string when the bytes are valid UTF-8, else base64."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def turn_key(desk_id: bytes, thread_root: int | None, sequence: int) -> bytes:
    """`TurnKey::encoded()`: v1/<desk byte length>:<desk id>/<c | t<root>>/<sequence>."""
    if desk_id == b"" or desk_id.lower() in (b"main", b"general"):  # bytes.lower(): ASCII only
        desk_id = b"General"
    channel = b"c" if thread_root is None else b"t%d" % thread_root
    return b"v1/%d:%s/%s/%d" % (len(desk_id), desk_id, channel, sequence)


def request_from_wire(wire: dict) -> dict:
    conversation = wire["conversation"]
    return {"sequence": int(wire["key"]["trigger_sequence"]),
            "source_id": from_wire(wire["source_id"]), "target_id": from_wire(wire["target_id"]),
            "content": from_wire(wire["content"]), "desk_id": from_wire(conversation["desk_id"]),
            "thread_root": conversation["thread_root"], "child_hop": int(wire["child_hop"])}



# ---- answers that are results ----------------------------------------------------------------


class QueueError(Exception):
    """A `QueueError` the queue answers (a result, not an adapter failure)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class LeaseError(Exception):
    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


class StdinClosed(Exception):
    """The suite closed stdin: finish and exit 0."""


class Unsupported(Exception):
    """An operation whose capability is not declared (answered `unsupported`, EQ-24)."""



# ---- the protocol ----------------------------------------------------------------------------


class Adapter:
    """The protocol in processes mode, over `stdin` and `stdout` (binary streams)."""

    name = "python"
    capabilities: dict = {}
    # Operations that exist only with a capability; undeclared, they answer `unsupported`.
    needs = {"claim": "leases", "renew": "leases", "complete": "leases", "fail": "leases",
             "store_now": "leases", "unique_key_index": "sql_schema", "reopen": "persistent",
             "restart_store": "persistent", "advance_store_clock": "injected_store_clock",
             "node_count": "nodes", "leader": "nodes", "kill_node": "nodes",
             "restart_node": "nodes", "pause_node": "nodes", "resume_node": "nodes",
             "recover": "nodes"}

    def __init__(self, stdin, stdout):
        self.stdin, self.stdout = stdin, stdout
        self.hooked = False  # set_hook: stop at the six points of every later enqueue
        self.queue = None  # opened by the first request, so an error is answered, not a crash
        self.hooks_sent = 0

    def open_queue(self):
        """The store's queue, opened by the first request that is answered."""
        raise NotImplementedError

    def send(self, message: dict) -> None:
        self.stdout.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.stdout.flush()

    def receive(self) -> dict | None:
        """The next message; None for a line that is not a JSON object (logged)."""
        line = self.stdin.readline()
        if not line:
            raise StdinClosed()
        try:
            message = json.loads(line)
        except ValueError as error:
            print(f"ignoring a line that is not JSON ({error}): {line[:200]!r}", file=sys.stderr)
            return None
        return message if isinstance(message, dict) else None

    def serve(self) -> None:
        while True:
            message = self.receive()
            if message is None or "id" not in message:
                print(f"ignoring a message without an id: {message!r:.200}", file=sys.stderr)
                continue
            self.send({"id": message["id"], **self.answer(message)})

    def answer(self, message: dict) -> dict:
        op = message.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        try:
            needed = self.needs.get(op)
            if needed and not self.capabilities.get(needed):
                raise Unsupported(f"{op} needs {needed}, which {self.name} does not declare")
            if handler is None:
                raise Unsupported(f"unknown operation {op!r}")
            if self.queue is None:
                self.queue = self.open_queue()
            result = handler(message)
            return {"result": {} if result is None else result}
        except QueueError as error:  # the queue's answers, not failures
            return {"result": {"queue_error": {"kind": error.kind, "message": str(error)}}}
        except LeaseError as error:
            return {"result": {"lease_error": error.kind}}
        except Unsupported as error:
            return {"unsupported": str(error)}
        except StdinClosed:
            raise
        except Exception as error:  # the adapter's own failure, never a traceback on stdout
            traceback.print_exc(file=sys.stderr)
            return {"failure": f"{op}: {type(error).__name__}: {error}"}

    def hook(self, point: str) -> bool:
        """Stops at `point`: a hook call on stdout, then the matching hook_reply from stdin."""
        self.hooks_sent += 1
        number = self.hooks_sent
        self.send({"hook": number, "point": point})
        while True:
            message = self.receive()
            if message is not None and message.get("hook_reply") == number:
                return message.get("proceed") is True
            if message is not None and "id" in message:  # a request cannot interleave here
                self.send({"id": message["id"], "failure": f"waiting for hook_reply {number}"})
            else:
                print(f"waiting for hook_reply {number}, ignoring {message!r:.200}",
                      file=sys.stderr)

    # ---- the handshake and sessions ----

    def op_hello(self, message):
        if message.get("protocol") != PROTOCOL:
            raise ValueError(f"this adapter speaks protocol {PROTOCOL} only")
        return {"protocol": PROTOCOL, "name": self.name, "sessions": "processes",
                "capabilities": self.capabilities}

    def op_open_session(self, message):
        # Processes mode: this process is the session, its connection the session's. The
        # suite may reuse the process for a new session, which starts with no hook.
        self.hooked = False

    op_close_session = op_open_session

    def op_set_hook(self, message):
        if message["installed"] and not self.capabilities.get("hooks"):
            raise Unsupported(f"set_hook needs hooks, which {self.name} does not declare")
        self.hooked = bool(message["installed"])


def serve_stdio(make_adapter) -> int:
    """Serves `make_adapter(stdin, stdout)` on this process's binary stdin and stdout until
    stdin ends; 0. A stray print() goes to stderr: it must never corrupt the protocol."""
    stdout = sys.stdout.buffer
    sys.stdout = sys.stderr
    try:
        make_adapter(sys.stdin.buffer, stdout).serve()
    except (StdinClosed, BrokenPipeError):
        pass
    return 0
