"""Protocol-level smoke tests of the Python reference adapter, without the C++ suite.

    python3 -m unittest kit/adapters/python-sqlite/test_adapter.py -v

Each test starts the adapter as a subprocess over a fresh temporary database and talks
protocol v1 to it. Every message the adapter writes (and every request the test sends) is
validated against kit/protocol/v1.schema.json when `jsonschema` is importable.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTER = os.path.join(HERE, "adapter.py")
BROKEN = os.path.join(HERE, "broken_check_then_insert.py")
SCHEMA_PATH = os.path.join(HERE, "..", "..", "v1.schema.json")

try:
    import jsonschema
    with open(SCHEMA_PATH) as schema_file:
        SCHEMA = json.load(schema_file)
except (ImportError, OSError):  # no jsonschema or no schema: the tests run unvalidated
    jsonschema = None


VALIDATORS = {}


def validate(definition, instance):
    """Raises jsonschema.ValidationError unless `instance` is a valid `definition`."""
    if jsonschema is None:
        return
    if definition not in VALIDATORS:
        VALIDATORS[definition] = jsonschema.Draft7Validator(
            {**SCHEMA, "$ref": f"#/definitions/{definition}"})
    VALIDATORS[definition].validate(instance)


def b64(data: bytes) -> dict:
    return {"base64": base64.b64encode(data).decode()}


def wire_bytes(value) -> bytes:
    return value.encode() if isinstance(value, str) else base64.b64decode(value["base64"])


def request(seq=1, source="ann", target="bob", content="@bob hi", desk="eng", root=None, hop=1):
    return {"key": {"trigger_sequence": seq}, "source_id": source, "target_id": target,
            "content": content, "conversation": {"desk_id": desk, "thread_root": root},
            "child_hop": hop}


def reply(seq=1, author="ann", content="@bob hi", desk="eng", root=None, hop=0):
    return {"conversation": {"desk_id": desk, "thread_root": root}, "sequence": seq,
            "author_id": author, "content": content, "hop": hop}


class Process:
    """One adapter process: send a request, read its answer (and any hook calls)."""

    def __init__(self, test, script, db):
        self.test = test
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, script, db], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr,
                                     env={**os.environ, "THM_PROTOCOL": "1"})
        self.next_id = 0
        test.addCleanup(self.close)

    def write(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def read(self):
        line = self.proc.stdout.readline()
        if not line:
            self.stderr.seek(0)
            self.test.fail(f"adapter exited; stderr:\n{self.stderr.read().decode()[-2000:]}")
        return json.loads(line)

    def send(self, op, **arguments):
        self.next_id += 1
        message = {"id": self.next_id, "op": op, **arguments}
        validate(f"request.{op}", message)
        self.write(message)
        return self.next_id

    def answer(self, op, expect_id):
        response = self.read()
        validate("response", response)
        self.test.assertEqual(response["id"], expect_id)
        if "result" in response:
            validate(f"result.{op}", response["result"])
        return response

    def call(self, op, **arguments):
        """The result of `op`; fails the test on `unsupported` or `failure`."""
        response = self.answer(op, self.send(op, **arguments))
        self.test.assertIn("result", response, response)
        return response["result"]

    def hook_call(self):
        message = self.read()
        validate("hook_call", message)
        return message

    def reply_hook(self, number, proceed=True):
        message = {"hook_reply": number, "proceed": proceed}
        validate("hook_reply", message)
        self.write(message)

    def close(self):
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.stderr.close()


class AdapterTest(unittest.TestCase):
    script = ADAPTER

    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.db = os.path.join(directory.name, "queue.db")
        self.harness = self.start()
        self.harness.call("reset")

    def start(self, script=None):
        process = Process(self, script or self.script, self.db)
        hello = process.call("hello", protocol=1)
        self.assertEqual(hello["sessions"], "processes")
        return process

    def session(self, script=None):
        process = self.start(script)
        self.assertEqual(process.call("open_session"), {})
        return process

    def ready(self, **reply_args):
        """One committed reply, dispatch on, bob available."""
        self.harness.call("commit_reply", reply=reply(**reply_args))
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 3})
        self.harness.call("set_available", agent_id="bob", available=True)

    def enqueue(self, session, **request_args):
        return session.call("enqueue_once", request=request(**request_args))

    def counts(self):
        return (len(self.harness.call("records")["records"]),
                len(self.harness.call("children")["children"]))

    # ---- the handshake ----

    def test_hello_declares_capabilities(self):
        hello = self.harness.call("hello", protocol=1)
        self.assertEqual(hello["protocol"], 1)
        self.assertEqual(hello["capabilities"], {
            "hooks": True, "row_locking": True, "persistent": True, "sql_schema": True,
            "leases": True, "injected_store_clock": False, "skewable_client_clock": False,
            "max_content_bytes": 1 << 20, "max_id_bytes": 1024, "max_attempts": 3})

    def test_other_protocol_version_is_a_failure(self):
        self.harness.write({"id": 99, "op": "hello", "protocol": 2})
        self.assertIn("failure", self.harness.answer("hello", 99))

    def test_undeclared_and_unknown_operations_are_unsupported(self):
        for op, arguments in (("advance_store_clock", {"by": 10}), ("teleport", {})):
            self.harness.write({"id": 50, "op": op, **arguments})
            response = self.harness.answer(op, 50)
            self.assertIn("unsupported", response)

    def test_node_operations_are_unsupported_without_nodes(self):
        # One SQLite file is one node: every node operation answers `unsupported` (EQ-24),
        # naming the capability it needs.
        for op, arguments in (("node_count", {}), ("leader", {}), ("kill_node", {"node": 0}),
                              ("restart_node", {"node": 0}), ("pause_node", {"node": 1}),
                              ("resume_node", {"node": 1}), ("recover", {})):
            response = self.harness.answer(op, self.harness.send(op, **arguments))
            self.assertIn("nodes", response.get("unsupported", ""), response)

    def test_bad_request_is_a_failure_and_the_process_goes_on(self):
        self.harness.write({"id": 7, "op": "enqueue_once"})
        self.assertIn("failure", self.harness.answer("enqueue_once", 7))
        self.harness.proc.stdin.write(b"not json\n")  # logged to stderr, never answered
        self.harness.write({"id": 8, "op": "records"})
        self.assertEqual(self.harness.answer("records", 8)["result"], {"records": []})

    def test_stdin_eof_exits_zero(self):
        self.harness.proc.stdin.close()
        self.assertEqual(self.harness.proc.wait(timeout=10), 0)

    # ---- enqueue ----

    def test_enqueued_then_already(self):
        self.ready()
        session = self.session()
        self.assertEqual(self.enqueue(session), {"outcome": {"status": "enqueued"}})
        self.assertEqual(self.enqueue(session), {"outcome": {"status": "already"}})
        records = self.harness.call("records")["records"]
        children = self.harness.call("children")["children"]
        self.assertEqual(records, [{"key": "v1/3:eng/c/1", "child_id": children[0]["id"]}])
        self.assertEqual(children[0]["request"], request())
        self.assertEqual((children[0]["state"], children[0]["attempts"]), ("pending", 0))
        self.assertIsNone(children[0]["lease_expires_at"])
        self.assertEqual(session.call("close_session"), {})

    def test_mismatch_and_missing_write_nothing(self):
        self.ready()
        session = self.session()
        for args, kind in (({"content": "@bob HI"}, "trigger_mismatch"),
                           ({"source": "cat"}, "trigger_mismatch"),
                           ({"hop": 2}, "trigger_mismatch"),
                           ({"seq": 2}, "trigger_missing"),
                           ({"root": 1}, "trigger_missing")):
            result = self.enqueue(session, **args)
            self.assertEqual(result["queue_error"]["kind"], kind, args)
        self.assertEqual(self.counts(), (0, 0))
        # Validation comes before idempotency: a mismatching duplicate is never Already.
        self.enqueue(session)
        self.assertEqual(self.enqueue(session, content="x")["queue_error"]["kind"],
                         "trigger_mismatch")

    def test_refusals_write_nothing_and_are_evaluated_again(self):
        self.ready()
        session = self.session()
        self.harness.call("set_authorized", source_id="ann", target_id="bob", authorized=False)
        self.assertEqual(self.enqueue(session)["outcome"],
                         {"status": "refused", "reason": "unauthorized"})
        self.harness.call("set_authorized", source_id="ann", target_id="bob", authorized=True)
        self.harness.call("set_available", agent_id="bob", available=False)
        self.assertEqual(self.enqueue(session)["outcome"]["reason"], "target_unavailable")
        self.harness.call("set_available", agent_id="bob", available=True)
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 0})
        self.assertEqual(self.enqueue(session)["outcome"]["reason"], "feature_disabled")
        self.harness.call("set_policy", policy={"enabled": False, "max_hops": 3})
        self.assertEqual(self.enqueue(session)["outcome"]["reason"], "feature_disabled")
        self.assertEqual(self.counts(), (0, 0))
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 3})
        self.assertEqual(self.enqueue(session)["outcome"]["status"], "enqueued")

    def test_limits_are_invalid_request(self):
        big = "x" * ((1 << 20) + 1)
        self.ready(content=big)
        session = self.session()
        self.assertEqual(self.enqueue(session, content=big)["queue_error"]["kind"],
                         "invalid_request")
        self.assertEqual(self.enqueue(session, target="b" * 1025)["queue_error"]["kind"],
                         "invalid_request")
        self.assertEqual(self.counts(), (0, 0))

    def test_general_spellings_share_one_key(self):
        self.ready(desk="main")
        session = self.session()
        self.assertEqual(self.enqueue(session, desk="GENERAL")["outcome"]["status"], "enqueued")
        self.assertEqual(self.enqueue(session, desk="")["outcome"]["status"], "already")
        self.assertEqual(self.harness.call("records")["records"][0]["key"], "v1/7:General/c/1")

    def test_bytes_round_trip_exactly(self):
        desk, content, source = b"d\x00\xff", b"\xc3\x28 hi\x00", "\u00e9ve\x00"
        self.harness.call("commit_reply", reply=reply(desk=b64(desk), content=b64(content),
                                                      author=source, seq=(1 << 64) - 1, root=7))
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 3})
        self.harness.call("set_available", agent_id=b64(b"bob"), available=True)
        session = self.session()
        sent = request(desk=b64(desk), content=b64(content), source=b64(source.encode()),
                       seq=(1 << 64) - 1, root=7)
        self.assertEqual(session.call("enqueue_once", request=sent)["outcome"]["status"],
                         "enqueued")
        [child] = self.harness.call("children")["children"]
        got = child["request"]
        self.assertEqual(wire_bytes(got["conversation"]["desk_id"]), desk)
        self.assertEqual(got["content"], b64(content))  # invalid UTF-8 comes back as base64
        self.assertEqual(got["source_id"], source)  # valid UTF-8 comes back as a string
        self.assertEqual(got["key"]["trigger_sequence"], (1 << 64) - 1)
        self.assertEqual(got["conversation"]["thread_root"], 7)
        key = b"v1/3:d\x00\xff/t7/18446744073709551615"
        self.assertEqual(wire_bytes(child["key"]), key)
        self.assertEqual(wire_bytes(self.harness.call("records")["records"][0]["key"]), key)

    # ---- leases ----

    def test_claim_renew_complete_fail(self):
        self.ready()
        self.harness.call("commit_reply", reply=reply(seq=2))
        session = self.session()
        self.enqueue(session)
        self.enqueue(session, seq=2)
        before = self.harness.call("store_now")["now"]
        lease = session.call("claim", duration=60_000)["lease"]
        self.assertEqual((lease["attempt"], lease["request"]), (1, request()))
        self.assertLessEqual(abs(lease["expires_at"] - before - 60_000), 1_000)
        self.assertEqual(session.call("claim", duration=0), {"lease_error": "invalid_duration"})
        renewed = session.call("renew", token=lease["token"], duration=120_000)["expires_at"]
        child = self.harness.call("children")["children"][0]
        self.assertEqual((child["attempts"], child["lease_expires_at"]), (1, renewed))
        self.assertEqual(session.call("complete", token=lease["token"]), {"state": "completed"})
        self.assertEqual(session.call("complete", token=lease["token"]),
                         {"lease_error": "stale_token"})
        second = session.call("claim", duration=60_000)["lease"]
        self.assertEqual(session.call("fail", token=second["token"]), {"state": "pending"})
        for attempt in (2, 3):
            again = session.call("claim", duration=60_000)["lease"]
            self.assertEqual(again["attempt"], attempt)
            session.call("fail", token=again["token"])
        self.assertIsNone(session.call("claim", duration=60_000)["lease"])
        self.assertEqual([c["state"] for c in self.harness.call("children")["children"]],
                         ["completed", "failed"])

    # ---- lifetime, persistence, schema ----

    def test_records_outlive_children(self):
        self.ready()
        session = self.session()
        self.enqueue(session)
        child_id = self.harness.call("children")["children"][0]["id"]
        self.harness.call("settle", child_id=child_id, how="complete")
        self.harness.call("run_maintenance")
        self.assertEqual(self.counts(), (1, 0))
        self.assertEqual(self.enqueue(session)["outcome"]["status"], "already")
        response = self.harness.answer("settle", self.harness.send("settle", child_id=child_id,
                                                                   how="delete"))
        self.assertIn("failure", response)  # no such child any more

    def test_delete_removes_the_child_only(self):
        self.ready()
        session = self.session()
        self.enqueue(session)
        child_id = self.harness.call("children")["children"][0]["id"]
        self.harness.call("settle", child_id=child_id, how="delete")
        self.assertEqual(self.counts(), (1, 0))

    def test_reopen_restart_and_schema(self):
        self.ready()
        self.enqueue(self.session())
        self.assertEqual(self.harness.call("restart_store"), {})
        self.assertEqual(self.harness.call("reopen"), {})
        self.assertEqual(self.counts(), (1, 1))
        self.assertEqual(self.harness.call("unique_key_index")["index"],
                         {"columns": ["turn_key"], "partial": False})
        self.harness.call("reset")
        self.assertEqual(self.counts(), (0, 0))

    # ---- hooks ----

    def hooked_enqueue(self, session, fail_at=None):
        """Enqueues with hooks installed, answering each hook call; the points seen and the
        result."""
        sent = session.send("enqueue_once", request=request())
        points, numbers = [], set()
        while True:
            message = session.read()
            if "hook" not in message:
                break
            validate("hook_call", message)
            self.assertNotIn(message["hook"], numbers)
            numbers.add(message["hook"])
            points.append(message["point"])
            session.reply_hook(message["hook"], proceed=message["point"] != fail_at)
            if message["point"] == fail_at:
                message = session.read()
                break
        validate("response", message)
        self.assertEqual(message["id"], sent)
        validate("result.enqueue_once", message["result"])
        return points, message["result"]

    def test_hooks_six_points_in_order(self):
        self.ready()
        session = self.session()  # opened before the hook: the suite tells it too
        for process in (self.harness, session):
            process.call("set_hook", installed=True)
        points, result = self.hooked_enqueue(session)
        self.assertEqual(points, ["after_begin", "after_validate_reads",
                                  "after_idempotency_statement", "after_child_insert",
                                  "before_commit", "after_commit_before_return"])
        self.assertEqual(result, {"outcome": {"status": "enqueued"}})
        for process in (self.harness, session):
            process.call("set_hook", installed=False)
        self.assertEqual(self.enqueue(session)["outcome"]["status"], "already")

    def test_hook_false_rolls_back_or_is_indeterminate(self):
        self.ready()
        self.harness.call("set_hook", installed=True)
        session = self.session()
        session.call("set_hook", installed=True)  # as the suite does for every process
        for point in ("after_begin", "after_validate_reads", "after_idempotency_statement",
                      "after_child_insert", "before_commit"):
            points, result = self.hooked_enqueue(session, fail_at=point)
            self.assertEqual(points[-1], point)
            self.assertEqual(result["queue_error"]["kind"], "unavailable")
            self.assertEqual(self.counts(), (0, 0))
        points, result = self.hooked_enqueue(session, fail_at="after_commit_before_return")
        self.assertEqual(result["queue_error"]["kind"], "indeterminate")
        self.assertEqual(self.counts(), (1, 1))
        self.harness.call("reset")  # the suite closes its sessions first
        self.ready()
        self.assertEqual(self.enqueue(self.session())["outcome"]["status"], "enqueued")

    def test_killed_or_closed_inside_the_transaction_leaves_nothing(self):
        """EQ-23's kill at before_commit, and stdin closing at a hook (exit 0)."""
        self.ready()
        self.harness.call("set_hook", installed=True)
        for end in ("kill", "close"):
            session = self.session()
            session.call("set_hook", installed=True)
            session.send("enqueue_once", request=request())
            while (call := session.hook_call())["point"] != "before_commit":
                session.reply_hook(call["hook"])
            if end == "kill":
                session.proc.kill()
                session.proc.wait(timeout=10)
            else:
                session.proc.stdin.close()
                self.assertEqual(session.proc.wait(timeout=10), 0)
            self.harness.call("restart_store")
            self.harness.call("reopen")
            self.assertEqual(self.counts(), (0, 0))
        self.harness.call("set_hook", installed=False)
        self.assertEqual(self.enqueue(self.session())["outcome"]["status"], "enqueued")

    # ---- races: the real adapter vs the broken one ----

    def race(self, script, tries):
        """Two session processes enqueue one key at once, up to `tries` times; the largest
        number of children any one key got (stops at the first duplicate)."""
        worst = 0
        sessions = [self.session(script), self.session(script)]
        for attempt in range(tries):
            self.harness.call("commit_reply", reply=reply(seq=attempt + 1))
            barrier = threading.Barrier(2)
            results = [None, None]

            def run(index):
                barrier.wait()
                results[index] = self.enqueue(sessions[index], seq=attempt + 1)

            threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            children = [c for c in self.harness.call("children")["children"]
                        if c["request"]["key"]["trigger_sequence"] == attempt + 1]
            worst = max(worst, len(children))
            if worst > 1:
                print(f"duplicate after {attempt + 1} races", file=sys.stderr)
                break
        return worst

    def test_race_real_adapter_never_duplicates(self):
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 3})
        self.harness.call("set_available", agent_id="bob", available=True)
        self.assertEqual(self.race(ADAPTER, tries=25), 1)

    def test_race_broken_adapter_duplicates(self):
        broken = self.start(BROKEN)
        broken.call("reset")  # the broken schema: no unique index
        self.assertIsNone(broken.call("unique_key_index")["index"])
        self.harness = broken
        self.harness.call("set_policy", policy={"enabled": True, "max_hops": 3})
        self.harness.call("set_available", agent_id="bob", available=True)
        self.assertGreaterEqual(self.race(BROKEN, tries=100), 2)

    def test_broken_adapter_duplicates_deterministically_with_a_paused_caller(self):
        broken = self.start(BROKEN)
        self.harness = broken
        self.ready()
        first, second = self.session(BROKEN), self.session(BROKEN)
        for process in (broken, first, second):
            process.call("set_hook", installed=True)
        sent_first = first.send("enqueue_once", request=request())
        pause = first.hook_call()  # after_begin: the first caller holds the write lock
        sent_second = second.send("enqueue_once", request=request())
        # The second caller has checked (no record) and now waits for the lock; let the
        # first one finish.
        time.sleep(0.3)
        first.reply_hook(pause["hook"])
        for _ in range(5):
            first.reply_hook(first.hook_call()["hook"])
        self.assertEqual(first.answer("enqueue_once", sent_first)["result"]["outcome"],
                         {"status": "enqueued"})
        for _ in range(6):
            second.reply_hook(second.hook_call()["hook"])
        self.assertEqual(second.answer("enqueue_once", sent_second)["result"]["outcome"],
                         {"status": "enqueued"})
        self.assertEqual(self.counts(), (2, 2))


if __name__ == "__main__":
    unittest.main()
