#!/usr/bin/env node
// The conformance suite's adapter over pg-boss 10.4.2 (kit/protocol/PROTOCOL.md, version 1):
// child turns are pg-boss jobs in one queue per recipe (`thm-child-turn-as-documented`,
// `thm-child-turn-thm-safe`), in the schema `pgboss` of the database the PG* variables name. Two recipes (kit/adapters/COMPATIBILITY.md says what each
// proves):
//
//   node adapter.mjs --recipe as-documented
//     pg-boss as its documentation tells a host to deduplicate: a `stately` queue (one job
//     per key queued and one active, the strictest policy) with the turn key as
//     `singletonKey`, and `send`'s `null` as "already". The host's checks (the stored reply
//     and the live policy) run first, in a transaction of their own, as a host that calls
//     `boss.send()` after checking writes them; then `send`. Leases are pg-boss's own:
//     `fetch` claims, the job id is the token, `complete` and `fail` settle, and a job
//     expires `expireInSeconds` after its fetch (set per job at send: here 1 s, pg-boss's
//     shortest; 15 minutes by default), to be released by pg-boss's maintenance.
//     `--expire before-fetch` calls pg-boss's `expire()` before each `fetch`, so that a job
//     whose lease ended is claimable at once: `expire()` is in pg-boss's type definitions,
//     not in its documentation, which leaves expiry to maintenance (`--expire maintenance`,
//     the default).
//
//   node adapter.mjs --recipe thm-safe
//     thm's record in the same transaction as the job: BEGIN, thm_admit (thm_queue.sql:
//     the stored reply read FOR SHARE, the policy locked and revalidated, the record inserted
//     on its unconditional unique key), `send(..., { db })` on the same connection, COMMIT.
//     The record outlives the job, so a replay is `already` after the job completed, was
//     archived or was deleted. pg-boss has no per-claim token, duration or renewal, so this
//     recipe declares no leases: they stay pg-boss's worker's business, and unproven.
//
// Environment: PG* for the database; THM_POSTGRES_RESTART, a shell command that restarts the
// server, makes `restart_store` real; THM_QUEUE_SQL as for kit/protocol/node.
import PgBoss from 'pg-boss';

import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall, fromStore,
} from '../../protocol/node/postgres.mjs';
import {
  LeaseError, QueueError, checkLimits, integer, serve, toWire, u64, validDuration,
} from '../../protocol/node/protocol.mjs';
import {
  commandLine, keyOf, leaseCall, requestOf, turnState,
} from '../library.mjs';
import { childTurnPayload } from '../recipe.mjs';
import { sendChildTurn } from './recipe.mjs';

const { recipe: RECIPE, expire: EXPIRE = 'maintenance' } =
  commandLine({ expire: [undefined, 'maintenance', 'before-fetch'] });
const SAFE = RECIPE === 'thm-safe';

const SCHEMA = 'pgboss';
const QUEUE = `thm-child-turn-${RECIPE}`; // a queue's policy is fixed when it is created
const RETRY_LIMIT = 2; // pg-boss's default: a job is fetched at most 3 times
// A job's lease, fixed when it is sent: pg-boss's shortest, the nearest it comes to the
// suite's 300 ms leases (its default is 15 minutes).
const EXPIRE_IN_SECONDS = 1;
const NAME = `pg-boss-${RECIPE}${EXPIRE === 'before-fetch' ? '-expire-before-fetch' : ''}`;

const CAPABILITIES = {
  hooks: SAFE, // as documented, no one transaction holds the checks and the insert
  row_locking: SAFE, // as documented, the reply and policy are read before send, unlocked
  persistent: true,
  sql_schema: true,
  leases: !SAFE,
  injected_store_clock: false,
  skewable_client_clock: !SAFE, // pg-boss stamps and expires jobs with the server's now()
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: RETRY_LIMIT + 1,
};

const log = (...parts) => console.error(`${NAME}:`, ...parts);

// A job's number for the protocol, whose child ids are u64s: thm-safe's record id, or (as
// documented) the first 64 bits of the job's uuid.
const CHILD_NUMBER = SAFE
  ? "(data->>'child_id')::numeric"
  : "thm_column_to_u64(('x' || left(replace(id::text, '-', ''), 16))::bit(64)::bigint)";
// Every job of the queue, live or archived, with what the inspector shows of it.
const JOBS = `SELECT ${CHILD_NUMBER} AS child_id, id, data, state::text AS state, started_on,
    retry_count, (extract(epoch FROM started_on + expire_in) * 1000)::bigint AS expires_at
  FROM (SELECT id, data, state, started_on, retry_count, expire_in FROM ${SCHEMA}.job WHERE name = $1
        UNION ALL
        SELECT id, data, state, started_on, retry_count, expire_in FROM ${SCHEMA}.archive WHERE name = $1) j`;

// ---- one session --------------------------------------------------------------------------

class Queue extends SessionQueue {
  constructor(session, boss) {
    super(session);
    this.boss = boss;
  }

  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    if (SAFE) {
      // A job pg-boss did not insert is the recipe's error, `internal` here.
      const client = this.session.client;
      return admitAndInsert(this.session, request, hook, (admitted) =>
        sendChildTurn(this.boss, QUEUE, client, request, admitted).catch((error) => {
          throw fromStore(error, client) ? error : new QueueError('internal', error.message);
        }));
    }
    return checkThenCall(this.session, request, async (key) => {
      let id;
      try {
        id = await this.boss.send(QUEUE, childTurnPayload(request, key), { singletonKey: key.toString('hex') });
      } catch (error) {
        if (!fromStore(error, null)) throw error;
        throw new QueueError('unavailable', `pg-boss send failed: ${error.message}`);
      }
      return { status: id === null ? 'already' : 'enqueued' };
    });
  }

  // ---- leases as documented: fetch, the job id as the token, complete and fail ----

  leaseCall(run) {
    return leaseCall(this.session, run, log);
  }

  // A job by id as the inspector sees it; undefined when there is none.
  async job(id) {
    const rows = await this.session.client.query(`${JOBS} WHERE id = $2`, [QUEUE, id]);
    return rows.rows[0];
  }

  async claim(duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    return this.leaseCall(async () => {
      // pg-boss fetches with no duration: the job's expire_in, fixed at send, is the lease.
      if (EXPIRE === 'before-fetch') await this.boss.expire();
      const [job] = await this.boss.fetch(QUEUE);
      if (!job) return null;
      const row = await this.job(job.id);
      return {
        child_id: integer(row.child_id), token: job.id, expires_at: integer(row.expires_at),
        attempt: row.retry_count + 1, request: requestOf(job.data),
      };
    });
  }

  // pg-boss has no renewal: a live job's lease cannot be extended, which is `unavailable`.
  // A token with no live lease is stale: its job is not active, or its lease ended on the
  // server's clock (pg-boss leaves an expired job `active` until maintenance runs).
  async renew(token, duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    const row = await this.leaseCall(async () => (await this.session.client.query(
      `SELECT state, expires_at <= thm_now() AS expired FROM (${JOBS} WHERE id = $2) j`,
      [QUEUE, token])).rows[0]);
    if (row?.state !== 'active' || row.expired) throw new LeaseError('stale_token');
    log('renew: pg-boss cannot extend a job\'s lease');
    throw new LeaseError('unavailable');
  }

  async settle(how, token) {
    return this.leaseCall(async () => {
      const answer = await this.boss[how](QUEUE, token);
      if (answer.affected === 0) throw new LeaseError('stale_token');
      const job = await this.job(token);
      if (!job) throw new Error(`pg-boss ${how}d job ${token}, and then it was gone`);
      return turnState(job.state);
    });
  }

  complete(token) {
    return this.settle('complete', token);
  }

  fail(token) {
    return this.settle('fail', token);
  }
}

// ---- the protocol's operations ---------------------------------------------------------------

class PgBossAdapter extends PostgresAdapter {
  constructor() {
    super({ name: NAME, capabilities: CAPABILITIES });
    this.boss = null; // started by the first operation that needs it
  }

  // pg-boss on the PG* database, its schema created or upgraded by start(), without its
  // supervisor (maintenance runs when the suite asks) or its scheduler. Finished jobs are
  // archived a second after they finish and dropped from the archive a second after that,
  // so that `run_maintenance` sees the end of their life without waiting for the defaults
  // (12 hours, 7 days).
  async boot() {
    const boss = new PgBoss({
      host: process.env.PGHOST, port: Number(process.env.PGPORT) || undefined,
      user: process.env.PGUSER, database: process.env.PGDATABASE, schema: SCHEMA,
      supervise: false, schedule: false, max: 16,
      archiveCompletedAfterSeconds: 1, deleteAfterSeconds: 1,
    });
    boss.on('error', (error) => log('pg-boss:', error.message));
    await boss.start();
    const queue = { policy: SAFE ? 'standard' : 'stately', retryLimit: RETRY_LIMIT, retryDelay: 0,
      expireInSeconds: EXPIRE_IN_SECONDS };
    await boss.createQueue(QUEUE, queue);
    await boss.updateQueue(QUEUE, queue); // a queue an earlier run made keeps its options else
    this.boss = boss;
    return boss;
  }

  async openQueue() {
    const boss = await this.started();
    return new Queue(await Session.open(undefined, log), boss);
  }

  async close() {
    await this.boss?.stop({ graceful: false, wait: true }).catch(() => {});
    await super.close();
  }

  // ---- the harness ----

  async reset() {
    await this.started();
    await this.store.truncateHost();
    await this.store.query(`DELETE FROM ${SCHEMA}.job WHERE name = $1`, [QUEUE]);
    await this.store.query(`DELETE FROM ${SCHEMA}.archive WHERE name = $1`, [QUEUE]);
  }

  // The host settles a job whatever its state: pg-boss's complete and fail take only active
  // jobs, so the states are written as they would end; a dead letter is pg-boss's `failed`;
  // delete is pg-boss's deleteJob.
  async op_settle(message) {
    await this.started();
    const [job] = await this.store.query(`${JOBS} WHERE ${CHILD_NUMBER} = $2`,
      [QUEUE, u64(message.child_id)]);
    if (!job) throw new Error(`no job with child id ${message.child_id}`);
    if (message.how === 'delete') {
      await this.boss.deleteJob(QUEUE, job.id);
      return;
    }
    const state = { complete: 'completed', fail: 'failed', dead_letter: 'failed' }[message.how];
    if (!state) throw new Error(`unknown way to settle: ${message.how}`);
    await this.store.query(`UPDATE ${SCHEMA}.job SET state = $3::${SCHEMA}.job_state,` +
      ' completed_on = now() WHERE name = $1 AND id = $2', [QUEUE, job.id, state]);
  }

  // pg-boss's own maintenance, once its retention has passed: expire, archive, drop.
  async op_run_maintenance() {
    const boss = await this.started();
    await boss.expire();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await boss.archive();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await boss.drop();
  }

  // As documented, the records are the keys pg-boss holds: the stately queue's unique index
  // covers jobs up to `active`. On thm-safe, thm's records.
  async op_records() {
    await this.started();
    const rows = SAFE
      ? await this.store.query('SELECT turn_key AS key, id AS child_id FROM thm_idempotency ORDER BY id')
      : await this.store.query(`SELECT decode(singleton_key, 'hex') AS key, ${CHILD_NUMBER} AS child_id
          FROM ${SCHEMA}.job WHERE name = $1 AND state <= 'active' ORDER BY created_on`, [QUEUE]);
    return { records: rows.map((row) => ({ key: toWire(row.key), child_id: integer(row.child_id) })) };
  }

  async op_children() {
    await this.started();
    const rows = await this.store.query(`${JOBS} ORDER BY child_id`, [QUEUE]);
    return {
      children: rows.map((row) => ({
        id: integer(row.child_id), key: toWire(keyOf(row.data)),
        request: requestOf(row.data), state: turnState(row.state),
        attempts: row.started_on === null ? 0 : row.retry_count + 1,
        lease_expires_at: row.state === 'active' ? integer(row.expires_at) : null,
      })),
    };
  }

  // As documented, the unique index pg-boss's stately policy puts on the queue's partition;
  // on thm-safe, thm's.
  async op_unique_key_index() {
    await this.started();
    if (SAFE) return { index: await this.store.uniqueKeyIndex('thm_idempotency') };
    // The queue's partition of pgboss.job (pg-boss names it after a hash of the queue).
    const [partition] = await this.store.query(
      `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = '${SCHEMA}.job'::regclass
          AND pg_get_expr(c.relpartbound, c.oid) = format('FOR VALUES IN (%L)', $1::text)`, [QUEUE]);
    if (!partition) return { index: null };
    // The index is on expressions (coalesce(singleton_key, '')): each column as its text.
    const rows = await this.store.query(
      'SELECT i.indpred IS NOT NULL AS partial, array(SELECT pg_get_indexdef(i.indexrelid, k, true)' +
        ' FROM generate_series(1, i.indnkeyatts) AS k ORDER BY k) AS columns FROM pg_index i' +
        " WHERE i.indrelid = $1::regclass AND i.indisunique AND pg_get_indexdef(i.indexrelid)" +
        " LIKE '%singleton_key%' AND pg_get_indexdef(i.indexrelid) LIKE '%stately%'" +
        ' ORDER BY i.indexrelid LIMIT 1', [partition.name]);
    return { index: rows.length ? { columns: rows[0].columns, partial: rows[0].partial } : null };
  }
}

serve(new PgBossAdapter());
