#!/usr/bin/env node
// The Node.js reference adapter of the conformance protocol, version 1 (kit/protocol/PROTOCOL.md).
//
//   node adapter.mjs [CONNECTION_STRING]      (default: the PG* environment variables)
//
// A host queue on PostgreSQL that does nothing itself: every step is one call of a function
// of kit/stores/postgres/thm_queue.sql (thm_enqueue_once, thm_claim, thm_renew, thm_complete,
// thm_fail, thm_now), the same ones the C++ PostgresQueue calls. A host in TypeScript copies
// the `Queue` class below and has a queue the suite passes.
//
// Two parts, top to bottom: `Queue`, one session's steps, each one function call; and the
// adapter, the protocol's operations on thm_queue.sql's tables. What every Node.js adapter
// shares is in two modules beside it: protocol.mjs (wire forms, answers, the multiplexed
// session loop) and postgres.mjs (connections, the enqueue transaction with its hook points
// and seam, the harness's connection and the host's writes).
//
// Environment: THM_QUEUE_SQL names the migration (default: the one in this source tree);
// THM_POSTGRES_RESTART, a shell command that restarts the server, makes `restart_store` real.
// Logs go to stderr; stdout carries protocol messages only.
import {
  PostgresAdapter, Session, SessionQueue, fromStore, requestParameters,
} from '../../protocol/node/postgres.mjs';
import {
  LeaseError, answerOf, checkLimits, integer, requestToWire, serve, toWire, turnName, u64,
  validDuration,
} from '../../protocol/node/protocol.mjs';

const MAX_ATTEMPTS = 3; // claims a child may receive; then it is dead
const CONNECTION = process.argv[2] || undefined;

const CAPABILITIES = {
  hooks: true,
  row_locking: true,
  persistent: true,
  sql_schema: true,
  leases: true,
  injected_store_clock: false,
  skewable_client_clock: true, // leases use the server's clock, never this process's
  max_content_bytes: 1 << 20, // a larger request is invalid_request, and nothing is written
  max_id_bytes: 1024, // source, target and desk id each
  max_attempts: MAX_ATTEMPTS,
};

const log = (...parts) => console.error('node-adapter:', ...parts);

// A request row (thm_claim's, thm_child_turn's; sequences already u64) for the wire.
const rowToWire = (row) => requestToWire({ ...row, sequence: row.trigger_sequence });

// ---- the host queue: one session, every step one function of thm_queue.sql ----------------

class Queue extends SessionQueue {
  // SPEC §4's step: thm_enqueue_once in autocommit, the statement production runs with or
  // without the suite's hooks. `hook(point)` resolves false to fail there; null runs without.
  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    const [{ outcome, reason }] = await this.session.autocommitStep(
      hook, 'SELECT outcome, reason FROM thm_enqueue_once($1, $2, $3, $4, $5, $6, $7)',
      requestParameters(request), ([row]) => row.outcome === 'enqueued');
    return outcome === 'enqueued' ? { status: 'enqueued' } : answerOf(outcome, reason, turnName(request));
  }

  // ---- leases: durations in, expiries from the server's clock ----

  async leaseCall(sql, parameters) {
    const client = this.session.client;
    if (client.broken) throw new LeaseError('unavailable');
    try {
      return (await client.query(sql, parameters)).rows;
    } catch (error) {
      if (!fromStore(error, client)) throw error;
      log('lease:', error.message);
      throw new LeaseError('unavailable');
    }
  }

  async claim(duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    const rows = await this.leaseCall('SELECT * FROM thm_claim($1, $2)',
      [duration.toString(), MAX_ATTEMPTS]);
    if (rows.length === 0) return null;
    const row = rows[0];
    return {
      child_id: integer(row.child_id),
      token: row.lease_token,
      expires_at: integer(row.lease_expires_at),
      attempt: integer(row.attempt),
      request: rowToWire(row),
    };
  }

  async renew(token, duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    const [row] = await this.leaseCall('SELECT thm_renew($1, $2) AS expiry',
      [token, duration.toString()]);
    if (row.expiry === null) throw new LeaseError('stale_token');
    return integer(row.expiry);
  }

  async settleLease(sql, parameters) {
    const [row] = await this.leaseCall(sql, parameters);
    if (row.state === null) throw new LeaseError('stale_token');
    return row.state;
  }

  complete(token) {
    return this.settleLease('SELECT thm_complete($1) AS state', [token]);
  }

  fail(token) {
    return this.settleLease('SELECT thm_fail($1, $2) AS state', [token, MAX_ATTEMPTS]);
  }
}

// ---- the protocol's operations -------------------------------------------------------------

class ReferenceAdapter extends PostgresAdapter {
  constructor() {
    super({ name: 'node-postgres', capabilities: CAPABILITIES, connection: CONNECTION });
  }

  async openQueue() {
    await this.started(); // the migration is in place before any session's step
    return new Queue(await Session.open(CONNECTION, log));
  }

  // ---- the harness ----

  reset() {
    return this.store.truncateHost();
  }

  async op_settle(message) {
    const id = u64(message.child_id);
    const states = { complete: 'completed', fail: 'failed', dead_letter: 'dead' };
    if (message.how !== 'delete' && !states[message.how]) {
      throw new Error(`unknown way to settle: ${message.how}`);
    }
    const rows = message.how === 'delete'
      ? await this.store.query('DELETE FROM thm_child_turn WHERE id = $1 RETURNING id', [id])
      : await this.store.query('UPDATE thm_child_turn SET state = $2, lease_token = NULL' +
        ' WHERE id = $1 RETURNING id', [id, states[message.how]]);
    if (rows.length === 0) throw new Error(`no child turn with id ${id}`);
  }

  async op_run_maintenance() {
    await this.store.query("DELETE FROM thm_child_turn WHERE state <> 'pending'");
  }

  async op_records() {
    const rows = await this.store.query('SELECT turn_key, id FROM thm_idempotency ORDER BY id');
    return { records: rows.map((row) => ({ key: toWire(row.turn_key), child_id: integer(row.id) })) };
  }

  async op_children() {
    const rows = await this.store.query(
      'SELECT id, turn_key, state, attempts, lease_expires_at, desk_id,' +
        ' thm_column_to_u64(thread_root) AS thread_root,' +
        ' thm_column_to_u64(trigger_sequence) AS trigger_sequence,' +
        ' source_id, target_id, content, child_hop FROM thm_child_turn ORDER BY id');
    return {
      children: rows.map((row) => ({
        id: integer(row.id), key: toWire(row.turn_key), request: rowToWire(row),
        state: row.state, attempts: integer(row.attempts),
        lease_expires_at: integer(row.lease_expires_at),
      })),
    };
  }

  async op_unique_key_index() {
    return { index: await this.store.uniqueKeyIndex('thm_idempotency') };
  }
}

serve(new ReferenceAdapter());
