#!/usr/bin/env python3
"""The Python reference adapter of the conformance protocol, version 1 (kit/protocol/PROTOCOL.md).

    python3 adapter.py DATABASE_PATH

A host queue on SQLite, and the small program that lets `thm conformance --queue
'exec:python3 adapter.py /tmp/q.db'` drive it. Standard library only. It mirrors the C++
SQLite reference queue (kit/stores/sqlite: the same tables, the same statements), so a host
copying it starts from a queue the suite already passes.

Two parts, on the protocol's Python SDK (kit/protocol/python/thm_protocol.py: the wire
forms, the answers and the session loop):

1. `SqliteQueue`: the host's queue. `enqueue_once` is one `BEGIN IMMEDIATE` transaction:
   re-read and verify the committed reply, revalidate the policy, authorization and
   availability, then decide with `INSERT ... ON CONFLICT DO NOTHING RETURNING` on a
   UNIQUE key; anything but Enqueued rolls back. Leases are computed on SQLite's clock.
   This is the part a host replaces with its own store.
2. `Adapter`: the protocol's operations on that queue. Sessions are processes
   (`"sessions": "processes"`): every process reads one request, answers it and reads the
   next, over its own connection.

Whether hooks are installed is each process's own state: in processes mode the suite sends
`set_hook` to every process, session processes included (PROTOCOL.md §3).

Logs go to stderr; stdout carries protocol messages only.
"""
from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "protocol" / "python"))
import thm_protocol  # noqa: E402 (after the path)
from thm_protocol import (LeaseError, QueueError, from_wire, request_from_wire,  # noqa: E402
                          serve_stdio, to_wire, turn_key)

MAX_CONTENT_BYTES = 1 << 20  # a larger request is invalid_request, and nothing is written
MAX_ID_BYTES = 1024  # source, target and desk id each
MAX_ATTEMPTS = 3  # claims a child may receive; then it is dead
# How long a statement waits for another connection's write lock before answering
# `unavailable`: below the suite's default --exec-timeout of 30 s, so the suite gets an answer.
BUSY_TIMEOUT_S = 20.0
# SQLite's clock in milliseconds since the Unix epoch (3.40 has no unixepoch('subsec')).
NOW = "CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)"

# kit/stores/sqlite/schema.sql: ids and content are BLOBs, kept byte for byte.
SCHEMA = """
CREATE TABLE IF NOT EXISTS thm_reply (turn_key BLOB PRIMARY KEY, author_id BLOB NOT NULL,
  content BLOB NOT NULL, hop INTEGER NOT NULL CHECK (hop >= 0));
CREATE TABLE IF NOT EXISTS thm_policy (id INTEGER PRIMARY KEY CHECK (id = 1),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  max_hops INTEGER NOT NULL CHECK (max_hops >= 0));
CREATE TABLE IF NOT EXISTS thm_forbidden_pair (source_id BLOB NOT NULL,
  target_id BLOB NOT NULL, PRIMARY KEY (source_id, target_id));
CREATE TABLE IF NOT EXISTS thm_available_agent (agent_id BLOB PRIMARY KEY);
-- One record per admitted key, kept when its child goes; its id is the child's id.
CREATE TABLE IF NOT EXISTS thm_idempotency (id INTEGER PRIMARY KEY, turn_key BLOB NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS thm_idempotency_turn_key ON thm_idempotency (turn_key);
CREATE TABLE IF NOT EXISTS thm_child_turn (id INTEGER PRIMARY KEY, turn_key BLOB NOT NULL,
  desk_id BLOB NOT NULL, thread_root INTEGER, trigger_sequence INTEGER NOT NULL,
  source_id BLOB NOT NULL, target_id BLOB NOT NULL, content BLOB NOT NULL,
  child_hop INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'pending'
  CHECK (state IN ('pending', 'completed', 'failed', 'dead')),
  attempts INTEGER NOT NULL DEFAULT 0, lease_token TEXT, lease_expires_at INTEGER);
CREATE INDEX IF NOT EXISTS thm_child_turn_claimable ON thm_child_turn (state, lease_expires_at);
CREATE UNIQUE INDEX IF NOT EXISTS thm_child_turn_lease ON thm_child_turn (lease_token);
"""
TABLES = ("thm_reply", "thm_policy", "thm_forbidden_pair", "thm_available_agent",
          "thm_idempotency", "thm_child_turn")

# ---- wire forms in SQLite's columns --------------------------------------------------------


def to_i64(u64: int) -> int:  # sequences are u64, SQLite integers i64 (two's complement)
    return u64 - (1 << 64) if u64 >= 1 << 63 else u64


def to_u64(i64: int) -> int:
    return i64 & ((1 << 64) - 1)


def request_to_wire(row) -> dict:
    """A request from the columns desk_id, thread_root, trigger_sequence, source_id,
    target_id, content, child_hop (in that order)."""
    desk, root, sequence, source, target, content, hop = row
    return {"key": {"trigger_sequence": to_u64(sequence)}, "source_id": to_wire(source),
            "target_id": to_wire(target), "content": to_wire(content),
            "conversation": {"desk_id": to_wire(desk),
                             "thread_root": None if root is None else to_u64(root)},
            "child_hop": hop}


REQUEST_COLUMNS = ("desk_id, thread_root, trigger_sequence, source_id, target_id, content,"
                   " child_hop")

# ---- 1. the host queue -----------------------------------------------------------------------


def store_error(error: sqlite3.Error, what: str) -> QueueError:
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return QueueError("unavailable", f"the database stayed locked while {what}: {error}")
    return QueueError("internal", f"SQLite error while {what}: {error}")


class SqliteQueue:
    """The host queue over one connection (kit/stores/sqlite/thm/sqlite/sqlite_queue.cpp)."""

    def __init__(self, path: str):
        self.path = path
        self.conn = self.connect()

    def schema(self) -> str:
        return SCHEMA

    def connect(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions; every BEGIN here is explicit.
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode != "wal":
            raise RuntimeError(f"{self.path} cannot use WAL mode (it reports {mode!r})")
        conn.execute("PRAGMA synchronous=FULL")  # an acknowledged commit survives power loss
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > 1:
            raise RuntimeError(f"{self.path} has thm schema version {version}; this knows 1")
        try:  # idempotent, and serialised with every other process applying it
            conn.executescript(f"BEGIN IMMEDIATE; {self.schema()} PRAGMA user_version = 1; COMMIT;")
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        return conn

    def reopen(self) -> None:
        self.conn.close()
        self.conn = self.connect()

    def rollback_if_open(self) -> None:
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error as error:
                print(f"rollback failed: {error}", file=sys.stderr)

    # ---- enqueue (SPEC §4's transaction) ----

    def enqueue_once(self, request: dict, hook=lambda point: True) -> dict:
        """The outcome ({"status": ...}); raises QueueError. `hook(point)` false fails there."""
        if len(request["content"]) > MAX_CONTENT_BYTES:
            raise QueueError("invalid_request", f"content is longer than the store's limit of "
                                                 f"{MAX_CONTENT_BYTES} bytes")
        if max(len(request[k]) for k in ("source_id", "target_id", "desk_id")) > MAX_ID_BYTES:
            raise QueueError("invalid_request",
                             f"an id is longer than the store's limit of {MAX_ID_BYTES} bytes")
        key = turn_key(request["desk_id"], request["thread_root"], request["sequence"])
        quoted = key.decode("utf-8", "backslashreplace")

        def passes(point: str) -> None:
            if not hook(point):
                raise QueueError("unavailable", f"the step was rolled back at {point}")

        try:
            self.conn.execute("BEGIN IMMEDIATE")  # one writer at a time, from here to COMMIT
            passes("after_begin")
            reply = self.conn.execute("SELECT author_id, content, hop FROM thm_reply"
                                      " WHERE turn_key = ?", (key,)).fetchone()
            if reply is None:
                raise QueueError("trigger_missing", f"no committed reply under key {quoted}")
            self.verify_trigger(request, reply, quoted)
            refusal = self.refusal(request)
            if refusal:
                return {"status": "refused", "reason": refusal}
            passes("after_validate_reads")
            child_id = self.insert_record(key)
            if child_id is None:
                return {"status": "already"}
            passes("after_idempotency_statement")
            self.conn.execute(
                f"INSERT INTO thm_child_turn (id, turn_key, {REQUEST_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (child_id, key, request["desk_id"],
                 None if request["thread_root"] is None else to_i64(request["thread_root"]),
                 to_i64(request["sequence"]), request["source_id"], request["target_id"],
                 request["content"], request["child_hop"]))
            passes("after_child_insert")
            passes("before_commit")
            try:
                self.conn.execute("COMMIT")
            except sqlite3.Error as error:
                failed = store_error(error, "committing")
                if failed.kind != "unavailable":
                    failed.kind = "indeterminate"
                raise failed from error
            if not hook("after_commit_before_return"):
                raise QueueError("indeterminate", "the answer was lost after commit")
            return {"status": "enqueued"}
        except sqlite3.Error as error:
            raise store_error(error, "enqueueing") from error
        finally:
            self.rollback_if_open()  # every path but Enqueued writes nothing

    @staticmethod
    def verify_trigger(request: dict, reply, quoted: str) -> None:
        """`thm::trigger_mismatch`: source, content, then child hop (the stored hop + 1)."""
        author, content, hop = reply
        for what, differs in (("source", author != request["source_id"]),
                              ("content", content != request["content"]),
                              ("child hop", not 0 <= hop < 0xFFFFFFFF
                               or request["child_hop"] != hop + 1)):
            if differs:
                raise QueueError("trigger_mismatch", f"the request's {what} differs from the"
                                                     f" committed reply under key {quoted}")

    def refusal(self, request: dict) -> str | None:
        """Live policy, the pair's authorization, the target's availability, read in the
        transaction; None when the request may go on."""
        enabled, forbidden, available = self.conn.execute(
            "SELECT (SELECT enabled AND ? <= max_hops FROM thm_policy WHERE id = 1),"
            " EXISTS (SELECT 1 FROM thm_forbidden_pair WHERE source_id = ? AND target_id = ?),"
            " EXISTS (SELECT 1 FROM thm_available_agent WHERE agent_id = ?)",
            (request["child_hop"], request["source_id"], request["target_id"],
             request["target_id"])).fetchone()
        if not enabled:  # no policy row, disabled, or child_hop > max_hops
            return "feature_disabled"
        if forbidden:
            return "unauthorized"
        if not available:
            return "target_unavailable"
        return None

    def insert_record(self, key: bytes) -> int | None:
        """The decision, in one statement on the UNIQUE key: the new record's id, or None
        when a committed record already holds the key."""
        row = self.conn.execute("INSERT INTO thm_idempotency (turn_key) VALUES (?)"
                                " ON CONFLICT (turn_key) DO NOTHING RETURNING id",
                                (key,)).fetchall()
        return row[0][0] if row else None

    # ---- the host's writes, each committed before it returns ----

    def commit_reply(self, key: bytes, author_id: bytes, content: bytes, hop: int) -> None:
        """Stores, or for the same key edits, the committed reply an enqueue verifies."""
        self.conn.execute("INSERT INTO thm_reply (turn_key, author_id, content, hop)"
                          " VALUES (?, ?, ?, ?) ON CONFLICT (turn_key) DO UPDATE SET"
                          " author_id = excluded.author_id, content = excluded.content,"
                          " hop = excluded.hop", (key, author_id, content, hop))

    def set_policy(self, enabled: bool, max_hops: int) -> None:
        self.conn.execute("INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, ?, ?)"
                          " ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled,"
                          " max_hops = excluded.max_hops", (int(enabled), max_hops))

    def set_authorized(self, source: bytes, target: bytes, authorized: bool) -> None:
        self.conn.execute("DELETE FROM thm_forbidden_pair WHERE source_id = ? AND target_id = ?"
                          if authorized else "INSERT OR IGNORE INTO thm_forbidden_pair"
                          " (source_id, target_id) VALUES (?, ?)", (source, target))

    def set_available(self, agent: bytes, available: bool) -> None:
        self.conn.execute("INSERT OR IGNORE INTO thm_available_agent (agent_id) VALUES (?)"
                          if available else "DELETE FROM thm_available_agent WHERE agent_id = ?",
                          (agent,))

    # ---- leases: durations in, expiries computed on SQLite's clock ----

    def claim(self, duration: int) -> dict | None:
        if duration <= 0:
            raise LeaseError("invalid_duration")
        try:
            self.conn.execute("BEGIN IMMEDIATE")  # the two statements are one step
            self.conn.execute(f"UPDATE thm_child_turn SET state = 'dead' WHERE state = 'pending'"
                              f" AND attempts >= ? AND (lease_expires_at IS NULL"
                              f" OR lease_expires_at <= {NOW})", (MAX_ATTEMPTS,))
            rows = self.conn.execute(
                f"UPDATE thm_child_turn SET attempts = attempts + 1,"
                f" lease_token = lower(hex(randomblob(16))), lease_expires_at = {NOW} + ?"
                f" WHERE id = (SELECT id FROM thm_child_turn WHERE state = 'pending'"
                f" AND attempts < ? AND (lease_expires_at IS NULL OR lease_expires_at <= {NOW})"
                f" ORDER BY id LIMIT 1)"
                f" RETURNING id, lease_token, lease_expires_at, attempts, {REQUEST_COLUMNS}",
                (duration, MAX_ATTEMPTS)).fetchall()
            self.conn.execute("COMMIT")
        except sqlite3.Error as error:
            print(f"claim: {error}", file=sys.stderr)
            raise LeaseError("unavailable") from error
        finally:
            self.rollback_if_open()
        if not rows:
            return None
        child_id, token, expires_at, attempt, *request = rows[0]
        return {"child_id": child_id, "token": token, "expires_at": expires_at,
                "attempt": attempt, "request": request_to_wire(request)}

    def lease_step(self, sql: str, parameters: tuple):
        """One statement on the live lease, RETURNING one value; stale_token when no row."""
        try:
            rows = self.conn.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            print(f"lease: {error}", file=sys.stderr)
            raise LeaseError("unavailable") from error
        if not rows:
            raise LeaseError("stale_token")
        return rows[0][0]

    LIVE = f" WHERE lease_token = ? AND state = 'pending' AND lease_expires_at > {NOW}"

    def renew(self, token: str, duration: int) -> int:
        if duration <= 0:
            raise LeaseError("invalid_duration")
        return self.lease_step(f"UPDATE thm_child_turn SET lease_expires_at = {NOW} + ?"
                              f"{self.LIVE} RETURNING lease_expires_at", (duration, token))

    def complete(self, token: str) -> str:
        return self.lease_step(f"UPDATE thm_child_turn SET state = 'completed', lease_token = NULL"
                              f"{self.LIVE} RETURNING state", (token,))

    def fail(self, token: str) -> str:
        return self.lease_step(f"UPDATE thm_child_turn SET lease_token = NULL,"
                              f" lease_expires_at = NULL, state = CASE WHEN attempts >= ?"
                              f" THEN 'failed' ELSE 'pending' END{self.LIVE} RETURNING state",
                              (MAX_ATTEMPTS, token))

    def now(self) -> int:
        return self.conn.execute(f"SELECT {NOW}").fetchone()[0]

    # ---- lifecycle and inspection ----

    def settle(self, child_id: int, how: str) -> None:
        if how == "delete":  # the child only: its record stays
            cursor = self.conn.execute("DELETE FROM thm_child_turn WHERE id = ?", (child_id,))
        else:
            state = {"complete": "completed", "fail": "failed", "dead_letter": "dead"}[how]
            cursor = self.conn.execute("UPDATE thm_child_turn SET state = ?, lease_token = NULL"
                                       " WHERE id = ?", (state, child_id))
        if cursor.rowcount == 0:
            raise LookupError(f"no child turn with id {child_id}")

    def prune(self) -> None:  # settled children go; their records stay
        self.conn.execute("DELETE FROM thm_child_turn WHERE state <> 'pending'")

    def clear(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            for table in TABLES:
                self.conn.execute(f"DELETE FROM {table}")
            self.conn.execute("COMMIT")
        finally:
            self.rollback_if_open()

    def records(self) -> list:
        rows = self.conn.execute("SELECT turn_key, id FROM thm_idempotency ORDER BY id")
        return [{"key": to_wire(key), "child_id": child_id} for key, child_id in rows]

    def children(self) -> list:
        rows = self.conn.execute(f"SELECT id, turn_key, state, attempts, lease_expires_at,"
                                 f" {REQUEST_COLUMNS} FROM thm_child_turn ORDER BY id")
        return [{"id": child_id, "key": to_wire(key), "state": state, "attempts": attempts,
                 "lease_expires_at": expires_at, "request": request_to_wire(request)}
                for child_id, key, state, attempts, expires_at, *request in rows]

    def unique_key_index(self) -> dict | None:
        """The first unique index of the idempotency table, from SQLite's own catalog."""
        for name, unique, partial in self.conn.execute(
                "SELECT name, \"unique\", partial FROM pragma_index_list('thm_idempotency')"):
            if unique:
                columns = [column for (column,) in self.conn.execute(
                    "SELECT name FROM pragma_index_info(?) ORDER BY seqno", (name,))]
                return {"columns": columns, "partial": bool(partial)}
        return None

# ---- 2. the protocol's operations on it -------------------------------------------------------


class Adapter(thm_protocol.Adapter):
    name = "python-sqlite"
    queue_class = SqliteQueue
    capabilities = {"hooks": True, "row_locking": True, "persistent": True, "sql_schema": True,
                    "leases": True, "injected_store_clock": False,
                    "skewable_client_clock": False, "max_content_bytes": MAX_CONTENT_BYTES,
                    "max_id_bytes": MAX_ID_BYTES, "max_attempts": MAX_ATTEMPTS}
    def __init__(self, path: str, stdin, stdout):
        super().__init__(stdin, stdout)
        self.path = path

    def open_queue(self):
        return self.queue_class(self.path)

    def op_enqueue_once(self, message):
        request = request_from_wire(message["request"])
        hook = self.hook if self.hooked else (lambda point: True)
        return {"outcome": self.queue.enqueue_once(request, hook)}

    def op_claim(self, message):
        return {"lease": self.queue.claim(int(message["duration"]))}

    def op_renew(self, message):
        return {"expires_at": self.queue.renew(message["token"], int(message["duration"]))}

    def op_complete(self, message):
        return {"state": self.queue.complete(message["token"])}

    def op_fail(self, message):
        return {"state": self.queue.fail(message["token"])}

    # ---- the harness ----

    def op_reset(self, message):
        self.op_set_hook({"installed": False})
        self.queue.clear()

    def op_commit_reply(self, message):
        reply = message["reply"]
        conversation = reply["conversation"]
        key = turn_key(from_wire(conversation["desk_id"]), conversation["thread_root"],
                       int(reply["sequence"]))
        self.queue.commit_reply(key, from_wire(reply["author_id"]), from_wire(reply["content"]),
                                int(reply["hop"]))

    def op_set_policy(self, message):
        policy = message["policy"]
        self.queue.set_policy(bool(policy["enabled"]), int(policy["max_hops"]))

    def op_set_authorized(self, message):
        self.queue.set_authorized(from_wire(message["source_id"]), from_wire(message["target_id"]),
                                  bool(message["authorized"]))

    def op_set_available(self, message):
        self.queue.set_available(from_wire(message["agent_id"]), bool(message["available"]))

    def op_settle(self, message):
        self.queue.settle(int(message["child_id"]), message["how"])

    def op_run_maintenance(self, message):
        self.queue.prune()

    def op_records(self, message):
        return {"records": self.queue.records()}

    def op_children(self, message):
        return {"children": self.queue.children()}

    def op_unique_key_index(self, message):
        return {"index": self.queue.unique_key_index()}

    def op_store_now(self, message):
        return {"now": self.queue.now()}

    def op_reopen(self, message):
        self.queue.reopen()

    def op_restart_store(self, message):
        pass  # embedded SQLite has no server; the suite sends `reopen` next


def main(adapter_class=Adapter) -> int:
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} DATABASE_PATH", file=sys.stderr)
        return 2
    return serve_stdio(lambda stdin, stdout: adapter_class(sys.argv[1], stdin, stdout))


if __name__ == "__main__":
    sys.exit(main())
