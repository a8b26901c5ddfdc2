-- thm::postgres: the reference host queue's tables (SPEC §4, queue-conformance.md §5).
-- Applied by PostgresQueue::open in one transaction under an advisory lock; every statement
-- is idempotent. Ids, keys and content are BYTEA: kept byte for byte (NUL, invalid UTF-8).
-- Times are milliseconds since the Unix epoch from the server's clock, taken at the start
-- of the statement that uses them (statement_timestamp()), never from a client.

CREATE TABLE IF NOT EXISTS thm_schema (
  version INTEGER NOT NULL
);

-- Committed agent replies under their canonical key (TurnKey::encoded()). An edit
-- replaces the row.
CREATE TABLE IF NOT EXISTS thm_reply (
  turn_key  BYTEA PRIMARY KEY,
  author_id BYTEA NOT NULL,
  content   BYTEA NOT NULL,
  hop       BIGINT NOT NULL CHECK (hop >= 0)
);

-- The live dispatch policy: at most one row; none means dispatch is disabled.
CREATE TABLE IF NOT EXISTS thm_policy (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  enabled  BOOLEAN NOT NULL,
  max_hops BIGINT NOT NULL CHECK (max_hops >= 0)
);

-- Pairs that may not hand turns to each other (every other pair may).
CREATE TABLE IF NOT EXISTS thm_forbidden_pair (
  source_id BYTEA NOT NULL,
  target_id BYTEA NOT NULL,
  PRIMARY KEY (source_id, target_id)
);

-- Agents that may be handed a turn (every other agent may not).
CREATE TABLE IF NOT EXISTS thm_available_agent (
  agent_id BYTEA PRIMARY KEY
);

-- One idempotency record per admitted key, kept when its child is settled or deleted.
-- The UNIQUE index is unconditional: never partial, never on child state. A record's id is
-- also the id of the child it admitted.
CREATE TABLE IF NOT EXISTS thm_idempotency (
  id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  turn_key BYTEA NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS thm_idempotency_turn_key ON thm_idempotency (turn_key);

-- Child turns: the request exactly as accepted, its state, its lease and its attempts.
CREATE TABLE IF NOT EXISTS thm_child_turn (
  id               BIGINT PRIMARY KEY,
  turn_key         BYTEA NOT NULL,
  desk_id          BYTEA NOT NULL,
  thread_root      BIGINT,          -- NULL: the desk's channel
  trigger_sequence BIGINT NOT NULL, -- the u64 sequence as its two's-complement i64
  source_id        BYTEA NOT NULL,
  target_id        BYTEA NOT NULL,
  content          BYTEA NOT NULL,
  child_hop        BIGINT NOT NULL,
  state            TEXT NOT NULL DEFAULT 'pending'
                   CHECK (state IN ('pending', 'completed', 'failed', 'dead')),
  attempts         BIGINT NOT NULL DEFAULT 0,
  lease_token      TEXT UNIQUE,
  lease_expires_at BIGINT
);
CREATE INDEX IF NOT EXISTS thm_child_turn_claimable ON thm_child_turn (state, lease_expires_at);
