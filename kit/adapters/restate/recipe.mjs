// The thm-safe recipe on Restate 1.7: decide in PostgreSQL, and let Restate run only work
// already decided (COMPATIBILITY.md shows this file as it is; the adapter runs it). Restate
// takes invocations over HTTP, so none can join the host's transaction: the step commits
// thm's record with an outbox row (recipe.mjs's enqueueStagedChildTurn), and the relay below
// submits each row as a workflow whose id is the turn's.
import { relay, turnIdOf } from '../recipe.mjs';

/** The workflow id of a turn: its turn id. */
export const workflowIdOf = turnIdOf;

/**
 * POSTs `body` (JSON) to `path` on Restate's ingress: `ingresses`, the URL of each node that
 * takes submissions, tried in order (a node that refuses the connection, errs or does not
 * answer within `timeoutMs` is passed). Resolves to {answer, uncertain}: the JSON answer, and
 * whether a node passed may have taken the request. Throws the last error when no node
 * answers, with `uncertain` on it.
 */
export async function postToRestate(ingresses, path, body, headers = {}, timeoutMs = 5000) {
  let uncertain = false;
  let last;
  for (const ingress of ingresses) {
    try {
      const response = await fetch(`${ingress}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      if (response.ok) return { answer: text ? JSON.parse(text) : null, uncertain };
      last = new Error(`Restate answered ${response.status}: ${text}`);
    } catch (error) {
      last = error;
    }
    // Only a refused connection says that nothing reached the node.
    uncertain ||= last.cause?.code !== 'ECONNREFUSED';
  }
  throw Object.assign(last, { uncertain });
}

/**
 * Submits the child's workflow `service` (its `run` handler), keyed by the turn. Resolves to
 * {status, uncertain}: Restate's answer, `Accepted` or, for a workflow id it already holds,
 * `PreviouslyAccepted`; and whether a node passed may have taken the submission (then
 * `PreviouslyAccepted` may be this caller's own).
 */
export async function submitChildTurn(ingresses, service, turnKey, payload) {
  const { answer, uncertain } = await postToRestate(ingresses,
    `/${service}/${workflowIdOf(turnKey)}/run/send`, payload);
  return { status: answer.status, uncertain };
}

/**
 * The relay to Restate: each staged child submitted as its turn's workflow. Restate answers
 * a second submission `PreviouslyAccepted` for as long as it keeps the workflow (its
 * `workflowRetention` after the workflow ends): keep it longer than a relay can lag.
 */
export function relayToRestate(client, ingresses, service) {
  return relay(client, (turnKey, payload) => submitChildTurn(ingresses, service, turnKey, payload));
}
