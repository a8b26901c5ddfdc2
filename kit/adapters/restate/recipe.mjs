// The thm-safe recipe on Restate 1.7: decide in PostgreSQL, and let Restate run only work
// already decided (COMPATIBILITY.md shows this file as it is; the adapter runs it). Restate
// takes invocations over HTTP, so none can join the host's transaction: the step commits
// thm's record with an outbox row (recipe.mjs's enqueueStagedChildTurn), and the relay below
// submits each row as a workflow whose id is the turn's.
import { createHash } from 'node:crypto';

import { relay } from '../recipe.mjs';

/** The workflow id of a turn: the SHA-256 of its key in hex. */
export const workflowIdOf = (turnKey) => createHash('sha256').update(turnKey).digest('hex');

/**
 * Submits the child's workflow `service` (its `run` handler) through Restate's ingress at
 * `ingress` (a URL), keyed by the turn: Resolves to Restate's answer, `Accepted` or, for a
 * workflow id it already holds, `PreviouslyAccepted`. Throws on any other answer.
 */
export async function submitChildTurn(ingress, service, turnKey, payload) {
  const response = await fetch(`${ingress}/${service}/${workflowIdOf(turnKey)}/run/send`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  if (!response.ok) throw new Error(`Restate answered ${response.status}: ${await response.text()}`);
  return (await response.json()).status;
}

/**
 * The relay to Restate: each staged child submitted as its turn's workflow. Restate answers
 * a second submission `PreviouslyAccepted` for as long as it keeps the workflow (its
 * `workflowRetention` after the workflow ends): keep it longer than a relay can lag.
 */
export function relayToRestate(client, ingress, service) {
  return relay(client, (turnKey, payload) => submitChildTurn(ingress, service, turnKey, payload));
}
