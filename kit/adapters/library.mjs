// What the adapters over job-queue libraries share: the command line (--recipe, and what
// else an adapter takes), and a child turn read back from a job's JSON payload (written by
// recipe.mjs's childTurnPayload).
import { parseArgs } from 'node:util';

import { fromStore } from '../protocol/node/postgres.mjs';
import { LeaseError, integer, requestToWire, toWire } from '../protocol/node/protocol.mjs';

/**
 * The command line: `--recipe as-documented|thm-safe`, and each of `choices` (option name →
 * allowed values; an option whose first value is `undefined` may be left out). Exits 2 with a
 * usage line when one is missing or not allowed.
 */
export function commandLine(choices = {}) {
  const all = { recipe: ['as-documented', 'thm-safe'], ...choices };
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(all).map((name) => [name, { type: 'string' }])),
  });
  if (Object.entries(all).some(([name, allowed]) => !allowed.includes(values[name]))) {
    const usage = Object.entries(all).map(([name, allowed]) => {
      const spelled = `--${name} ${allowed.filter((value) => value !== undefined).join('|')}`;
      return allowed.includes(undefined) ? `[${spelled}]` : spelled;
    });
    console.error(`usage: adapter.mjs ${usage.join(' ')}`);
    process.exit(2);
  }
  return values;
}

const bytes = (text) => Buffer.from(text, 'base64');

/**
 * A job's state in the library's words as the protocol says it, in thm's (PROTOCOL.md §4):
 * `completed` and `failed` are themselves, a cancelled job is `failed`, and every state of
 * a job that may still run (created, retry, active, waiting, delayed, locked, ...) is
 * `pending`.
 */
export function turnState(libraryState) {
  if (libraryState === 'completed' || libraryState === 'failed') return libraryState;
  if (libraryState === 'cancelled') return 'failed';
  return 'pending';
}

/** The payload's turn key, as a Buffer. */
export const keyOf = (payload) => bytes(payload.key);

/** The payload's request in its wire form (SPEC §6). */
export const requestOf = (payload) => requestToWire({
  desk_id: bytes(payload.desk_id), thread_root: payload.thread_root, sequence: payload.sequence,
  source_id: bytes(payload.source_id), target_id: bytes(payload.target_id),
  content: bytes(payload.content), child_hop: payload.child_hop,
});

/**
 * `run()`, a lease call on the session's PostgreSQL connection: a store error (a lost
 * connection, a server's error) is `unavailable`, logged with `log`; the adapter's own
 * errors go through.
 */
export async function leaseCall(session, run, log) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof LeaseError || !fromStore(error, session.client)) throw error;
    log('lease:', error.message);
    throw new LeaseError('unavailable');
  }
}

/** The ways the host settles a child (PROTOCOL.md's `settle`); any other is an error. */
export function checkSettleWay(how) {
  if (!['complete', 'fail', 'dead_letter', 'delete'].includes(how)) {
    throw new Error(`unknown way to settle: ${how}`);
  }
}

/** The one of `items` whose child id, `idOf(item)` (a BigInt), is `childId`; throws if none. */
export function childOf(items, childId, idOf) {
  const id = BigInt(childId);
  const found = items.find((item) => idOf(item) === id);
  if (!found) throw new Error(`no child with id ${childId}`);
  return found;
}

/**
 * `children` (the protocol's) with the relay's staged rows (recipe.mjs's outbox, read on
 * `store`) added: each row not yet delivered is a pending child, whose id is the one its
 * delivered form will have, `childIdOfKey(turnKey)`.
 */
export async function withStagedChildren(store, children, childIdOfKey) {
  const staged = await store.query('SELECT payload FROM thm_child_turn_outbox');
  for (const { payload } of staged) {
    const id = integer(childIdOfKey(keyOf(payload)));
    if (children.some((child) => child.id === id)) continue; // delivered, its row not yet gone
    children.push({
      id, key: toWire(keyOf(payload)), request: requestOf(payload), state: 'pending',
      attempts: 0, lease_expires_at: null,
    });
  }
  return children;
}
