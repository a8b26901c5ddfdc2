// The thm-safe recipe on BullMQ 6.7.0: decide in PostgreSQL, and let BullMQ carry only work
// already decided (COMPATIBILITY.md shows this file as it is; the adapter runs it). BullMQ
// writes its jobs through connections of its own, so no job can join the host's transaction:
// the step commits thm's record with a row of an outbox table instead, and a relay adds each
// outbox row to BullMQ afterwards, with the turn as the job id, and deletes the row.
import { createHash } from 'node:crypto';

import { admit, childTurnPayload, inOneTransaction } from '../recipe.mjs';

/** The outbox, created once beside thm_queue.sql's tables. */
export const OUTBOX_TABLE = `CREATE TABLE IF NOT EXISTS thm_child_turn_outbox (
  turn_key BYTEA PRIMARY KEY,
  payload JSON NOT NULL
)`;

/**
 * The job id of a turn: `k` and the SHA-256 of its key in hex (a BullMQ id may not hold ':'
 * or be all digits). While a job with this id exists, BullMQ ignores an add of it, so a relay
 * that adds a row twice (it stopped between add and delete) adds one job.
 */
export const jobIdOf = (turnKey) => `k${createHash('sha256').update(turnKey).digest('hex')}`;

/**
 * The outbox row, inside the transaction thm_admit ran in on `client`: the child, decided
 * and committed with thm's record, not yet handed to BullMQ.
 */
export function stageChildTurn(client, turn, admitted) {
  return client.query('INSERT INTO thm_child_turn_outbox (turn_key, payload) VALUES ($1, $2)',
    [admitted.turn_key, childTurnPayload(turn, admitted.turn_key)]);
}

/** The whole step: decide, and on `admitted` stage the child, in one transaction. */
export function enqueueChildTurn(client, turn) {
  return inOneTransaction(client, async () => {
    const admitted = await admit(client, turn);
    if (admitted.outcome === 'admitted') await stageChildTurn(client, turn, admitted);
    return admitted;
  });
}

/**
 * The relay: staged children added to `queue` (a BullMQ Queue) as jobs keyed by their turns,
 * and their rows deleted, in a transaction of its own on `client`, so that relays running at
 * once take different rows. Run it after each step that admitted, and on a timer for the rows
 * a crash left between commit and add. One that stops after an add and before its commit
 * leaves the row to add again, which BullMQ ignores while the job exists: keep completed jobs
 * (`removeOnComplete`) longer than a relay can lag.
 */
export function relay(client, queue, jobOptions = {}) {
  return inOneTransaction(client, async () => {
    const { rows } = await client.query('SELECT turn_key, payload FROM thm_child_turn_outbox' +
      ' ORDER BY turn_key LIMIT 100 FOR UPDATE SKIP LOCKED');
    for (const row of rows) {
      await queue.add('child-turn', row.payload, { ...jobOptions, jobId: jobIdOf(row.turn_key) });
    }
    await client.query('DELETE FROM thm_child_turn_outbox WHERE turn_key = ANY($1)',
      [rows.map((row) => row.turn_key)]);
    return rows.length;
  });
}
