// The thm-safe recipe on DBOS Transact 5.3.0: thm's record and the child's workflow in one
// transaction on the host's connection (COMPATIBILITY.md shows this file as it is; the adapter
// runs it). DBOS's system database must be the host's database, so that the enqueue joins
// the transaction: `DBOSClient.enqueueInTransaction` writes the workflow's rows on `client`.
import { admit, childTurnPayload, inOneTransaction, turnIdOf } from '../recipe.mjs';

/** The workflow id of a turn: its turn id. */
export const workflowIdOf = turnIdOf;

/**
 * The child's workflow, inside the transaction thm_admit ran in on `client`: `workflowName`
 * enqueued on `queueName` through `dbos` (a DBOSClient on the same database), with the
 * whole request as its argument. `appVersion` is the executors' `applicationVersion`: a
 * queued workflow runs only on an executor of its version.
 */
export function enqueueChildWorkflow(dbos, client, turn, admitted, options) {
  const { queueName, workflowName, appVersion } = options;
  return dbos.enqueueInTransaction(client,
    { queueName, workflowName, appVersion, workflowID: workflowIdOf(admitted.turn_key) },
    childTurnPayload(turn, admitted.turn_key, admitted.record_id));
}

/** The whole step: decide, and on `admitted` enqueue the workflow, in one transaction. */
export function enqueueChildTurn(dbos, client, turn, options) {
  return inOneTransaction(client, async () => {
    const admitted = await admit(client, turn);
    if (admitted.outcome === 'admitted') {
      await enqueueChildWorkflow(dbos, client, turn, admitted, options);
    }
    return admitted;
  });
}
