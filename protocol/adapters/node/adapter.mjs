#!/usr/bin/env node
// The Node.js reference adapter of the conformance protocol, version 1 (protocol/PROTOCOL.md).
//
//   node adapter.mjs [CONNECTION_STRING]      (default: the PG* environment variables)
//
// A host queue on PostgreSQL that does nothing itself: every step is one call of a function
// of adapters/postgres/thm_queue.sql (thm_enqueue_once, thm_claim, thm_renew, thm_complete,
// thm_fail, thm_now), the same ones the C++ PostgresQueue calls. A host in TypeScript copies
// the `Queue` class below and has a queue the suite passes.
//
// Three parts, top to bottom:
//  1. Wire forms: bytes as a JSON string or {"base64": ...}; u64s as BigInt (JSON numbers
//     past 2^53 are read and written exactly, through lossless-json).
//  2. `Queue`: one session's connection, and the hook seam (a second connection that answers
//     thm_hook_point's notices: release an advisory lock to go on, cancel to fail there).
//  3. The protocol, multiplexed: one process, one connection per session, requests for
//     different sessions served concurrently and answered as they finish.
//
// Environment: THM_QUEUE_SQL names the migration (default: the one in this source tree);
// THM_POSTGRES_RESTART, a shell command that restarts the server, makes `restart_store` real.
// Logs go to stderr; stdout carries protocol messages only.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { parse, stringify } from 'lossless-json';
import pg from 'pg';

const PROTOCOL = 1;
const MAX_CONTENT_BYTES = 1 << 20; // a larger request is invalid_request, and nothing is written
const MAX_ID_BYTES = 1024; // source, target and desk id each
const MAX_ATTEMPTS = 3; // claims a child may receive; then it is dead
const LOCK_TIMEOUT = '20s'; // below the suite's --exec-timeout of 30 s: it gets an answer
const SCHEMA_VERSION = 3; // what thm_queue.sql stamps
const IDLE_SESSIONS = 16; // closed sessions whose connections are kept for reuse
// thm_hook_point waits for the advisory lock (backend pid, HOOK_LOCK_BASE + n) at its n-th point.
const HOOK_LOCK_BASE = 7411270;
const MIGRATION =
  process.env.THM_QUEUE_SQL ||
  fileURLToPath(new URL('../../../adapters/postgres/thm_queue.sql', import.meta.url));
const CONNECTION = process.argv[2] || undefined;

const CAPABILITIES = {
  hooks: true,
  row_locking: true,
  persistent: true,
  sql_schema: true,
  leases: true,
  injected_store_clock: false,
  skewable_client_clock: true, // leases use the server's clock, never this process's
  max_content_bytes: MAX_CONTENT_BYTES,
  max_id_bytes: MAX_ID_BYTES,
  max_attempts: MAX_ATTEMPTS,
};

const log = (...parts) => console.error('node-adapter:', ...parts);

// ---- 1. wire forms -----------------------------------------------------------------------

// Integers that fit a double stay numbers; larger ones (u64 sequences) become BigInt.
// lossless-json is exact but slow on megabyte lines, so it reads only lines holding a run of
// 16 or more digits; with none, every integer has at most 15 digits and JSON.parse is exact.
const readJson = (line) =>
  !/\d{16}/.test(line)
    ? JSON.parse(line)
    : parse(line, null, (digits) => {
      const number = Number(digits);
      return Number.isSafeInteger(number) || !/^-?\d+$/.test(digits) ? number : BigInt(digits);
    });

const utf8 = new TextDecoder('utf-8', { fatal: true });

// A bytes field: a JSON string (its UTF-8) or {"base64": "..."}.
function fromWire(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  // Buffer.from skips what is not base64; the protocol's base64 is RFC 4648 with padding.
  if (value && typeof value.base64 === 'string' &&
      /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value.base64)) {
    return Buffer.from(value.base64, 'base64');
  }
  throw new TypeError(`not a bytes field: ${JSON.stringify(value)?.slice(0, 80)}`);
}

// A string when the bytes are valid UTF-8, else base64.
function toWire(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
}

// A u64 from the wire (number or BigInt) as the decimal text NUMERIC parameters take.
const u64 = (value) => (value === null || value === undefined ? null : BigInt(value).toString());

// An integer column (BIGINT and NUMERIC arrive as text) for the wire: exact, then as small
// as it can be.
function integer(text) {
  if (text === null) return null;
  const value = BigInt(text);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

// The request from the columns desk_id, thread_root, trigger_sequence, source_id, target_id,
// content, child_hop (sequences already u64, as thm_claim and thm_column_to_u64 give them).
function requestToWire(row) {
  return {
    key: { trigger_sequence: integer(row.trigger_sequence) },
    source_id: toWire(row.source_id),
    target_id: toWire(row.target_id),
    content: toWire(row.content),
    conversation: { desk_id: toWire(row.desk_id), thread_root: integer(row.thread_root) },
    child_hop: integer(row.child_hop),
  };
}

// ---- 2. the host queue -------------------------------------------------------------------

// A lease duration in milliseconds: a positive integer a BIGINT holds.
const validDuration = (duration) =>
  (typeof duration === 'bigint' || Number.isSafeInteger(duration)) && duration > 0 &&
  BigInt(duration) < 2n ** 62n;

class QueueError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

class LeaseError extends Error {
  constructor(kind) {
    super(kind);
    this.kind = kind;
  }
}

// Whether `error` came from the store: a server's error (it has a SQLSTATE), or a lost or
// refused connection. Anything else is the adapter's own bug and is answered as a failure.
function fromStore(error, client) {
  return error instanceof pg.DatabaseError || client?.broken === true ||
    /^E[A-Z]+$/.test(error?.code ?? '') || /Connection terminated|not queryable/.test(error?.message ?? '');
}

// The QueueError for a store error: `unavailable` when retrying may succeed (a lost
// connection, a shut-down server, a serialization failure or deadlock, a lock wait past
// lock_timeout, too many connections); `internal` otherwise.
function storeError(error, what) {
  const code = error instanceof pg.DatabaseError ? error.code : '';
  const transient = !code || code.startsWith('08') || code.startsWith('57P') ||
    code.startsWith('53') || ['40001', '40P01', '55P03'].includes(code);
  return new QueueError(transient ? 'unavailable' : 'internal',
    `PostgreSQL error while ${what}${code ? ` (SQLSTATE ${code})` : ''}: ${error?.message}`);
}

// A connected client that remembers whether it broke (a server restart, a killed backend).
async function connect() {
  const client = new pg.Client(CONNECTION);
  client.broken = false;
  client.on('error', (error) => {
    client.broken = true;
    log('connection error:', error.message);
  });
  client.on('end', () => {
    client.broken = true;
  });
  await client.connect();
  return client;
}

// Applies thm_queue.sql once, under the advisory lock every opener takes (PostgresQueue too).
async function migrate(client) {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(7411262)');
    const present = await client.query("SELECT to_regclass('thm_schema') IS NOT NULL AS present");
    const version = present.rows[0].present
      ? Number((await client.query('SELECT coalesce(max(version), 0) AS v FROM thm_schema')).rows[0].v)
      : 0;
    if (version > SCHEMA_VERSION) {
      throw new Error(`the database has thm schema version ${version}; this knows ${SCHEMA_VERSION}`);
    }
    if (version < SCHEMA_VERSION) await client.query(readFileSync(MIGRATION, 'utf8'));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

// One session: its own connection, and with hooks a second one that holds the advisory locks
// thm_hook_point waits for (adapters/postgres/README.md, "The hook seam").
class Queue {
  static async open() {
    const queue = new Queue(await connect());
    await queue.client.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
    queue.client.on('notice', (notice) => queue.onNotice(notice));
    return queue;
  }

  constructor(client) {
    this.client = client;
    this.hooks = null; // the second connection, opened by the first hooked step
    this.seamOn = false; // thm.hooks on the session's connection
    this.step = null; // the hooked step in flight: {hook, refusedAt, answered}
  }

  async close() {
    await Promise.allSettled([this.client.end(), this.hooks?.end()]);
  }

  // SPEC §4's step: BEGIN, thm_enqueue_once, COMMIT when it enqueued. `hook(point)` resolves
  // false to fail there; null runs without hooks.
  async enqueueOnce(request, hook) {
    if (request.content.length > MAX_CONTENT_BYTES) {
      throw new QueueError('invalid_request',
        `content is longer than the store's limit of ${MAX_CONTENT_BYTES} bytes`);
    }
    if (Math.max(request.source_id.length, request.target_id.length, request.desk_id.length) >
        MAX_ID_BYTES) {
      throw new QueueError('invalid_request',
        `an id is longer than the store's limit of ${MAX_ID_BYTES} bytes`);
    }
    if (this.client.broken) throw new QueueError('unavailable', 'the session lost its connection');
    await this.armSeam(hook !== null);
    const passes = async (point) => {
      if (hook !== null && !(await hook(point))) {
        throw new QueueError('unavailable', `the step was rolled back at ${point}`);
      }
    };
    let open = false;
    try {
      await this.client.query('BEGIN');
      open = true;
      await passes('after_begin');
      const { outcome, reason } = await this.callEnqueue(request, hook);
      if (outcome !== 'enqueued') return this.outcomeOf(outcome, reason, request);
      await passes('before_commit');
      open = false;
      try {
        await this.client.query('COMMIT');
      } catch (error) {
        // A COMMIT that fails on a live connection rolled back; on a lost one, nobody knows.
        const failed = storeError(error, 'committing');
        failed.kind = this.client.broken ? 'indeterminate' : 'unavailable';
        throw failed;
      }
      if (hook !== null && !(await hook('after_commit_before_return'))) {
        throw new QueueError('indeterminate', 'the answer was lost after commit');
      }
      return { status: 'enqueued' };
    } catch (error) {
      if (error instanceof QueueError || !fromStore(error, this.client)) throw error;
      throw storeError(error, 'enqueueing');
    } finally {
      if (open && !this.client.broken) await this.client.query('ROLLBACK').catch(() => {});
    }
  }

  // thm_enqueue_once, with its inner hook points answered when `hook` is set.
  async callEnqueue(request, hook) {
    const call = () =>
      this.client.query(
        'SELECT outcome, reason FROM thm_enqueue_once($1, $2, $3, $4, $5, $6, $7)',
        [request.desk_id, u64(request.thread_root), u64(request.sequence), request.source_id,
          request.target_id, request.content, request.child_hop]);
    if (hook === null) return (await call()).rows[0];
    const backend = this.client.processID;
    await this.hooks.query(
      'SELECT pg_advisory_lock($1, $2 + 1), pg_advisory_lock($1, $2 + 2),' +
        ' pg_advisory_lock($1, $2 + 3)', [backend, HOOK_LOCK_BASE]);
    const step = { hook, refusedAt: null, answered: Promise.resolve() };
    this.step = step;
    try {
      return (await call()).rows[0];
    } catch (error) {
      if (step.refusedAt) {
        throw new QueueError('unavailable', `the step was rolled back at ${step.refusedAt}`);
      }
      throw error;
    } finally {
      this.step = null;
      await step.answered;
      await this.hooks.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    }
  }

  // thm_hook_point's notice: ask the suite, then let the step go on or cancel it there.
  onNotice(notice) {
    const step = this.step;
    const match = /^thm hook (\w+)$/.exec(notice.message ?? '');
    if (!step || !match) return;
    const point = match[1];
    const ordinal = { after_validate_reads: 1, after_idempotency_statement: 2, after_child_insert: 3 }[point];
    const backend = this.client.processID;
    step.answered = step.answered.then(async () => {
      if ((await step.hook(point)) && ordinal) {
        await this.hooks.query('SELECT pg_advisory_unlock($1, $2)', [backend, HOOK_LOCK_BASE + ordinal]);
        return;
      }
      step.refusedAt = point;
      await this.hooks.query('SELECT pg_cancel_backend($1)', [backend]);
    }).catch((error) => log('answering a hook point:', error.message));
  }

  // Turns thm_hook_point on or off for this session, opening the second connection once.
  async armSeam(on) {
    if (on && (!this.hooks || this.hooks.broken)) {
      await this.hooks?.end().catch(() => {});
      this.hooks = await connect();
    }
    if (on !== this.seamOn) {
      await this.client.query(`SET thm.hooks = '${on ? 'on' : 'off'}'`);
      this.seamOn = on;
    }
  }

  // The answer for an outcome that wrote nothing: a result, or a QueueError.
  outcomeOf(outcome, reason, request) {
    const key = `${request.desk_id.toString('utf8')}/${request.thread_root ?? 'c'}/${request.sequence}`;
    switch (outcome) {
      case 'already':
        return { status: 'already' };
      case 'refused':
        return { status: 'refused', reason };
      case 'trigger_missing':
        throw new QueueError('trigger_missing', `no committed reply for ${key}`);
      case 'trigger_mismatch':
        throw new QueueError('trigger_mismatch',
          `the request's ${reason.replace('_', ' ')} differs from the committed reply for ${key}`);
      default:
        throw new QueueError('internal', `thm_enqueue_once answered ${outcome} ${reason}`);
    }
  }

  // ---- leases: durations in, expiries from the server's clock ----

  async leaseCall(sql, parameters) {
    if (this.client.broken) throw new LeaseError('unavailable');
    try {
      return (await this.client.query(sql, parameters)).rows;
    } catch (error) {
      if (!fromStore(error, this.client)) throw error;
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
      request: requestToWire(row),
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

// The harness's own connection: the host's writes and the inspector, plain SQL on the tables.
class Store {
  constructor() {
    this.connecting = null; // the one connect-and-migrate in progress or done
    this.last = Promise.resolve(); // the statement the next one waits for
  }

  // The connection, migrated; a lost one is replaced. Concurrent callers share one attempt.
  db() {
    this.connecting ??= (async () => {
      const client = await connect();
      try {
        await migrate(client);
      } catch (error) {
        await client.end().catch(() => {});
        throw error;
      }
      return client;
    })().catch((error) => {
      this.connecting = null;
      throw error;
    });
    return this.connecting.then((client) => {
      if (!client.broken) return client;
      this.connecting = null;
      client.end().catch(() => {});
      return this.db();
    });
  }

  // One statement at a time on the one connection: harness operations may arrive together.
  query(sql, parameters = []) {
    const run = this.last.then(async () => (await (await this.db()).query(sql, parameters)).rows);
    this.last = run.catch(() => {});
    return run;
  }

  async close() {
    const connecting = this.connecting;
    this.connecting = null;
    await connecting?.then((client) => client.end()).catch(() => {});
  }

  async reopen() {
    await this.close();
    await this.db();
  }
}

// ---- 3. the protocol -------------------------------------------------------------------------

class Unsupported extends Error {}

// Operations that exist only with a capability; undeclared, they answer `unsupported`.
const NEEDS = {
  claim: 'leases', renew: 'leases', complete: 'leases', fail: 'leases', store_now: 'leases',
  unique_key_index: 'sql_schema', reopen: 'persistent', restart_store: 'persistent',
  advance_store_clock: 'injected_store_clock',
};

class Adapter {
  constructor(write) {
    this.write = write;
    this.store = new Store();
    this.sessions = new Map(); // session number → Queue
    this.idle = []; // closed sessions' queues, connected, for the next open_session
    this.nextSession = 1;
    this.hooked = false; // set_hook: every session stops at the six points
    this.hooksSent = 0;
    this.waiting = new Map(); // hook number → resolve(proceed)
    this.inFlight = new Set(); // answers not yet written
  }

  send(message) {
    this.write(`${stringify(message)}\n`);
  }

  receive(line) {
    let message;
    try {
      message = readJson(line);
    } catch (error) {
      log(`ignoring a line that is not JSON (${error.message}): ${line.slice(0, 200)}`);
      return;
    }
    if (message && message.hook_reply !== undefined) {
      const resolve = this.waiting.get(Number(message.hook_reply));
      this.waiting.delete(Number(message.hook_reply));
      if (resolve) resolve(message.proceed === true);
      else log(`ignoring a reply to no hook: ${line.slice(0, 200)}`);
      return;
    }
    if (!message || message.id === undefined) {
      log(`ignoring a message without an id: ${line.slice(0, 200)}`);
      return;
    }
    const answered = this.answer(message).then((response) => {
      this.send({ id: message.id, ...response });
    });
    this.inFlight.add(answered);
    answered.finally(() => this.inFlight.delete(answered));
  }

  // stdin closed: hooks still waiting fail where they are, the answers in flight are
  // written, and every connection is closed.
  async finish() {
    for (const resolve of this.waiting.values()) resolve(false);
    this.waiting.clear();
    await Promise.allSettled([...this.inFlight]);
    const queues = [...this.sessions.values(), ...this.idle];
    await Promise.allSettled([...queues.map((queue) => queue.close()), this.store.close()]);
  }

  async answer(message) {
    const op = message.op;
    const handler = typeof op === 'string' ? this[`op_${op}`] : undefined;
    try {
      const needed = NEEDS[op];
      if (needed && !CAPABILITIES[needed]) {
        throw new Unsupported(`${op} needs ${needed}, which node-postgres does not declare`);
      }
      if (typeof handler !== 'function') throw new Unsupported(`unknown operation ${op}`);
      return { result: (await handler.call(this, message)) ?? {} };
    } catch (error) {
      if (error instanceof QueueError) {
        return { result: { queue_error: { kind: error.kind, message: error.message } } };
      }
      if (error instanceof LeaseError) return { result: { lease_error: error.kind } };
      if (error instanceof Unsupported) return { unsupported: error.message };
      log(error.stack ?? error);
      return { failure: `${op}: ${error.message}` };
    }
  }

  // A hook call on stdout; resolves with the suite's reply.
  hook(session, point) {
    const number = ++this.hooksSent;
    return new Promise((resolve) => {
      this.waiting.set(number, resolve);
      this.send({ hook: number, session, point });
    });
  }

  session(message) {
    const queue = this.sessions.get(Number(message.session));
    if (!queue) throw new Error(`no open session ${message.session}`);
    return queue;
  }

  // ---- the handshake and sessions ----

  op_hello(message) {
    if (Number(message.protocol) !== PROTOCOL) {
      throw new Error(`this adapter speaks protocol ${PROTOCOL} only`);
    }
    return { protocol: PROTOCOL, name: 'node-postgres', sessions: 'multiplexed',
      capabilities: CAPABILITIES };
  }

  async op_open_session() {
    await this.store.db(); // the migration is in place before any session's step
    const number = this.nextSession++;
    // A closed session's connection is reused, as a host's pool would: connecting is what
    // makes a race of many sessions slow.
    let queue = this.idle.pop();
    while (queue && (queue.client.broken || queue.hooks?.broken)) {
      await queue.close();
      queue = this.idle.pop();
    }
    this.sessions.set(number, queue ?? (await Queue.open()));
    return { session: number };
  }

  async op_close_session(message) {
    const queue = this.session(message);
    this.sessions.delete(Number(message.session));
    if (queue.client.broken || queue.hooks?.broken || this.idle.length >= IDLE_SESSIONS) {
      await queue.close();
      return;
    }
    this.idle.push(queue);
  }

  async op_enqueue_once(message) {
    const wire = message.request;
    const request = {
      desk_id: fromWire(wire.conversation.desk_id),
      thread_root: wire.conversation.thread_root,
      sequence: wire.key.trigger_sequence,
      source_id: fromWire(wire.source_id),
      target_id: fromWire(wire.target_id),
      content: fromWire(wire.content),
      child_hop: Number(wire.child_hop),
    };
    const session = Number(message.session);
    const hook = this.hooked ? (point) => this.hook(session, point) : null;
    return { outcome: await this.session(message).enqueueOnce(request, hook) };
  }

  async op_claim(message) {
    return { lease: await this.session(message).claim(message.duration) };
  }

  async op_renew(message) {
    return { expires_at: await this.session(message).renew(message.token, message.duration) };
  }

  async op_complete(message) {
    return { state: await this.session(message).complete(message.token) };
  }

  async op_fail(message) {
    return { state: await this.session(message).fail(message.token) };
  }

  // ---- the harness ----

  async op_reset() {
    this.hooked = false;
    await this.store.query('TRUNCATE thm_reply, thm_policy, thm_forbidden_pair,' +
      ' thm_available_agent, thm_idempotency, thm_child_turn');
  }

  async op_commit_reply({ reply }) {
    await this.store.query('SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)', [
      fromWire(reply.conversation.desk_id), u64(reply.conversation.thread_root), u64(reply.sequence),
      fromWire(reply.author_id), fromWire(reply.content), Number(reply.hop)]);
  }

  async op_set_policy({ policy }) {
    await this.store.query('INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2)' +
      ' ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, max_hops = excluded.max_hops',
    [policy.enabled === true, Number(policy.max_hops)]);
  }

  async op_set_authorized(message) {
    await this.store.query(message.authorized
      ? 'DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2'
      : 'INSERT INTO thm_forbidden_pair VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [fromWire(message.source_id), fromWire(message.target_id)]);
  }

  async op_set_available(message) {
    await this.store.query(message.available
      ? 'INSERT INTO thm_available_agent VALUES ($1) ON CONFLICT DO NOTHING'
      : 'DELETE FROM thm_available_agent WHERE agent_id = $1', [fromWire(message.agent_id)]);
  }

  op_set_hook(message) {
    this.hooked = message.installed === true;
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
        id: integer(row.id), key: toWire(row.turn_key), request: requestToWire(row),
        state: row.state, attempts: integer(row.attempts),
        lease_expires_at: integer(row.lease_expires_at),
      })),
    };
  }

  async op_unique_key_index() {
    // The first unique index of the idempotency table other than its primary key.
    const rows = await this.store.query(
      'SELECT i.indpred IS NOT NULL AS partial, array(SELECT a.attname::text' +
        ' FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)' +
        ' JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum' +
        ' ORDER BY k.ord) AS columns' +
        " FROM pg_index i WHERE i.indrelid = 'thm_idempotency'::regclass" +
        ' AND i.indisunique AND NOT i.indisprimary ORDER BY i.indexrelid LIMIT 1');
    return { index: rows.length ? { columns: rows[0].columns, partial: rows[0].partial } : null };
  }

  async op_store_now() {
    return { now: integer((await this.store.query('SELECT thm_now() AS now'))[0].now) };
  }

  async op_reopen() {
    await this.store.reopen();
  }

  op_restart_store() {
    // Only the host knows how to restart its server; CTest passes the throwaway cluster's.
    const command = process.env.THM_POSTGRES_RESTART;
    if (command) execSync(command, { stdio: ['ignore', 'inherit', 'inherit'] });
  }
}

// ---- main ------------------------------------------------------------------------------------

const adapter = new Adapter((text) => process.stdout.write(text));
console.log = console.error; // a stray console.log must never corrupt the protocol stream
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => adapter.receive(line));
lines.on('close', async () => {
  await adapter.finish();
  process.exit(0);
});
