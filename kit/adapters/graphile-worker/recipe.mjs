// The thm-safe recipe on graphile-worker 0.17.3: thm's record and the child's job in one
// transaction on the host's connection (COMPATIBILITY.md shows this file as it is; the adapter
// runs it).
import { admit, childTurnPayload, inOneTransaction } from '../recipe.mjs';

/**
 * The child's job, inside the transaction thm_admit ran in on `client`: graphile-worker's
 * add_job is plain SQL, so it joins the transaction. No job_key: thm's record is the key,
 * and it outlives the job, which graphile-worker deletes when it completes.
 */
export async function addChildTurn(client, task, turn, admitted, options = {}) {
  const payload = childTurnPayload(turn, admitted.turn_key, admitted.record_id);
  const { rows: [job] } = await client.query(
    'SELECT id FROM graphile_worker.add_job($1, $2::json, max_attempts => $3)',
    [task, payload, options.maxAttempts ?? null]);
  return job.id;
}

/** The whole step: decide, and on `admitted` add the job, in one transaction. */
export function enqueueChildTurn(client, task, turn, options) {
  return inOneTransaction(client, async () => {
    const admitted = await admit(client, turn);
    if (admitted.outcome === 'admitted') await addChildTurn(client, task, turn, admitted, options);
    return admitted;
  });
}
