// thm's decision in the host's own PostgreSQL transaction: the half of every thm-safe recipe
// that does not depend on the queue library (COMPATIBILITY.md shows this file as it is).
//
// Set-up, once: apply kit/stores/postgres/thm_queue.sql beside the library's schema. thm_admit
// decides on the stored reply and the live policy, so the host keeps them where it reads them:
// every reply through `commitReply` below, and the tables thm_policy, thm_forbidden_pair and
// thm_available_agent current. A turn is the request of SPEC §6 as a plain object: ids and
// content as Buffers (any bytes), sequence a u64 (BigInt or decimal text), thread_root a u64
// or null (a message outside any thread), child_hop a number.

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

// A u64 as decimal text, which PostgreSQL reads into NUMERIC exactly; null stays null.
const u64Text = (value) => (value === null || value === undefined ? null : String(value));

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
