// thm's decision in the host's own PostgreSQL transaction: the half of every thm-safe recipe
// that does not depend on the queue library, and the outbox and relay for a library that
// cannot join that transaction (COMPATIBILITY.md shows this file as it is).
//
// Set-up, once: apply kit/stores/postgres/thm_queue.sql beside the library's schema. thm_admit
// decides on the stored reply and the live policy, so the host keeps them where it reads them,
// with the writers below: every reply (`commitReply`), the policy (`setPolicy`), the agents
// that may be handed a turn (`setAgentAvailable`) and the pairs that may not
// (`setPairForbidden`). A turn is the request of SPEC §6 as a plain object: ids and content as
// Buffers (any bytes), sequence a u64 (BigInt, decimal text or a safe integer), thread_root a
// u64 or null (a message outside any thread), child_hop a number.
import { createHash } from 'node:crypto';

/**
 * A turn's id for a library's own key (a job id, a workflow id): the SHA-256 of the canonical
 * turn key (a Buffer) in hex, within every library's length and character limits.
 */
export const turnIdOf = (turnKey) => createHash('sha256').update(turnKey).digest('hex');

/**
 * Runs `work()` in one transaction on `client` (a pg.Client the host owns), committed when it
 * resolves, rolled back when it throws. READ COMMITTED, PostgreSQL's default: racing callers
 * wait on the turn key's unique index and the losers get `already`. Under REPEATABLE READ or
 * SERIALIZABLE they get serialization errors instead.
 */
export async function inOneTransaction(client, work) {
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

// A u64 as decimal text, which PostgreSQL reads into NUMERIC exactly; null stays null. A
// Number past 2^53 has lost its digits already, so it is refused rather than rounded.
function u64Text(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new TypeError(`${value} is not a u64 a Number can hold exactly: pass a BigInt or text`);
  }
  return String(value);
}

const turnParameters = (turn) => [turn.desk_id, u64Text(turn.thread_root),
  u64Text(turn.sequence), turn.source_id, turn.target_id, turn.content, turn.child_hop];

/**
 * thm_admit, inside the transaction: the decision and thm's record. Resolves to
 * {outcome, reason, record_id, turn_key}; only `admitted` wrote anything, and the child's job
 * belongs in the same transaction. `already`, `refused`, `trigger_missing` and
 * `trigger_mismatch` wrote nothing.
 */
export async function admit(client, turn) {
  const { rows: [admitted] } = await client.query(
    'SELECT outcome, reason, record_id, turn_key FROM thm_admit($1, $2, $3, $4, $5, $6, $7)',
    turnParameters(turn));
  return admitted;
}

/**
 * The child's job payload: the whole request, so the worker reads nothing else, with its bytes
 * as base64 (JSON text in PostgreSQL holds no NUL, and ids and content may be any bytes) and
 * its u64s as decimal text. `key` is the canonical turn key (a Buffer); `childId`, thm's
 * record id, when there is one.
 */
export const childTurnPayload = (turn, key, childId) => ({
  key: key.toString('base64'),
  desk_id: turn.desk_id.toString('base64'),
  thread_root: u64Text(turn.thread_root),
  sequence: u64Text(turn.sequence),
  source_id: turn.source_id.toString('base64'),
  target_id: turn.target_id.toString('base64'),
  content: turn.content.toString('base64'),
  child_hop: turn.child_hop,
  ...(childId === undefined ? {} : { child_id: String(childId) }),
});

/**
 * Stores an agent's reply where thm_admit reads it (SPEC §4: the trigger of a child turn is a
 * committed reply). `reply`: {desk_id, thread_root, sequence, author_id, content, hop}.
 */
export function commitReply(client, reply) {
  return client.query('SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)', [reply.desk_id,
    u64Text(reply.thread_root), u64Text(reply.sequence), reply.author_id, reply.content, reply.hop]);
}

/**
 * The policy thm_admit reads: dispatch `enabled` and `maxHops`, the longest chain of agent
 * turns. Without a policy row, dispatch is disabled.
 */
export function setPolicy(client, { enabled, maxHops }) {
  return client.query('INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2)' +
    ' ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, max_hops = excluded.max_hops',
  [enabled, maxHops]);
}

/** Whether agent `agentId` (a Buffer) may be handed a turn: an allow-list, empty at first. */
export function setAgentAvailable(client, agentId, available) {
  return client.query(available
    ? 'INSERT INTO thm_available_agent (agent_id) VALUES ($1) ON CONFLICT DO NOTHING'
    : 'DELETE FROM thm_available_agent WHERE agent_id = $1', [agentId]);
}

/** Whether `sourceId` may not hand turns to `targetId` (Buffers); every pair may at first. */
export function setPairForbidden(client, sourceId, targetId, forbidden) {
  return client.query(forbidden
    ? 'INSERT INTO thm_forbidden_pair (source_id, target_id) VALUES ($1, $2) ON CONFLICT DO NOTHING'
    : 'DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2',
  [sourceId, targetId]);
}

// ---- for a library that cannot join the transaction: an outbox and a relay ----

/** The outbox, created once beside thm_queue.sql's tables. */
export const OUTBOX_TABLE = `CREATE TABLE IF NOT EXISTS thm_child_turn_outbox (
  turn_key BYTEA PRIMARY KEY,
  payload JSON NOT NULL
)`;

/**
 * The outbox row, inside the transaction thm_admit ran in on `client`: the child, decided
 * and committed with thm's record, not yet handed to the library.
 */
export function stageChildTurn(client, turn, admitted) {
  return client.query('INSERT INTO thm_child_turn_outbox (turn_key, payload) VALUES ($1, $2)',
    [admitted.turn_key, childTurnPayload(turn, admitted.turn_key)]);
}

/** The whole step: decide, and on `admitted` stage the child, in one transaction. */
export function enqueueStagedChildTurn(client, turn) {
  return inOneTransaction(client, async () => {
    const admitted = await admit(client, turn);
    if (admitted.outcome === 'admitted') await stageChildTurn(client, turn, admitted);
    return admitted;
  });
}

/**
 * The relay: each staged child handed to the library by `deliver(turnKey, payload)`, which
 * must be idempotent by the turn (a job id, an idempotency key, a workflow id made from
 * `turnKey`), then its row deleted, in a transaction of its own on `client` that holds the
 * rows (`FOR UPDATE SKIP LOCKED`), so that relays running at once take different rows. Run
 * it after each step that admitted, and on a timer for the rows a crash left between commit
 * and delivery. A relay that stops after a delivery and before its commit leaves the row to
 * deliver again: the library's key must still hold it then. Resolves to how many it relayed.
 */
export function relay(client, deliver) {
  return inOneTransaction(client, async () => {
    const { rows } = await client.query('SELECT turn_key, payload FROM thm_child_turn_outbox' +
      ' ORDER BY turn_key LIMIT 100 FOR UPDATE SKIP LOCKED');
    for (const row of rows) await deliver(row.turn_key, row.payload);
    await client.query('DELETE FROM thm_child_turn_outbox WHERE turn_key = ANY($1)',
      [rows.map((row) => row.turn_key)]);
    return rows.length;
  });
}
