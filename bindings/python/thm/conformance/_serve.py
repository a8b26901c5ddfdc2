"""A harness served over the adapter protocol, version 1, in multiplexed mode
(kit/protocol/PROTOCOL.md): one process, requests of different sessions in flight at once.

Every request becomes a task. A harness's ``async`` method is awaited on the event loop; a
plain one runs in a thread of its own pool, so plain sessions race as truly as async ones.
Hook calls go to stdout while the host's transaction waits, and the matching ``hook_reply``
resumes it. stdout carries protocol lines only: ``print`` goes to stderr while serving.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import os
import sys
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, cast

import thm
from thm.conformance import _wire as wire
from thm.conformance._types import Capabilities, LeaseError, Unsupported

PROTOCOL = 1
LINE_LIMIT = 1 << 28  # EQ-21 sends requests of megabytes


class _Server:
    def __init__(self, harness: Any, out: Any) -> None:
        self.harness, self.out = harness, out
        self.capabilities: Capabilities = getattr(harness, "capabilities", Capabilities())
        if not isinstance(self.capabilities, Capabilities):
            raise TypeError("the harness's capabilities must be a "
                            f"thm.conformance.Capabilities, not {self.capabilities!r:.80}")
        self.sessions: dict[int, Any] = {}
        self.opened = 0
        self.hooked = False
        self.hooks_sent = 0
        self.waiting: dict[int, asyncio.Future[bool]] = {}
        self.tasks: set[asyncio.Task[None]] = set()  # requests in flight, kept from the GC
        # A thread per session the suite may race (EQ-01: 64), and some for harness calls.
        workers = max(80, (self.capabilities.max_sessions or 0) + 16)
        self.threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="thm-harness")
        self.loop = asyncio.get_running_loop()

    # ---- calling the host ----

    async def call(self, method: Callable[..., Any], *args: Any, **named: Any) -> Any:
        """``method(*args)``, awaited when it is async, in a thread of the pool when not."""
        if inspect.iscoroutinefunction(method):
            return await method(*args, **named)
        result: Any = await self.loop.run_in_executor(self.threads,
                                                      lambda: method(*args, **named))
        return await result if inspect.isawaitable(result) else result

    def method(self, name: str, owner: Any = None) -> Callable[..., Any]:
        found = getattr(self.harness if owner is None else owner, name, None)
        if not callable(found):
            raise Unsupported(f"the harness has no {name}()")
        return cast(Callable[..., Any], found)

    def session(self, message: dict[str, Any]) -> Any:
        number = message.get("session")
        if number not in self.sessions:
            raise ValueError(f"no open session {number!r}")
        return self.sessions[number]

    # ---- hooks ----

    async def hook(self, session: int, point: str) -> bool:
        self.hooks_sent += 1
        number = self.hooks_sent
        reply: asyncio.Future[bool] = self.loop.create_future()
        self.waiting[number] = reply
        self.send({"hook": number, "session": session, "point": point})
        return await reply

    def hook_for(self, session: int, enqueue: Callable[..., Any]) -> Callable[[str], Any] | None:
        """What ``enqueue_once`` gets as ``hook=``: None unless the suite installed a hook."""
        if not self.hooked:
            return None

        async def stop(point: str) -> bool:
            return await self.hook(session, point)
        if inspect.iscoroutinefunction(enqueue):
            return stop
        return lambda point: asyncio.run_coroutine_threadsafe(stop(point), self.loop).result()

    # ---- the operations ----

    async def op_hello(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("protocol") != PROTOCOL:
            raise ValueError(f"this adapter speaks protocol {PROTOCOL} only")
        return {"protocol": PROTOCOL, "name": str(getattr(self.harness, "name", "python")),
                "sessions": "multiplexed", "capabilities": dataclasses.asdict(self.capabilities)}

    async def op_open_session(self, message: dict[str, Any]) -> dict[str, Any]:
        session = await self.call(self.method("open_session"))
        self.opened += 1
        self.sessions[self.opened] = session
        return {"session": self.opened}

    async def op_close_session(self, message: dict[str, Any]) -> None:
        self.session(message)
        session = self.sessions.pop(message["session"])
        close = getattr(session, "close", None)
        if callable(close):
            await self.call(close)

    async def op_enqueue_once(self, message: dict[str, Any]) -> dict[str, Any]:
        session = self.session(message)
        enqueue = self.method("enqueue_once", session)
        request = wire.request(message["request"])
        try:
            if self.capabilities.hooks:
                hook = self.hook_for(message["session"], enqueue)
                answer = await self.call(enqueue, request, hook=hook)
            else:
                answer = await self.call(enqueue, request)
        except thm.QueueError as error:
            return wire.queue_error(error)
        return wire.outcome(answer)

    async def op_claim(self, message: dict[str, Any]) -> Any:
        session = self.session(message)
        return wire.lease(await self.call(self.method("claim", session), message["duration"]))

    async def op_renew(self, message: dict[str, Any]) -> Any:
        renew = self.method("renew", self.session(message))
        return {"expires_at": await self.call(renew, message["token"], message["duration"])}

    async def op_complete(self, message: dict[str, Any]) -> Any:
        complete = self.method("complete", self.session(message))
        return {"state": await self.call(complete, message["token"])}

    async def op_fail(self, message: dict[str, Any]) -> Any:
        return {"state": await self.call(self.method("fail", self.session(message)),
                                         message["token"])}

    async def op_reset(self, message: dict[str, Any]) -> None:
        self.hooked = False
        await self.call(self.method("reset"))

    async def op_commit_reply(self, message: dict[str, Any]) -> None:
        await self.call(self.method("commit_reply"), wire.reply(message["reply"]))

    async def op_set_policy(self, message: dict[str, Any]) -> None:
        policy = thm.MentionDispatchPolicy.from_json(message["policy"], root="/policy")
        await self.call(self.method("set_policy"), policy)

    async def op_set_authorized(self, message: dict[str, Any]) -> None:
        await self.call(self.method("set_authorized"), wire.text(message["source_id"]),
                        wire.text(message["target_id"]), bool(message["authorized"]))

    async def op_set_available(self, message: dict[str, Any]) -> None:
        await self.call(self.method("set_available"), wire.text(message["agent_id"]),
                        bool(message["available"]))

    async def op_set_hook(self, message: dict[str, Any]) -> None:
        self.hooked = bool(message["installed"])

    async def op_settle(self, message: dict[str, Any]) -> None:
        await self.call(self.method("settle"), message["child_id"], message["how"])

    async def op_run_maintenance(self, message: dict[str, Any]) -> None:
        await self.call(self.method("run_maintenance"))

    async def op_records(self, message: dict[str, Any]) -> Any:
        return wire.records(await self.call(self.method("records")))

    async def op_children(self, message: dict[str, Any]) -> Any:
        return wire.children(await self.call(self.method("children")))

    async def op_unique_key_index(self, message: dict[str, Any]) -> Any:
        return wire.index(await self.call(self.method("unique_key_index")))

    async def op_store_now(self, message: dict[str, Any]) -> Any:
        return {"now": await self.call(self.method("store_now"))}

    async def op_advance_store_clock(self, message: dict[str, Any]) -> None:
        await self.call(self.method("advance_store_clock"), message["by"])

    async def op_reopen(self, message: dict[str, Any]) -> None:
        await self.call(self.method("reopen"))

    async def op_restart_store(self, message: dict[str, Any]) -> None:
        await self.call(self.method("restart_store"))

    # ---- requests and answers ----

    # Operations that exist only with a capability; undeclared, they answer `unsupported`.
    NEEDS = {"claim": "leases", "renew": "leases", "complete": "leases", "fail": "leases",
             "store_now": "leases", "unique_key_index": "sql_schema", "reopen": "persistent",
             "restart_store": "persistent", "advance_store_clock": "injected_store_clock",
             "node_count": "nodes", "leader": "nodes", "kill_node": "nodes",
             "restart_node": "nodes", "pause_node": "nodes", "resume_node": "nodes",
             "recover": "nodes"}

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) else None
        try:
            needed = self.NEEDS.get(op) if isinstance(op, str) else None
            if needed and not getattr(self.capabilities, needed, False):
                raise Unsupported(f"{op} needs {needed}, which the harness does not declare")
            if op == "set_hook" and message.get("installed") and not self.capabilities.hooks:
                raise Unsupported("set_hook needs hooks, which the harness does not declare")
            if handler is None:
                raise Unsupported(f"unknown operation {op!r}")
            result = await handler(message)
            return {"result": {} if result is None else result}
        except LeaseError as error:
            return {"result": {"lease_error": error.kind}}
        except thm.QueueError as error:
            return {"result": wire.queue_error(error)}
        except Unsupported as error:
            return {"unsupported": str(error) or f"{op} is not supported"}
        except Exception as error:  # the harness's own failure: quoted, never on stdout
            traceback.print_exc(file=sys.stderr)
            return {"failure": f"{op}: {type(error).__name__}: {error}"}

    async def serve_one(self, message: dict[str, Any]) -> None:
        self.send({"id": message["id"], **await self.answer(message)})

    def send(self, message: dict[str, Any]) -> None:
        self.out.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.out.flush()

    def receive(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as error:
            print(f"ignoring a line that is not JSON ({error}): {line[:200]!r}", file=sys.stderr)
            return
        if isinstance(message, dict) and "hook_reply" in message:
            waiting = self.waiting.pop(message["hook_reply"], None)
            if waiting is not None and not waiting.done():
                waiting.set_result(message.get("proceed") is True)
            return
        if not isinstance(message, dict) or "id" not in message:
            print(f"ignoring a message without an id: {message!r:.200}", file=sys.stderr)
            return
        task = self.loop.create_task(self.serve_one(message))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


async def _serve(factory: Callable[[], Any], stdin: Any, stdout: Any) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
    made = factory()
    harness = await made if inspect.isawaitable(made) else made
    server = _Server(harness, stdout)
    while True:
        line = await reader.readline()
        if not line:
            return
        if line.strip():
            server.receive(line)


def serve(factory: Callable[[], Any], stdout: Any = None) -> int:
    """Serves the harness ``factory()`` makes (it may be async) on this process's stdin and
    ``stdout`` (default: this process's) until stdin ends. Never returns: exits 0 without
    waiting for threads a harness left blocked."""
    stdout = sys.stdout.buffer if stdout is None else stdout
    sys.stdout = sys.stderr  # a stray print() must never corrupt the protocol
    try:
        asyncio.run(_serve(factory, sys.stdin.buffer, stdout))
    except BaseException:  # the factory failed, or a signal: say so and exit as the suite expects
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        os._exit(1)
    sys.stderr.flush()
    os._exit(0)
