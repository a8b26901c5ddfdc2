-- thm's PostgreSQL host queue: the tables and the functions of SPEC §4 in one migration.
--
-- Apply it as it is, in one transaction, with your migration tool or
--   psql --single-transaction -v ON_ERROR_STOP=1 -f thm_queue.sql
-- with the schema that should hold thm's tables first on the search_path: the functions
-- remember that path (SET search_path FROM CURRENT), so they work whatever path their
-- callers have. Every statement is idempotent, so applying it again (or over schema version
-- 1, which had the tables only, version 2, which had no thm_check or thm_admit, version 3,
-- whose thm_enqueue_once had three of the six hook points, or version 4, which locked the
-- policy tables in SHARE mode instead of the rows it read) is safe; thm_schema then holds
-- version 5, and a database at a later version is refused.
-- PostgresQueue::open applies it itself when the database is older.
-- A change to any function here comes with a new version, or databases keep the old one.
-- Call thm_enqueue_once in a READ COMMITTED transaction (PostgreSQL's default): under
-- REPEATABLE READ a concurrent duplicate fails with 40001 instead of answering 'already'.
-- Needs PostgreSQL 13 or later (gen_random_uuid()).
--
-- Calling it from a host in any language (kit/stores/postgres/README.md has the whole API):
--   SELECT thm_commit_reply(desk, thread_root, sequence, author, content, hop);  -- the host's writes
--   SELECT * FROM thm_enqueue_once(desk, thread_root, seq, source, target, content, child_hop);
--   SELECT * FROM thm_claim(lease_ms, max_attempts);   -- then thm_renew / thm_complete / thm_fail
--
-- Ids, keys and content are BYTEA: kept byte for byte (NUL, invalid UTF-8). Sequences and
-- thread roots are u64; functions take them as NUMERIC (0 … 2^64-1) and the tables keep
-- them as BIGINT two's complement. Times are milliseconds since the Unix epoch on the
-- server's clock, taken at the start of the calling statement (statement_timestamp()),
-- never from a client. Durations are milliseconds.

-- One applier at a time (PostgresQueue::open takes the same lock), and never over a newer
-- version: that would replace its functions with these.
DO $$ BEGIN PERFORM pg_advisory_xact_lock(7411262); END $$;

CREATE TABLE IF NOT EXISTS thm_schema (
  version INTEGER NOT NULL
);

DO $$
BEGIN
  IF (SELECT max(version) FROM thm_schema) > 5 THEN
    RAISE EXCEPTION 'thm: this database has thm schema version %; thm_queue.sql is version 5',
      (SELECT max(version) FROM thm_schema) USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
END $$;

-- Committed agent replies under their canonical key (thm_turn_key). An edit replaces the row.
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

-- ---- helpers ------------------------------------------------------------------------------

-- The server's clock at the start of the calling statement, in milliseconds since the Unix
-- epoch. Statement time, not transaction time (now()), so an expiry does not fall short by
-- however long the caller's transaction has been open (queue-conformance.md EQ-17). It calls
-- only built-ins and carries no SET clause (as the helpers below), so that it is inlined.
CREATE OR REPLACE FUNCTION thm_now() RETURNS BIGINT
LANGUAGE sql STABLE AS $$
  SELECT floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint
$$;

-- A u64 (NUMERIC 0 … 2^64-1) as the BIGINT the tables keep (two's complement), and back.
-- Anything else raises 22003 (numeric_value_out_of_range). These and thm_turn_key touch no
-- table and call only built-in functions, which PostgreSQL finds in pg_catalog whatever the
-- search_path: they carry no SET clause, which would cost every call a save and a restore of
-- the settings (and keep thm_column_to_u64 from being inlined).
CREATE OR REPLACE FUNCTION thm_u64_to_column(value NUMERIC) RETURNS BIGINT
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF value IS NULL THEN RETURN NULL; END IF;
  IF value < 0 OR value >= 18446744073709551616 OR value <> trunc(value) THEN
    RAISE EXCEPTION 'thm: % is not a u64', value USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  IF value >= 9223372036854775808 THEN RETURN (value - 18446744073709551616)::bigint; END IF;
  RETURN value::bigint;
END $$;

CREATE OR REPLACE FUNCTION thm_column_to_u64(value BIGINT) RETURNS NUMERIC
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN value < 0 THEN value::numeric + 18446744073709551616 ELSE value::numeric END
$$;

-- The canonical key of a turn (SPEC §4, thm::TurnKey::encoded()):
--   v1/<byte length of desk>:<desk>/c/<sequence>       in a desk's channel
--   v1/<byte length of desk>:<desk>/t<root>/<sequence>  in the thread rooted at <root>
-- The general chat's spellings (empty, or "main" / "general" in any ASCII case) all become
-- "General". The root and the sequence must be u64s (else 22003, as thm_u64_to_column).
CREATE OR REPLACE FUNCTION thm_turn_key(desk_id BYTEA, thread_root NUMERIC,
                                        trigger_sequence NUMERIC) RETURNS BYTEA
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  -- 'escape' spells every byte outside printable ASCII as \nnn, so only ASCII can match.
  spelled CONSTANT TEXT := translate(encode(desk_id, 'escape'), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
                                     'abcdefghijklmnopqrstuvwxyz');
  desk BYTEA := desk_id;
BEGIN
  IF trigger_sequence IS NULL THEN
    RAISE EXCEPTION 'thm: a turn key needs a trigger sequence'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF trigger_sequence < 0 OR trigger_sequence >= 18446744073709551616
     OR trigger_sequence <> trunc(trigger_sequence) THEN
    RAISE EXCEPTION 'thm: % is not a u64', trigger_sequence
      USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  IF thread_root < 0 OR thread_root >= 18446744073709551616 OR thread_root <> trunc(thread_root) THEN
    RAISE EXCEPTION 'thm: % is not a u64', thread_root USING ERRCODE = 'numeric_value_out_of_range';
  END IF;
  IF spelled IN ('', 'main', 'general') THEN desk := 'General'::bytea; END IF;
  -- trunc() spells a whole NUMERIC without a scale (7, not 7.0).
  RETURN 'v1/'::bytea || convert_to(length(desk)::text, 'UTF8') || ':'::bytea || desk
         || convert_to(CASE WHEN thread_root IS NULL THEN '/c' ELSE '/t' || trunc(thread_root)::text END
                       || '/' || trunc(trigger_sequence)::text, 'UTF8');
END $$;

-- A test seam for the conformance suite's hook points inside thm_enqueue_once, five of the
-- six (queue-conformance.md §8; the sixth, after the commit, is the caller's). Does nothing
-- unless the session has set thm.hooks to 'on'.
-- Then it sends a notice 'thm hook <point>' and waits for a shared hold of the advisory
-- lock (pg_backend_pid(), 7411270 + ordinal), which the caller's second connection holds
-- exclusively until its hook has run. To let the step go on, that connection first takes
-- the go-ahead lock (pg_backend_pid(), 7411280 + ordinal), then releases the first; to make
-- the step fail there and roll back, it cancels this backend (pg_cancel_backend). A first
-- lock released with no go-ahead held means the second connection is gone (its host died
-- while the hook held the step): the step fails too, so a host killed inside its step never
-- leaves the step to commit without it.
CREATE OR REPLACE FUNCTION thm_hook_point(point TEXT, ordinal INTEGER) RETURNS VOID
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  saved CONSTANT TEXT := current_setting('lock_timeout');
BEGIN
  IF coalesce(current_setting('thm.hooks', true), '') <> 'on' THEN RETURN; END IF;
  RAISE NOTICE 'thm hook %', point;
  -- The hook may keep the step waiting as long as it needs: no lock_timeout for this wait.
  PERFORM set_config('lock_timeout', '0', true);
  PERFORM pg_advisory_xact_lock_shared(pg_backend_pid(), 7411270 + ordinal);
  PERFORM set_config('lock_timeout', saved, true);
  IF NOT EXISTS (SELECT 1 FROM pg_locks l
                  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                    AND l.classid = pg_backend_pid()::oid AND l.objid = (7411280 + ordinal)::oid)
  THEN
    RAISE EXCEPTION 'thm: the hook at % let the step go without its go-ahead', point
      USING ERRCODE = 'query_canceled';
  END IF;
END $$;

-- ---- the host's writes ---------------------------------------------------------------------

-- Stores or replaces the committed reply at `sequence` in the conversation (desk_id,
-- thread_root; NULL root: the desk's channel), under its canonical key.
CREATE OR REPLACE FUNCTION thm_commit_reply(desk_id BYTEA, thread_root NUMERIC, sequence NUMERIC,
                                            author_id BYTEA, content BYTEA, hop BIGINT)
RETURNS VOID LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO thm_reply (turn_key, author_id, content, hop)
  VALUES (thm_turn_key(thm_commit_reply.desk_id, thm_commit_reply.thread_root,
                       thm_commit_reply.sequence),
          thm_commit_reply.author_id, thm_commit_reply.content, thm_commit_reply.hop)
  ON CONFLICT (turn_key) DO UPDATE
    SET author_id = excluded.author_id, content = excluded.content, hop = excluded.hop;
END $$;

-- Forbidding a pair is the one revocation that adds a row, and a step cannot lock a row that
-- is not there: every statement that inserts or updates forbidden pairs first locks the
-- policy row, which every step holds FOR SHARE from before it looks for the pair until it
-- ends (thm_check). With no policy row (dispatch disabled) it stores the disabled row
-- first, which says the same, so that there is a row to lock: a policy stored while the
-- statement runs then waits for it.
CREATE OR REPLACE FUNCTION thm_forbidden_pair_guard() RETURNS TRIGGER
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, false, 0) ON CONFLICT (id) DO NOTHING;
  PERFORM 1 FROM thm_policy p WHERE p.id = 1 FOR NO KEY UPDATE;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS thm_forbidden_pair_guard ON thm_forbidden_pair;
CREATE TRIGGER thm_forbidden_pair_guard BEFORE INSERT OR UPDATE ON thm_forbidden_pair
  FOR EACH STATEMENT EXECUTE FUNCTION thm_forbidden_pair_guard();

-- ---- check, admit and enqueue_once -----------------------------------------------------------

-- SPEC §4's checks for one MentionTurnRequest, without the decision: the stored reply and the
-- live policy, each row read under a row lock the step holds until the caller's transaction
-- ends. One row:
--   outcome   'ok' | 'refused' | 'trigger_missing' | 'trigger_mismatch'
--   reason    for 'refused': 'feature_disabled' | 'unauthorized' | 'target_unavailable';
--             for 'trigger_mismatch': 'source' | 'content' | 'child_hop'; else NULL
--   turn_key  the canonical key (thm_turn_key) of the request, whatever the outcome
-- The steps, in order:
--  1. re-read the committed reply under the request's key FOR SHARE (an edit or a delete
--     waits for the caller's transaction): none → trigger_missing; another author or
--     content, or a stored hop with child_hop <> hop + 1 → trigger_mismatch;
--  2. read the policy row FOR SHARE (a change waits): none, disabled, or child_hop >
--     max_hops → feature_disabled;
--  3. read the target's availability row FOR KEY SHARE (its delete waits): none →
--     target_unavailable;
--  4. then, in a statement of its own, look for the (source, target) pair among the
--     forbidden ones: found → unauthorized. No row can be locked for a pair that is not
--     there, so the lock of step 2 guards it: a statement that inserts or updates a
--     forbidden pair first locks the policy row FOR NO KEY UPDATE (the trigger
--     thm_forbidden_pair_guard, whatever the writer), so a forbidding either committed
--     before step 2's lock was granted, and step 4's fresh snapshot sees it, or waits for
--     the caller's transaction.
-- Steps 1 to 3 are one statement when every row is there and agrees (the common case), and
-- one statement each otherwise, to say which failed. When several reasons hold, the first
-- in this order is given.
-- A refusal or a mismatch read from a row that is not there needs no lock: it writes
-- nothing, and a row inserted later could only turn it into an admission. The check writes
-- nothing itself. Sizes are the caller's to limit.
-- thm_admit and thm_enqueue_once call thm_check as a plain expression (a plpgsql function's
-- SET clause costs about a microsecond; a SQL-language function's is what costs, since such
-- a function is planned again at every call).
CREATE OR REPLACE FUNCTION thm_check(
    desk_id BYTEA, thread_root NUMERIC, trigger_sequence NUMERIC, source_id BYTEA,
    target_id BYTEA, content BYTEA, child_hop BIGINT,
    OUT outcome TEXT, OUT reason TEXT, OUT turn_key BYTEA)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  reply RECORD;
  allowed BOOLEAN;
BEGIN
  IF desk_id IS NULL OR source_id IS NULL OR target_id IS NULL OR content IS NULL
     OR child_hop IS NULL THEN
    RAISE EXCEPTION 'thm: only thread_root may be NULL in a request'
      USING ERRCODE = 'null_value_not_allowed';
  END IF;
  turn_key := thm_turn_key(desk_id, thread_root, trigger_sequence);
  -- The common case, every row there and agreeing, in one statement that locks them.
  PERFORM FROM thm_reply r, thm_policy p, thm_available_agent a
   WHERE r.turn_key = thm_check.turn_key AND r.author_id = thm_check.source_id
     AND r.content = thm_check.content
     AND r.hop::numeric + 1 = thm_check.child_hop::numeric
     AND p.id = 1 AND p.enabled AND thm_check.child_hop <= p.max_hops
     AND a.agent_id = thm_check.target_id
     FOR SHARE OF r, p FOR KEY SHARE OF a;
  IF NOT FOUND THEN
    -- Some row is missing or disagrees: one row at a time, to say which.
    SELECT r.author_id, r.content, r.hop INTO reply
      FROM thm_reply r WHERE r.turn_key = thm_check.turn_key FOR SHARE;
    IF NOT FOUND THEN outcome := 'trigger_missing'; RETURN; END IF;
    IF reply.author_id IS DISTINCT FROM source_id THEN reason := 'source';
    ELSIF reply.content IS DISTINCT FROM content THEN reason := 'content';
    ELSIF child_hop::numeric IS DISTINCT FROM reply.hop::numeric + 1 THEN reason := 'child_hop';
    END IF;
    IF reason IS NOT NULL THEN outcome := 'trigger_mismatch'; RETURN; END IF;
    SELECT p.enabled AND child_hop <= p.max_hops INTO allowed
      FROM thm_policy p WHERE p.id = 1 FOR SHARE;
    IF NOT coalesce(allowed, false) THEN reason := 'feature_disabled';
    ELSIF NOT EXISTS (SELECT FROM thm_available_agent a
                       WHERE a.agent_id = thm_check.target_id FOR KEY SHARE) THEN
      reason := 'target_unavailable';
    END IF;
    IF reason IS NOT NULL THEN outcome := 'refused'; RETURN; END IF;
  END IF;
  -- A fresh statement, so a fresh snapshot: it sees every forbidding that committed before
  -- the policy row's lock was granted.
  IF EXISTS (SELECT FROM thm_forbidden_pair f
              WHERE f.source_id = thm_check.source_id
                AND f.target_id = thm_check.target_id) THEN
    reason := 'unauthorized';
  END IF;
  outcome := CASE WHEN reason IS NULL THEN 'ok' ELSE 'refused' END;
END $$;

-- SPEC §4's decision for one MentionTurnRequest, without the child: for a host whose child
-- turns live in a job queue of its own (pg-boss, graphile-worker, its own table). Call it
-- inside the transaction that inserts the job, and insert the job only on 'admitted', with
-- record_id as the child's id; then commit. On any other outcome nothing was written. One
-- row:
--   outcome   'admitted' | 'already' | 'refused' | 'trigger_missing' | 'trigger_mismatch'
--   reason    as thm_check's
--   record_id for 'admitted': the new record's id, which names its child; else NULL
--   turn_key  the canonical key (thm_turn_key) of the request, whatever the outcome
-- thm_check, then the decision: INSERT the idempotency record ON CONFLICT (turn_key) DO
-- NOTHING; no row → already (a concurrent insert of the same key is waited for, so
-- 'already' always means a committed record). The record is never deleted: it outlives its
-- child (EQ-22). No error is caught, so none needs a savepoint.
CREATE OR REPLACE FUNCTION thm_admit(
    desk_id BYTEA, thread_root NUMERIC, trigger_sequence NUMERIC, source_id BYTEA,
    target_id BYTEA, content BYTEA, child_hop BIGINT,
    OUT outcome TEXT, OUT reason TEXT, OUT record_id BIGINT, OUT turn_key BYTEA)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
  checked RECORD;
BEGIN
  checked := thm_check(desk_id, thread_root, trigger_sequence, source_id, target_id,
                       content, child_hop);
  outcome := checked.outcome;
  reason := checked.reason;
  turn_key := checked.turn_key;
  IF outcome <> 'ok' THEN RETURN; END IF;
  PERFORM thm_hook_point('after_validate_reads', 1);

  -- The decision: one conditional insert on the unique key.
  INSERT INTO thm_idempotency AS i (turn_key) VALUES (checked.turn_key)
    ON CONFLICT (turn_key) DO NOTHING RETURNING i.id INTO record_id;
  IF record_id IS NULL THEN outcome := 'already'; RETURN; END IF;
  PERFORM thm_hook_point('after_idempotency_statement', 2);
  outcome := 'admitted';
END $$;

-- SPEC §4's enqueue step for one MentionTurnRequest: thm_admit's checks and decision, then on
-- 'admitted' the child in thm_child_turn with the record's id. Call it in autocommit (the
-- statement is the step's one transaction, READ COMMITTED) or inside a transaction of the
-- caller's, which it commits when `outcome` is 'enqueued'; on any other outcome nothing was
-- written and committing or rolling back are the same. One row:
--   outcome  'enqueued' | 'already' | 'refused' | 'trigger_missing' | 'trigger_mismatch'
--   reason   as thm_admit's
--   child_id for 'enqueued': the new child's id; else NULL
-- The steps are thm_admit's, written out here rather than called, so that the step pays for
-- one function's settings and not two; it reads thm.hooks once and calls thm_hook_point
-- only when the session has set it.
CREATE OR REPLACE FUNCTION thm_enqueue_once(
    desk_id BYTEA, thread_root NUMERIC, trigger_sequence NUMERIC, source_id BYTEA,
    target_id BYTEA, content BYTEA, child_hop BIGINT,
    OUT outcome TEXT, OUT reason TEXT, OUT child_id BIGINT)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
#variable_conflict use_column
DECLARE
  hooks CONSTANT BOOLEAN := coalesce(current_setting('thm.hooks', true), '') = 'on';
  checked RECORD;
BEGIN
  IF hooks THEN PERFORM thm_hook_point('after_begin', 0); END IF;
  checked := thm_check(desk_id, thread_root, trigger_sequence, source_id, target_id,
                       content, child_hop);
  outcome := checked.outcome;
  reason := checked.reason;
  IF outcome <> 'ok' THEN RETURN; END IF;
  IF hooks THEN PERFORM thm_hook_point('after_validate_reads', 1); END IF;

  -- The decision: one conditional insert on the unique key.
  INSERT INTO thm_idempotency AS i (turn_key) VALUES (checked.turn_key)
    ON CONFLICT (turn_key) DO NOTHING RETURNING i.id INTO child_id;
  IF child_id IS NULL THEN outcome := 'already'; RETURN; END IF;
  IF hooks THEN PERFORM thm_hook_point('after_idempotency_statement', 2); END IF;

  INSERT INTO thm_child_turn AS c (id, turn_key, desk_id, thread_root, trigger_sequence,
                                   source_id, target_id, content, child_hop)
  VALUES (child_id, checked.turn_key, thm_enqueue_once.desk_id,
          thm_u64_to_column(thm_enqueue_once.thread_root),
          thm_u64_to_column(thm_enqueue_once.trigger_sequence), thm_enqueue_once.source_id,
          thm_enqueue_once.target_id, thm_enqueue_once.content, thm_enqueue_once.child_hop);
  IF hooks THEN
    PERFORM thm_hook_point('after_child_insert', 3);
    PERFORM thm_hook_point('before_commit', 4);
  END IF;
  outcome := 'enqueued';
END $$;

-- ---- leases: durations only, expiry on the server's clock (EQ-14 … EQ-19) ---------------------

-- Marks spent children dead (pending, attempts >= max_attempts, no live lease), then claims
-- the oldest pending child with attempts left and no live lease (FOR UPDATE SKIP LOCKED):
-- attempts + 1, a new random token, expiry = statement time + duration_ms. No row when none
-- is claimable. duration_ms must be positive (else 22023, invalid_parameter_value).
CREATE OR REPLACE FUNCTION thm_claim(duration_ms BIGINT, max_attempts BIGINT)
RETURNS TABLE (child_id BIGINT, lease_token TEXT, lease_expires_at BIGINT, attempt BIGINT,
               desk_id BYTEA, thread_root NUMERIC, trigger_sequence NUMERIC, source_id BYTEA,
               target_id BYTEA, content BYTEA, child_hop BIGINT)
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF duration_ms IS NULL OR duration_ms <= 0 THEN
    RAISE EXCEPTION 'thm: a lease lasts a positive number of milliseconds, not %', duration_ms
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF max_attempts IS NULL OR max_attempts < 1 THEN
    RAISE EXCEPTION 'thm: a child may be claimed a positive number of times, not %', max_attempts
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE thm_child_turn SET state = 'dead'
   WHERE id IN (SELECT c.id FROM thm_child_turn c
                 WHERE c.state = 'pending' AND c.attempts >= max_attempts
                   AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= thm_now())
                   FOR UPDATE SKIP LOCKED);
  RETURN QUERY
  UPDATE thm_child_turn t
     SET attempts = t.attempts + 1, lease_token = gen_random_uuid()::text,
         lease_expires_at = thm_now() + duration_ms
   WHERE t.id = (SELECT c.id FROM thm_child_turn c
                  WHERE c.state = 'pending' AND c.attempts < max_attempts
                    AND (c.lease_expires_at IS NULL OR c.lease_expires_at <= thm_now())
                  ORDER BY c.id LIMIT 1 FOR UPDATE SKIP LOCKED)
  RETURNING t.id, t.lease_token, t.lease_expires_at, t.attempts, t.desk_id,
            thm_column_to_u64(t.thread_root), thm_column_to_u64(t.trigger_sequence),
            t.source_id, t.target_id, t.content, t.child_hop;
END $$;

-- Extends the live lease `token` to statement time + duration_ms and returns the new
-- expiry; NULL (a stale token) unless `token` is a pending child's current, unexpired
-- lease. duration_ms must be positive (else 22023).
CREATE OR REPLACE FUNCTION thm_renew(token TEXT, duration_ms BIGINT) RETURNS BIGINT
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  expiry BIGINT;
BEGIN
  IF duration_ms IS NULL OR duration_ms <= 0 THEN
    RAISE EXCEPTION 'thm: a lease lasts a positive number of milliseconds, not %', duration_ms
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE thm_child_turn SET lease_expires_at = thm_now() + duration_ms
   WHERE lease_token = token AND state = 'pending' AND lease_expires_at > thm_now()
  RETURNING lease_expires_at INTO expiry;
  RETURN expiry;
END $$;

-- Marks the leased child completed and returns its state ('completed'); NULL for a stale
-- token, as for thm_renew.
CREATE OR REPLACE FUNCTION thm_complete(token TEXT) RETURNS TEXT
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  after TEXT;
BEGIN
  UPDATE thm_child_turn t SET state = 'completed', lease_token = NULL
   WHERE t.lease_token = thm_complete.token AND t.state = 'pending'
     AND t.lease_expires_at > thm_now()
  RETURNING t.state INTO after;
  RETURN after;
END $$;

-- Gives the leased child back: 'pending' while attempts < max_attempts, else 'failed'. The
-- state afterwards; NULL for a stale token, as for thm_renew.
CREATE OR REPLACE FUNCTION thm_fail(token TEXT, max_attempts BIGINT) RETURNS TEXT
LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  after TEXT;
BEGIN
  IF max_attempts IS NULL OR max_attempts < 1 THEN
    RAISE EXCEPTION 'thm: a child may be claimed a positive number of times, not %', max_attempts
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  UPDATE thm_child_turn t
     SET lease_token = NULL, lease_expires_at = NULL,
         state = CASE WHEN t.attempts >= thm_fail.max_attempts THEN 'failed' ELSE 'pending' END
   WHERE t.lease_token = thm_fail.token AND t.state = 'pending' AND t.lease_expires_at > thm_now()
  RETURNING t.state INTO after;
  RETURN after;
END $$;

-- This file's version; the tables above are version 1's, unchanged (version 5 added the
-- trigger thm_forbidden_pair_guard).
DELETE FROM thm_schema WHERE version <> 5;
INSERT INTO thm_schema (version) SELECT 5 WHERE NOT EXISTS (SELECT 1 FROM thm_schema);
