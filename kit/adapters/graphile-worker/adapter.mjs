#!/usr/bin/env node
// The conformance suite's adapter over graphile-worker 0.17.3 (kit/protocol/PROTOCOL.md, version
// 1): child turns are graphile-worker jobs of the task `thm_child_turn`, in the schema
// `graphile_worker` of the database the PG* variables name. Two recipes
// (kit/adapters/COMPATIBILITY.md says what each proves):
//
//   node adapter.mjs --recipe as-documented
//     graphile-worker as its documentation tells a host to deduplicate: a `job_key` (the
//     SHA-256 of the turn key in hex: a key holds at most 512 characters) with
//     `job_key_mode => 'unsafe_dedupe'`, which adds a job only if none has that key, and
//     the answer's `revision` (0 for a new job) as enqueued or already. The host's checks
//     (the stored reply and the live policy) run first, in a transaction of their own; then
//     `graphile_worker.add_job`.
//
//   node adapter.mjs --recipe thm-safe
//     thm's record in the same transaction as the job: BEGIN, thm_admit (thm_queue.sql),
//     `graphile_worker.add_job` on the same connection, COMMIT. The record outlives the job,
//     which graphile-worker deletes when it completes.
//
// Neither declares leases: graphile-worker has no public call that claims one job for a
// caller; its workers take jobs inside `run()` and settle them by returning from the task,
// under a lock fixed at 4 hours with no token and no renewal (COMPATIBILITY.md).
//
// Environment: PG* for the database; THM_POSTGRES_RESTART, a shell command that restarts the
// server, makes `restart_store` real; THM_QUEUE_SQL as for kit/protocol/node.
import { makeWorkerUtils } from 'graphile-worker';
import pg from 'pg';

import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall,
} from '../../protocol/node/postgres.mjs';
import { checkLimits, integer, serve, toWire, u64 } from '../../protocol/node/protocol.mjs';
import { commandLine, keyOf, payloadOf, requestOf } from '../library.mjs';

const { recipe: RECIPE } = commandLine();
const SAFE = RECIPE === 'thm-safe';
const NAME = `graphile-worker-${RECIPE}`;
const TASK = 'thm_child_turn';
const SCHEMA = 'graphile_worker';

const CAPABILITIES = {
  hooks: SAFE, // as documented, no one transaction holds the checks and add_job
  row_locking: SAFE, // as documented, the reply and policy are read before add_job, unlocked
  persistent: true,
  sql_schema: true,
  leases: false,
  injected_store_clock: false,
  skewable_client_clock: false,
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: null,
};

// A job's child id for the protocol: thm-safe's record id, or (as documented) the job's id.
const CHILD_ID = SAFE ? "(j.payload->>'child_id')::bigint" : 'j.id';
// The task's jobs (graphile-worker deletes completed ones), with what the inspector shows.
const JOBS = `SELECT ${CHILD_ID} AS child_id, j.id, j.key, j.payload, j.attempts, j.max_attempts,
    j.locked_at FROM ${SCHEMA}._private_jobs j JOIN ${SCHEMA}._private_tasks t ON t.id = j.task_id
  WHERE t.identifier = '${TASK}'`;

class Queue extends SessionQueue {
  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    const client = this.session.client;
    if (SAFE) {
      return admitAndInsert(this.session, request, hook, (admitted) =>
        client.query(`SELECT id FROM ${SCHEMA}.add_job($1, $2::json)`,
          [TASK, payloadOf(request, admitted.turn_key, admitted.record_id)]));
    }
    // Then the job, in a transaction of its own, as a host that checks and then adds it.
    return checkThenCall(this.session, request, (key) => this.session.step(null, async () => {
      const { rows: [job] } = await client.query(
        `SELECT revision FROM ${SCHEMA}.add_job($1, $2::json,` +
          " job_key => encode(sha256($3), 'hex'), job_key_mode => 'unsafe_dedupe')",
        [TASK, payloadOf(request, key), key]);
      return { status: job.revision === 0 ? 'enqueued' : 'already' };
    }));
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
        state: job.attempts >= job.max_attempts ? 'failed' : 'pending',
        attempts: job.attempts, lease_expires_at: null,
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
