#!/usr/bin/env node
// The conformance suite's adapter over graphile-worker 0.17.3 (kit/protocol/PROTOCOL.md, version
// 1): child turns are graphile-worker jobs of the task `thm_child_turn`, in the schema
// `graphile_worker` of the database the PG* variables name. Two recipes
// (kit/adapters/COMPATIBILITY.md says what each proves):
//
//   node adapter.mjs --recipe as-documented [--job-key-mode replace|unsafe_dedupe]
//     graphile-worker as its documentation tells a host to deduplicate: a `job_key` (the
//     SHA-256 of the turn key in hex: a key holds at most 512 characters) in the job key
//     mode the docs recommend, `replace` (the default: a job not yet locked takes the new
//     payload and keeps its id; a locked one loses its key to a new job), or in
//     `unsafe_dedupe` (a job is added only if none has the key), which the docs advise
//     against. The answer's `revision` (0 for a new job) is enqueued or already. The host's
//     checks (the stored reply and the live policy) run first, in a transaction of their
//     own; then `graphile_worker.add_job`. Leases are graphile-worker's worker lock, taken
//     as its worker takes a job (below).
//
//   node adapter.mjs --recipe thm-safe
//     thm's record in the same transaction as the job: BEGIN, thm_admit (thm_queue.sql),
//     `graphile_worker.add_job` on the same connection, COMMIT. The record outlives the job,
//     which graphile-worker deletes when it completes. No leases declared: they are the
//     worker's, as in the recipe as documented.
//
// graphile-worker has no public call that claims one job for a caller: its workers take jobs
// inside `run()`. The claim here is the statement its worker runs to take a job (one
// available job of the task, `attempts` + 1, `locked_at` = now(), `locked_by` = the worker),
// with a worker id per claim as the token; the lock is fixed at 4 hours, whatever the claim
// asks, and has no renewal. Complete and fail are the worker's: complete deletes the job by id
// (whoever holds its lock), fail unlocks it only for the worker that holds it, with
// graphile-worker's back-off before the next attempt.
//
// Environment: PG* for the database; THM_POSTGRES_RESTART, a shell command that restarts the
// server, makes `restart_store` real; THM_QUEUE_SQL as for kit/protocol/node.
import { randomUUID } from 'node:crypto';

import { makeWorkerUtils } from 'graphile-worker';
import pg from 'pg';

import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall,
} from '../../protocol/node/postgres.mjs';
import {
  LeaseError, checkLimits, integer, serve, toWire, u64, validDuration,
} from '../../protocol/node/protocol.mjs';
import { commandLine, keyOf, leaseCall, requestOf } from '../library.mjs';
import { childTurnPayload } from '../recipe.mjs';
import { addChildTurn } from './recipe.mjs';

const { recipe: RECIPE, 'job-key-mode': KEY_MODE = 'replace' } =
  commandLine({ 'job-key-mode': [undefined, 'replace', 'unsafe_dedupe'] });
const SAFE = RECIPE === 'thm-safe';
const NAME = SAFE ? 'graphile-worker-thm-safe' : `graphile-worker-${KEY_MODE}`;
const TASK = 'thm_child_turn';
const SCHEMA = 'graphile_worker';
const MAX_ATTEMPTS = 3; // add_job's max_attempts (graphile-worker's default is 25)
const LOCK_MS = 4 * 3600 * 1000; // a worker's lock is stale after 4 hours
// The job each claim's worker took, by token: a worker keeps the job it runs in memory.
const TAKEN = new Map();

const CAPABILITIES = {
  hooks: SAFE, // as documented, no one transaction holds the checks and add_job
  row_locking: SAFE, // as documented, the reply and policy are read before add_job, unlocked
  persistent: true,
  sql_schema: true,
  leases: !SAFE,
  injected_store_clock: false,
  skewable_client_clock: !SAFE, // the lock is stamped with the server's now()
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: MAX_ATTEMPTS,
};

// A job's child id for the protocol: thm-safe's record id, or (as documented) the job's id.
const CHILD_ID = SAFE ? "(j.payload->>'child_id')::bigint" : 'j.id';
// The task's jobs (graphile-worker deletes completed ones), with what the inspector shows.
const JOBS = `SELECT ${CHILD_ID} AS child_id, j.id, j.key, j.payload, j.attempts, j.max_attempts,
    j.locked_by, (extract(epoch FROM j.locked_at) * 1000)::bigint + ${LOCK_MS} AS lock_expires_at FROM ${SCHEMA}._private_jobs j JOIN ${SCHEMA}._private_tasks t ON t.id = j.task_id
  WHERE t.identifier = '${TASK}'`;

class Queue extends SessionQueue {
  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    const client = this.session.client;
    if (SAFE) {
      return admitAndInsert(this.session, request, hook, (admitted) =>
        addChildTurn(client, TASK, request, admitted, { maxAttempts: MAX_ATTEMPTS }));
    }
    // Then the job, in a transaction of its own, as a host that checks and then adds it.
    return checkThenCall(this.session, request, (key) => this.session.step(null, async () => {
      const { rows: [job] } = await client.query(
        `SELECT revision FROM ${SCHEMA}.add_job($1, $2::json, max_attempts => $3,` +
          " job_key => encode(sha256($4), 'hex'), job_key_mode => $5)",
        [TASK, childTurnPayload(request, key), MAX_ATTEMPTS, key, KEY_MODE]);
      return { status: job.revision === 0 ? 'enqueued' : 'already' };
    }));
  }

  // ---- leases: the worker's lock (as documented only) ----

  // A statement of a lease call; a store error is `unavailable`.
  query(text, values) {
    return leaseCall(this.session, () => this.session.client.query(text, values),
      (...parts) => console.error(`${NAME}:`, ...parts));
  }

  async lease(token) {
    const { rows: [job] } = await this.query(`${JOBS} AND j.locked_by = $1`, [token]);
    return job;
  }

  async claim(duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    const worker = `thm-${randomUUID()}`;
    const { rows: [taken] } = await this.query(
      `UPDATE ${SCHEMA}._private_jobs AS j SET attempts = j.attempts + 1, locked_by = $1,
          locked_at = now()
        WHERE j.id = (SELECT k.id FROM ${SCHEMA}._private_jobs k
                        JOIN ${SCHEMA}._private_tasks t ON t.id = k.task_id
                       WHERE t.identifier = $2 AND k.is_available AND k.run_at <= now()
                       ORDER BY k.priority, k.run_at, k.id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING j.id`, [worker, TASK]);
    if (!taken) return null;
    TAKEN.set(worker, taken.id);
    const job = await this.lease(worker);
    return {
      child_id: integer(job.child_id), token: worker, expires_at: integer(job.lock_expires_at),
      attempt: job.attempts, request: requestOf(job.payload),
    };
  }

  // No renewal: a worker's lock is fixed at 4 hours. A token whose lock is gone is stale.
  async renew(token, duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    if (!(await this.lease(token))) throw new LeaseError('stale_token');
    throw new LeaseError('unavailable');
  }

  // The worker deletes its job by id, without asking who holds the lock now.
  async complete(token) {
    if (!TAKEN.has(token)) throw new LeaseError('stale_token');
    const { rowCount } = await this.query(
      `DELETE FROM ${SCHEMA}._private_jobs WHERE id = $1`, [TAKEN.get(token)]);
    if (rowCount === 0) throw new LeaseError('stale_token');
    return 'completed';
  }

  // The worker unlocks a failed job it holds, to run again after e^attempts seconds.
  async fail(token) {
    const { rows: [job] } = await this.query(
      `UPDATE ${SCHEMA}._private_jobs SET last_error = 'failed by the host', locked_by = NULL,
          locked_at = NULL, run_at = greatest(now(), run_at) + exp(least(attempts, 10)) * interval '1 second'
        WHERE locked_by = $1 RETURNING attempts, max_attempts`, [token]);
    if (!job) throw new LeaseError('stale_token');
    return job.attempts >= job.max_attempts ? 'failed' : 'pending';
  }
}

class GraphileWorkerAdapter extends PostgresAdapter {
  constructor() {
    super({ name: NAME, capabilities: CAPABILITIES });
  }

  // graphile-worker's schema, created or upgraded by its own migrate(), on a pool of the
  // PG* database.
  async boot() {
    const utils = await makeWorkerUtils({ pgPool: new pg.Pool({ max: 4 }), schema: SCHEMA });
    await utils.migrate();
    this.utils = utils;
    return utils;
  }

  async openQueue() {
    await this.started();
    return new Queue(await Session.open(undefined, (...parts) => this.log(...parts)));
  }

  async close() {
    await this.utils?.release().catch(() => {});
    await super.close();
  }

  async reset() {
    await this.started();
    await this.store.truncateHost();
    await this.store.query(`DELETE FROM ${SCHEMA}._private_jobs j USING ${SCHEMA}._private_tasks t` +
      ` WHERE t.id = j.task_id AND t.identifier = '${TASK}'`);
  }

  // graphile-worker's own calls: complete_jobs deletes a job (it keeps no completed jobs, so
  // `delete` is the same call), permanently_fail_jobs keeps it with its attempts spent (a
  // dead letter is the same).
  async op_settle(message) {
    await this.started();
    const [job] = await this.store.query(`${JOBS} AND ${CHILD_ID} = $1`, [u64(message.child_id)]);
    if (!job) throw new Error(`no job with child id ${message.child_id}`);
    const call = {
      complete: 'complete_jobs($1)', delete: 'complete_jobs($1)',
      fail: "permanently_fail_jobs($1, 'failed by the host')",
      dead_letter: "permanently_fail_jobs($1, 'dead-lettered by the host')",
    }[message.how];
    if (!call) throw new Error(`unknown way to settle: ${message.how}`);
    await this.store.query(`SELECT count(*) FROM ${SCHEMA}.${call}`, [[job.id]]);
  }

  // graphile-worker's cleanup: permanently failed jobs deleted, unused tasks and queues
  // forgotten.
  async op_run_maintenance() {
    const utils = await this.started();
    await utils.cleanup({ tasks: ['DELETE_PERMAFAILED_JOBS', 'GC_TASK_IDENTIFIERS', 'GC_JOB_QUEUES'] });
  }

  // As documented, the records are the keys graphile-worker holds: its jobs' job_key. On
  // thm-safe, thm's records.
  async op_records() {
    await this.started();
    const rows = SAFE
      ? await this.store.query('SELECT turn_key AS key, id AS child_id FROM thm_idempotency ORDER BY id')
      : (await this.store.query(`${JOBS} AND j.key IS NOT NULL ORDER BY j.id`))
        .map((job) => ({ key: keyOf(job.payload), child_id: job.child_id }));
    return { records: rows.map((row) => ({ key: toWire(row.key), child_id: integer(row.child_id) })) };
  }

  async op_children() {
    await this.started();
    const rows = await this.store.query(`${JOBS} ORDER BY child_id`);
    return {
      children: rows.map((job) => ({
        id: integer(job.child_id), key: toWire(keyOf(job.payload)), request: requestOf(job.payload),
        state: job.attempts >= job.max_attempts && !job.locked_by ? 'failed' : 'pending',
        attempts: job.attempts,
        lease_expires_at: job.locked_by ? integer(job.lock_expires_at) : null,
      })),
    };
  }

  // As documented, graphile-worker's unique index on the job key; on thm-safe, thm's.
  async op_unique_key_index() {
    await this.started();
    return {
      index: await this.store.uniqueKeyIndex(SAFE ? 'thm_idempotency' : `${SCHEMA}._private_jobs`),
    };
  }
}

serve(new GraphileWorkerAdapter());
