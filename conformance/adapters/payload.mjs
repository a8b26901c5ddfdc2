// A child turn as a job's JSON payload, for the adapters over job-queue libraries: the
// request with its bytes as base64 (JSON text in PostgreSQL holds no NUL, and ids and
// content may be any bytes), u64s as decimal text, and thm-safe's record id.
import { requestToWire, u64 } from '../../protocol/adapters/node/protocol.mjs';

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

/** The payload's turn key, as a Buffer. */
export const keyOf = (payload) => bytes(payload.key);

/** The payload's request in its wire form (SPEC §6). */
export const requestOf = (payload) => requestToWire({
  desk_id: bytes(payload.desk_id), thread_root: payload.thread_root, sequence: payload.sequence,
  source_id: bytes(payload.source_id), target_id: bytes(payload.target_id),
  content: bytes(payload.content), child_hop: payload.child_hop,
});
