-- thm::sqlite: the reference host queue's tables (SPEC §4, queue-conformance.md §5).
-- Applied by SqliteQueue::open in one transaction; every statement is idempotent.
-- Text columns are BLOBs: ids and content are kept byte for byte (NUL, invalid UTF-8).
-- Times are milliseconds since the Unix epoch on SQLite's own clock, never a caller's.

-- Committed agent replies, under their canonical key (TurnKey::encoded(): canonical desk,
-- channel kind, trigger sequence, length-prefixed). An edit replaces the row.
CREATE TABLE IF NOT EXISTS thm_reply (
  turn_key  BLOB PRIMARY KEY,
  author_id BLOB NOT NULL,
  content   BLOB NOT NULL,
  hop       INTEGER NOT NULL CHECK (hop >= 0)
);

-- The live dispatch policy: at most one row; none means dispatch is disabled.
CREATE TABLE IF NOT EXISTS thm_policy (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  enabled  INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  max_hops INTEGER NOT NULL CHECK (max_hops >= 0)
);

-- Pairs that may not hand turns to each other (every other pair may).
CREATE TABLE IF NOT EXISTS thm_forbidden_pair (
  source_id BLOB NOT NULL,
  target_id BLOB NOT NULL,
  PRIMARY KEY (source_id, target_id)
);

-- Agents that may be handed a turn (every other agent may not).
CREATE TABLE IF NOT EXISTS thm_available_agent (
  agent_id BLOB PRIMARY KEY
);

-- One idempotency record per admitted key, kept when its child is settled or deleted.
-- The UNIQUE index below is unconditional: never partial, never on child state.
-- A record's id is also the id of the child it admitted.
CREATE TABLE IF NOT EXISTS thm_idempotency (
  id       INTEGER PRIMARY KEY,
  turn_key BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS thm_idempotency_turn_key ON thm_idempotency (turn_key);

-- Child turns: the request exactly as accepted, its state, its lease and its attempts.
CREATE TABLE IF NOT EXISTS thm_child_turn (
  id               INTEGER PRIMARY KEY,
  turn_key         BLOB NOT NULL,
  desk_id          BLOB NOT NULL,
  thread_root      INTEGER,          -- NULL: the desk's channel
  trigger_sequence INTEGER NOT NULL, -- the u64 sequence, stored as its two's-complement i64
  source_id        BLOB NOT NULL,
  target_id        BLOB NOT NULL,
  content          BLOB NOT NULL,
  child_hop        INTEGER NOT NULL,
  state            TEXT NOT NULL DEFAULT 'pending'
                   CHECK (state IN ('pending', 'completed', 'failed', 'dead')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  lease_token      TEXT,
  lease_expires_at INTEGER
);
CREATE INDEX IF NOT EXISTS thm_child_turn_claimable ON thm_child_turn (state, lease_expires_at);
CREATE UNIQUE INDEX IF NOT EXISTS thm_child_turn_lease ON thm_child_turn (lease_token);
