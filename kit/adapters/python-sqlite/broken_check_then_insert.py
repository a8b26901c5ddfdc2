#!/usr/bin/env python3
"""A deliberately broken adapter: idempotency by check-then-insert (mutant M1).

    python3 broken_check_then_insert.py DATABASE_PATH

Everything is `adapter.py`'s except the idempotency decision. The record is looked up by
a SELECT in its own (autocommit) transaction *before* `BEGIN IMMEDIATE`, then inserted
inside the enqueue transaction by a plain INSERT, and the idempotency table has no UNIQUE
index on the key. Two sessions can both see "no record" and both insert: two children for
one key. The conformance suite must catch it: EQ-01 (races, intermittently), EQ-02 (a
caller paused before commit, deterministically) and EQ-04 (the schema has no unique index).

It declares its capabilities honestly, `sql_schema` included, and `unique_key_index`
answers null: the suite fails it on what it finds, not on what it is told.
"""
import sys

import adapter

UNIQUE_INDEX = ("CREATE UNIQUE INDEX IF NOT EXISTS thm_idempotency_turn_key"
                " ON thm_idempotency (turn_key);")


class CheckThenInsertQueue(adapter.SqliteQueue):
    def schema(self) -> str:
        # The bug's schema: no unique index on the key (dropped if an earlier run made one).
        assert UNIQUE_INDEX in adapter.SCHEMA
        return adapter.SCHEMA.replace(UNIQUE_INDEX,
                                      "DROP INDEX IF EXISTS thm_idempotency_turn_key;")

    def enqueue_once(self, request, hook=lambda point: True):
        # The check: its own transaction, before the enqueue transaction takes the lock.
        key = adapter.turn_key(request["desk_id"], request["thread_root"], request["sequence"])
        self.seen = self.conn.execute("SELECT 1 FROM thm_idempotency WHERE turn_key = ?",
                                      (key,)).fetchone() is not None
        return super().enqueue_once(request, hook)

    def insert_record(self, key):
        # The insert, trusting the earlier check.
        if self.seen:
            return None
        return self.conn.execute("INSERT INTO thm_idempotency (turn_key) VALUES (?)"
                                 " RETURNING id", (key,)).fetchall()[0][0]


class CheckThenInsertAdapter(adapter.Adapter):
    name = "python-sqlite-broken-check-then-insert"
    queue_class = CheckThenInsertQueue


if __name__ == "__main__":
    sys.exit(adapter.main(CheckThenInsertAdapter))
