// The thm-safe recipe on BullMQ 6.7.0: decide in PostgreSQL, and let BullMQ carry only work
// already decided (COMPATIBILITY.md shows this file as it is; the adapter runs it). BullMQ
// writes its jobs through connections of its own, so no job can join the host's transaction:
// the step commits thm's record with an outbox row (recipe.mjs's enqueueStagedChildTurn),
// and the relay below adds each row to BullMQ afterwards, with the turn as the job id.
import { relay, turnIdOf } from '../recipe.mjs';

/**
 * The job id of a turn: `k` and its turn id (a BullMQ id may not hold ':' or be all digits).
 * While a job with this id exists, BullMQ ignores an add of it.
 */
export const jobIdOf = (turnKey) => `k${turnIdOf(turnKey)}`;

/**
 * The relay to `queue` (a BullMQ Queue): each staged child added as a job keyed by its turn.
 * Keep completed jobs (`removeOnComplete`) longer than a relay can lag: a row delivered
 * again after its job was removed would add it again.
 */
export function relayToBullMQ(client, queue, jobOptions = {}) {
  return relay(client, (turnKey, payload) =>
    queue.add('child-turn', payload, { ...jobOptions, jobId: jobIdOf(turnKey) }));
}
