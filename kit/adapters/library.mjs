// What the adapters over job-queue libraries share: the command line (--recipe, and what
// else an adapter takes), and a child turn as a job's JSON payload (the request with its
// bytes as base64: JSON text in PostgreSQL holds no NUL, and ids and content may be any
// bytes; u64s as decimal text; thm-safe's record id).
import { parseArgs } from 'node:util';

import { requestToWire, u64 } from '../protocol/node/protocol.mjs';

/**
 * The command line: `--recipe as-documented|thm-safe`, and each of `choices` (option name →
 * allowed values). Exits 2 with a usage line when one is missing or not allowed.
 */
export function commandLine(choices = {}) {
  const all = { recipe: ['as-documented', 'thm-safe'], ...choices };
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(all).map((name) => [name, { type: 'string' }])),
  });
  if (Object.entries(all).some(([name, allowed]) => !allowed.includes(values[name]))) {
    const usage = Object.entries(all).map(([name, allowed]) => `--${name} ${allowed.join('|')}`);
    console.error(`usage: adapter.mjs ${usage.join(' ')}`);
    process.exit(2);
  }
  return values;
}

/**
 * The payload of the child for `request` (requestFromWire's fields) under the canonical
 * turn key `key` (a Buffer); `childId` (thm-safe's record id) when there is one.
 */
export const payloadOf = (request, key, childId) => ({
  key: key.toString('base64'),
  desk_id: request.desk_id.toString('base64'),
  thread_root: u64(request.thread_root),
  sequence: u64(request.sequence),
  source_id: request.source_id.toString('base64'),
  target_id: request.target_id.toString('base64'),
  content: request.content.toString('base64'),
  child_hop: request.child_hop,
  ...(childId === undefined ? {} : { child_id: String(childId) }),
});

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
