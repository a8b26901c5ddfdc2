// What every Node.js adapter on PostgreSQL shares: connections that know when they broke,
// store errors as QueueErrors, thm_queue.sql's migration, the enqueue transaction with its
// hook points, the hook seam inside thm_admit and thm_enqueue_once, and the harness's own
// connection with the host's writes (replies, policy, pairs, agents) on thm_queue.sql's
// tables. The reference adapter (adapter.mjs) and the adapters over pg-boss and
// graphile-worker (kit/adapters/*) import it.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

import {
  Adapter, QueueError, answerOf, fromWire, integer, turnName, u64,
} from './protocol.mjs';

/** thm_queue.sql's version, which migrate applies when the database holds an older one. */
export const SCHEMA_VERSION = 5;

/** The migration: THM_QUEUE_SQL, or the one in this source tree. */
export const MIGRATION =
  process.env.THM_QUEUE_SQL ||
  fileURLToPath(new URL('../../stores/postgres/thm_queue.sql', import.meta.url));

/** A lock wait's limit, below the suite's --exec-timeout of 30 s: the suite gets an answer. */
export const LOCK_TIMEOUT = '20s';

// thm_hook_point waits for the advisory lock (backend pid, HOOK_LOCK_BASE + n) at its n-th
// point: the five inside thm_enqueue_once (thm_admit has the middle two).
const HOOK_LOCK_BASE = 7411270;
const INNER_POINTS = {
  after_begin: 0, after_validate_reads: 1, after_idempotency_statement: 2, after_child_insert: 3,
  before_commit: 4,
};

// A PostgreSQL server's error, from any copy of `pg` (a library's own pg.DatabaseError is
// another class than this module's): it has a SQLSTATE (five digits or capitals) and a severity.
const sqlstate = (error) =>
  (typeof error?.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) && error.severity
    ? error.code : '');

/**
 * Whether `error` came from the store: a server's error (it has a SQLSTATE), or a lost or
 * refused connection. Anything else is the adapter's own bug and is answered as a failure.
 */
export function fromStore(error, client) {
  return sqlstate(error) !== '' || client?.broken === true ||
    /^E[A-Z]+$/.test(error?.code ?? '') ||
    /Connection terminated|not queryable/.test(error?.message ?? '');
}

/**
 * The QueueError for a store error: `unavailable` when retrying may succeed (a lost
 * connection, a shut-down server, a serialization failure or deadlock, a lock wait past
 * lock_timeout, too many connections, a cancelled statement); `internal` otherwise.
 */
export function storeError(error, what) {
  const code = sqlstate(error);
  const transient = !code || code.startsWith('08') || code.startsWith('57P') ||
    code.startsWith('53') || ['40001', '40P01', '55P03', '57014'].includes(code);
  return new QueueError(transient ? 'unavailable' : 'internal',
    `PostgreSQL error while ${what}${code ? ` (SQLSTATE ${code})` : ''}: ${error?.message}`);
}

/** A connected pg.Client that remembers whether it broke (a server restart, a killed backend). */
export async function connect(connection, log = console.error) {
  const client = new pg.Client(connection);
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

/** Applies thm_queue.sql once, under the advisory lock every opener takes (PostgresQueue too). */
export async function migrate(client) {
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

/** The answer `proceed` for a point, from a hook function (null: no hook, always proceed). */
const passes = async (hook, point) => {
  if (hook !== null && !(await hook(point))) {
    throw new QueueError('unavailable', `the step was rolled back at ${point}`);
  }
};

/**
 * One session's connection, with the hook seam of kit/stores/postgres/README.md: with hooks
 * installed the connection has thm.hooks = 'on', and a second connection holds the advisory
 * locks (backend pid, 7411270…7411274) during a call. Each `thm hook <point>` notice becomes
 * a hook call; on proceed the point's go-ahead lock (7411280 + n) is taken and its lock
 * released, otherwise the backend is cancelled and the step fails there, rolled back.
 */
export class Session {
  /** A session on `connection` (a connection string, or undefined for the PG* variables). */
  static async open(connection, log) {
    const session = new Session(await connect(connection, log), connection, log);
    await session.client.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
    session.client.on('notice', (notice) => session.onNotice(notice));
    return session;
  }

  constructor(client, connection, log) {
    this.client = client;
    this.connection = connection;
    this.log = log;
    this.hooks = null; // the second connection, opened by the first hooked step
    this.seamOn = false; // thm.hooks on the session's connection
    this.inner = null; // the hooked call in flight: {hook, refusedAt, answered}
  }

  /** Whether either connection broke: the session is then not reused. */
  get broken() {
    return this.client.broken || this.hooks?.broken === true;
  }

  async close() {
    await Promise.allSettled([this.client.end(), this.hooks?.end()]);
  }

  /**
   * SPEC §4's step as one transaction: BEGIN, `after_begin`, then `decide(passes)`, which
   * runs the statements and resolves to an outcome. `enqueued` goes on to `before_commit`,
   * COMMIT and `after_commit_before_return`; any other outcome rolls back and is the answer.
   * `decide` calls `at(point)` for points of its own (a library's insert's
   * `after_child_insert`), and `this.call(sql, parameters, hook)` for a statement whose
   * inner points come through the seam. Store errors become QueueErrors; a COMMIT that
   * fails on a live connection rolled back (`unavailable`), on a lost one nobody knows
   * (`indeterminate`).
   */
  async step(hook, decide) {
    if (this.client.broken) throw new QueueError('unavailable', 'the session lost its connection');
    let open = false;
    try {
      await this.armSeam(hook !== null);
      await this.client.query('BEGIN');
      open = true;
      await passes(hook, 'after_begin');
      const outcome = await decide((point) => passes(hook, point));
      if (outcome.status !== 'enqueued') return outcome;
      await passes(hook, 'before_commit');
      open = false;
      try {
        await this.client.query('COMMIT');
      } catch (error) {
        const failed = storeError(error, 'committing');
        failed.kind = this.client.broken ? 'indeterminate' : 'unavailable';
        throw failed;
      }
      if (hook !== null && !(await hook('after_commit_before_return'))) {
        throw new QueueError('indeterminate', 'the answer was lost after commit');
      }
      return outcome;
    } catch (error) {
      if (error instanceof QueueError || !fromStore(error, this.client)) throw error;
      throw storeError(error, 'enqueueing');
    } finally {
      if (open && !this.client.broken) await this.client.query('ROLLBACK').catch(() => {});
    }
  }

  /**
   * SPEC §4's step as one statement in autocommit, the statement production runs: `sql`
   * (thm_enqueue_once) raises five of the six hook points through the seam, and
   * `after_commit_before_return` follows an outcome that `enqueued(rows)` says wrote.
   * Resolves to the rows. A statement that fails on a live connection rolled back
   * (`unavailable`); on a lost one nobody knows (`indeterminate`).
   */
  async autocommitStep(hook, sql, parameters, enqueued) {
    if (this.client.broken) throw new QueueError('unavailable', 'the session lost its connection');
    let rows;
    try {
      await this.armSeam(hook !== null);
      rows = await this.call(sql, parameters, hook);
    } catch (error) {
      if (error instanceof QueueError || !fromStore(error, this.client)) throw error;
      const failed = storeError(error, 'enqueueing');
      if (this.client.broken) failed.kind = 'indeterminate';
      throw failed;
    }
    if (enqueued(rows) && hook !== null && !(await hook('after_commit_before_return'))) {
      throw new QueueError('indeterminate', 'the answer was lost after commit');
    }
    return rows;
  }

  /** One statement, its rows; with `hook`, the points it raises through the seam are answered. */
  async call(sql, parameters, hook) {
    if (hook === null) return (await this.client.query(sql, parameters)).rows;
    const backend = this.client.processID;
    await this.hooks.query(
      'SELECT pg_advisory_lock($1, $2 + point) FROM generate_series(0, 4) point',
      [backend, HOOK_LOCK_BASE]);
    const step = { hook, refusedAt: null, answered: Promise.resolve() };
    this.inner = step;
    try {
      return (await this.client.query(sql, parameters)).rows;
    } catch (error) {
      if (step.refusedAt) {
        throw new QueueError('unavailable', `the step was rolled back at ${step.refusedAt}`);
      }
      throw error;
    } finally {
      this.inner = null;
      await step.answered;
      await this.hooks.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    }
  }

  // thm_hook_point's notice: ask the suite, then let the step go on or cancel it there.
  onNotice(notice) {
    const step = this.inner;
    const match = /^thm hook (\w+)$/.exec(notice.message ?? '');
    if (!step || !match) return;
    const point = match[1];
    const ordinal = INNER_POINTS[point];
    const backend = this.client.processID;
    step.answered = step.answered.then(async () => {
      if ((await step.hook(point)) && ordinal !== undefined) {
        // The go-ahead first (the lock thm_hook_point checks), then the point's own lock.
        await this.hooks.query(
          'SELECT pg_advisory_unlock($1, $2) FROM (SELECT pg_advisory_lock($1, $2 + 10)) go_ahead',
          [backend, HOOK_LOCK_BASE + ordinal]);
        return;
      }
      step.refusedAt = point;
      await this.hooks.query('SELECT pg_cancel_backend($1)', [backend]);
    }).catch((error) => this.log('answering a hook point:', error.message));
  }

  // Turns thm_hook_point on or off for this session, opening the second connection once.
  async armSeam(on) {
    if (on && (!this.hooks || this.hooks.broken)) {
      await this.hooks?.end().catch(() => {});
      this.hooks = await connect(this.connection, this.log);
    }
    if (on !== this.seamOn) {
      await this.client.query(`SET thm.hooks = '${on ? 'on' : 'off'}'`);
      this.seamOn = on;
    }
  }
}

/** The request's parameters for thm_check, thm_admit and thm_enqueue_once, in their order. */
export const requestParameters = (request) => [request.desk_id, u64(request.thread_root),
  u64(request.sequence), request.source_id, request.target_id, request.content, request.child_hop];

/**
 * thm_check on `session`'s connection (inside its open transaction): the stored reply and
 * the live policy, locked until the transaction ends, without a decision. Resolves to
 * {outcome: 'ok' | 'refused' | 'trigger_missing' | 'trigger_mismatch', reason, turn_key}.
 */
export async function thmCheck(session, request) {
  const [row] = await session.call(
    'SELECT outcome, reason, turn_key FROM thm_check($1, $2, $3, $4, $5, $6, $7)',
    requestParameters(request), null);
  return row;
}

/**
 * thm_admit on `session`'s connection (inside its open transaction), its inner hook points
 * answered through `hook` (null: none). Resolves to {outcome: 'admitted' | 'already' | ...,
 * reason, record_id, turn_key}.
 */
export async function thmAdmit(session, request, hook) {
  const [row] = await session.call(
    'SELECT outcome, reason, record_id, turn_key FROM thm_admit($1, $2, $3, $4, $5, $6, $7)',
    requestParameters(request), hook);
  return row;
}

/**
 * SPEC §4's step for a host whose child is another library's job (a thm-safe recipe): in
 * one transaction on `session`, thm_admit, then on `admitted` `insert(admitted)` (the
 * library's insert on this connection, given {record_id, turn_key}), then
 * `after_child_insert`; committed when it enqueued. Any other outcome is the answer.
 */
export function admitAndInsert(session, request, hook, insert) {
  return session.step(hook, async (at) => {
    const row = await thmAdmit(session, request, hook);
    if (row.outcome !== 'admitted') return answerOf(row.outcome, row.reason, turnName(request));
    await insert(row);
    await at('after_child_insert');
    return { status: 'enqueued' };
  });
}

/**
 * A host that checks and then calls its library (a recipe as documented): thm_check in a
 * transaction of its own, then, when the checks pass, `call(turnKey)`, whose answer is the
 * outcome. A refusal or mismatch is the answer, and `call` is not made.
 */
export async function checkThenCall(session, request, call) {
  const checked = await session.step(null, async () => {
    const row = await thmCheck(session, request);
    return row.outcome === 'ok' ? { status: 'checked', key: row.turn_key }
      : answerOf(row.outcome, row.reason, turnName(request));
  });
  return checked.status === 'checked' ? call(checked.key) : checked;
}

/** A session's queue over one `Session`: what the adapters' queues share. */
export class SessionQueue {
  constructor(session) {
    this.session = session;
  }

  /** Whether the session's connections broke: the queue is then not reused. */
  get broken() {
    return this.session.broken;
  }

  close() {
    return this.session.close();
  }
}

/**
 * The harness's own connection: the host's writes and the inspector, one statement at a
 * time (harness operations may arrive together). A lost connection is replaced; the first
 * connection applies the migration.
 */
export class Store {
  constructor(connection, log) {
    this.connection = connection;
    this.log = log;
    this.connecting = null; // the one connect-and-migrate in progress or done
    this.last = Promise.resolve(); // the statement the next one waits for
  }

  /** The connection, migrated; concurrent callers share one attempt. */
  db() {
    this.connecting ??= (async () => {
      const client = await connect(this.connection, this.log);
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

  /** One statement's rows. */
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

  // ---- the host's writes on thm_queue.sql's tables (PROTOCOL.md §4) ----

  /** Empties the host's tables (replies, policy, pairs, agents, records, thm's children). */
  truncateHost() {
    return this.query('TRUNCATE thm_reply, thm_policy, thm_forbidden_pair,' +
      ' thm_available_agent, thm_idempotency, thm_child_turn');
  }

  commitReply(reply) {
    return this.query('SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)', [
      fromWire(reply.conversation.desk_id), u64(reply.conversation.thread_root), u64(reply.sequence),
      fromWire(reply.author_id), fromWire(reply.content), Number(reply.hop)]);
  }

  setPolicy(policy) {
    return this.query('INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2)' +
      ' ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, max_hops = excluded.max_hops',
    [policy.enabled === true, Number(policy.max_hops)]);
  }

  setAuthorized({ source_id, target_id, authorized }) {
    return this.query(authorized
      ? 'DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2'
      : 'INSERT INTO thm_forbidden_pair VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [fromWire(source_id), fromWire(target_id)]);
  }

  setAvailable({ agent_id, available }) {
    return this.query(available
      ? 'INSERT INTO thm_available_agent VALUES ($1) ON CONFLICT DO NOTHING'
      : 'DELETE FROM thm_available_agent WHERE agent_id = $1', [fromWire(agent_id)]);
  }

  /**
   * The first unique index of `table` other than its primary key, or with `primary` its
   * primary key: {columns, partial} or null.
   */
  async uniqueKeyIndex(table, { primary = false } = {}) {
    const rows = await this.query(
      'SELECT i.indpred IS NOT NULL AS partial, array(SELECT a.attname::text' +
        ' FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)' +
        ' JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum' +
        ' ORDER BY k.ord) AS columns' +
        ' FROM pg_index i WHERE i.indrelid = $1::regclass' +
        ' AND i.indisunique AND i.indisprimary = $2 ORDER BY i.indexrelid LIMIT 1', [table, primary]);
    return rows.length ? { columns: rows[0].columns, partial: rows[0].partial } : null;
  }
}

/**
 * An adapter whose host keeps its replies and policy in thm_queue.sql's tables on the PG*
 * database (or `connection`): the host's writes, the store clock, reopen and restart are
 * served here. A subclass gives `openQueue()` (its sessions' queues: `enqueueOnce(request,
 * hook)`, and with leases `claim(duration)`, `renew(token, duration)`, `complete(token)`,
 * `fail(token)`), `reset()` and the inspector (`op_records`, `op_children`, `op_settle`,
 * `op_run_maintenance`, `op_unique_key_index`).
 */
export class PostgresAdapter extends Adapter {
  constructor({ name, capabilities, connection }) {
    super({ name, capabilities });
    this.connection = connection;
    this.store = new Store(connection, (...parts) => this.log(...parts));
    this.booting = null; // started()'s one attempt, in progress or done
  }

  close() {
    return this.store.close();
  }

  /**
   * The store migrated and the subclass's `boot()` run, once: concurrent callers share one
   * attempt, and a failed one is tried again by the next caller. Resolves to what `boot()`
   * resolves to (a library's client, say).
   */
  started() {
    this.booting ??= (async () => {
      await this.store.db();
      return this.boot();
    })().catch((error) => {
      this.booting = null;
      throw error;
    });
    return this.booting;
  }

  /** What the adapter starts after the migration (a library, its schema); nothing here. */
  async boot() {}

  op_commit_reply({ reply }) {
    return this.store.commitReply(reply).then(() => {});
  }

  op_set_policy({ policy }) {
    return this.store.setPolicy(policy).then(() => {});
  }

  op_set_authorized(message) {
    return this.store.setAuthorized(message).then(() => {});
  }

  op_set_available(message) {
    return this.store.setAvailable(message).then(() => {});
  }

  async op_store_now() {
    return { now: integer((await this.store.query('SELECT thm_now() AS now'))[0].now) };
  }

  async op_reopen() {
    await this.store.reopen();
  }

  /** Runs THM_POSTGRES_RESTART, a shell command that restarts the server; none: nothing. */
  op_restart_store() {
    restartServer(process.env.THM_POSTGRES_RESTART);
  }
}

/**
 * Runs `command`, a shell command that restarts a server, and waits for it; none: nothing.
 * The server starts without libfaketime (LD_PRELOAD, FAKETIME_*), which the suite may have
 * put on this process to skew its clock (PROTOCOL.md §5), and with its output on stderr,
 * never on the protocol's stdout.
 */
export function restartServer(command) {
  if (!command) return;
  const env = Object.fromEntries(Object.entries(process.env)
    .filter(([name]) => name !== 'LD_PRELOAD' && !name.startsWith('FAKETIME')));
  // Bounded below the suite's --exec-timeout, so a stuck restart is this request's failure.
  execSync(command, { env, stdio: ['ignore', process.stderr, process.stderr], timeout: 25000 });
}
