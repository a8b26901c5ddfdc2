// The thm-safe recipe on pg-boss 10.4.2: thm's record and the child's job in one transaction
// on the host's connection (COMPATIBILITY.md shows this file as it is; the adapter runs it).
import { admit, childTurnPayload, inOneTransaction } from '../recipe.mjs';

/**
 * The child's job, inside the transaction thm_admit ran in on `client`: pg-boss's insert on
 * the same connection, through send's `db` option. pg-boss answers `null` instead of an id
 * when it inserted nothing (a queue that was never created with `boss.createQueue`, a
 * policy that drops the job), and the record must not commit without its job: so `null`
 * throws, and the transaction rolls back.
 */
export async function sendChildTurn(boss, queue, client, turn, admitted) {
  const db = { executeSql: (text, values) => client.query(text, values) };
  const payload = childTurnPayload(turn, admitted.turn_key, admitted.record_id);
  const id = await boss.send(queue, payload, { db });
  if (id === null) throw new Error(`pg-boss inserted no job into ${queue}: was it created?`);
  return id;
}

/** The whole step: decide, and on `admitted` send the job, in one transaction. */
export function enqueueChildTurn(boss, queue, client, turn) {
  return inOneTransaction(client, async () => {
    const admitted = await admit(client, turn);
    if (admitted.outcome === 'admitted') await sendChildTurn(boss, queue, client, turn, admitted);
    return admitted;
  });
}
