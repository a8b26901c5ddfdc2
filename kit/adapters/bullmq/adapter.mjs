#!/usr/bin/env node
// The conformance suite's adapter over BullMQ 6.7.0 (kit/protocol/PROTOCOL.md, version 1), on
// either of its backends:
//
//   node adapter.mjs --backend redis --recipe as-documented|thm-safe
//     child turns are jobs of the BullMQ queue `thm-child-turn-<recipe>` on the Redis server
//     at THM_REDIS_SOCKET; the host's replies and policy are thm_queue.sql's tables in the
//     PostgreSQL database the PG* variables name, as for a host whose chat lives in
//     PostgreSQL and whose jobs live in Redis.
//   node adapter.mjs --backend postgres --recipe as-documented|thm-safe
//     the same on BullMQ's PostgreSQL backend (`createPostgresBackend`, schema `bullmq`), in
//     the same database as the host's tables.
//
// Two recipes (kit/adapters/COMPATIBILITY.md says what each proves):
//
//   --recipe as-documented
//     BullMQ as its documentation tells a host to deduplicate: a `jobId` derived from the
//     turn key (the SHA-256 of it in hex, after a `k`: ids may not hold ':' or be all
//     digits), which `add` ignores while a job with that id exists. `add` answers a job built
//     from the caller's own data either way, so a host cannot tell a duplicate from a new job:
//     every add that resolves is answered enqueued. The host's checks run first, in a
//     PostgreSQL transaction of their own. Leases are BullMQ's manual fetching: a Worker
//     without a processor, `getNextJob(token)` with a new token per claim and the claim's
//     duration as the worker's `lockDuration`, `extendLock`, `moveToCompleted` and
//     `moveToFailed`; three attempts.
//
//   --recipe thm-safe
//     the relay (bullmq/recipe.mjs): decide in PostgreSQL and let BullMQ carry only decided
//     work. BullMQ writes jobs through its own connections (Redis, or its own PostgreSQL
//     pool), so no job can join the host's transaction: BEGIN, thm_admit (thm_queue.sql), a
//     row of an outbox table, COMMIT; then the relay adds the row as a job whose id is the
//     turn's and deletes the row. The relay runs after each enqueue that admitted and before
//     each claim (for rows a crash left). A staged row is a pending child. Leases as for the
//     recipe as documented.
//
// Environment: PG* for the host's database; THM_REDIS_SOCKET, the Redis server's unix
// socket; THM_REDIS_RESTART or THM_POSTGRES_RESTART, a shell command that restarts the
// backend's server, makes `restart_store` real.
import { randomUUID } from 'node:crypto';

import { Job, Queue, UnrecoverableError, Worker, createPostgresBackend } from 'bullmq';
import IORedis from 'ioredis';

import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall, restartServer,
} from '../../protocol/node/postgres.mjs';
import {
  LeaseError, QueueError, checkLimits, integer, serve, toWire, validDuration,
} from '../../protocol/node/protocol.mjs';
import {
  checkSettleWay, commandLine, keyOf, requestOf, turnState, withStagedChildren,
} from '../library.mjs';
import {
  OUTBOX_TABLE, childTurnPayload, stageChildTurn,
} from '../recipe.mjs';
import { jobIdOf, relayToBullMQ } from './recipe.mjs';

const { recipe: RECIPE, backend: BACKEND } = commandLine({ backend: ['redis', 'postgres'] });
const SAFE = RECIPE === 'thm-safe';
const ON_REDIS = BACKEND === 'redis';
const NAME = `bullmq-${BACKEND}-${RECIPE}`;
const QUEUE = `thm-child-turn-${RECIPE}`;
const ATTEMPTS = 3;
const SOCKET = process.env.THM_REDIS_SOCKET;
if (ON_REDIS && !SOCKET) {
  console.error(`${NAME}: THM_REDIS_SOCKET names no Redis server`);
  process.exit(2);
}
const { PGHOST, PGPORT, PGUSER, PGDATABASE } = process.env;
// BullMQ's workers need maxRetriesPerRequest null on Redis (they block on it). On
// PostgreSQL, BullMQ applies its own migrations under an advisory lock.
const CONNECTION = ON_REDIS ? { path: SOCKET, maxRetriesPerRequest: null } : {
  connectionString: `postgresql://${encodeURIComponent(PGUSER ?? '')}@/${encodeURIComponent(PGDATABASE ?? '')}` +
    `?host=${encodeURIComponent(PGHOST ?? '')}&port=${PGPORT ?? 5432}`,
  migrate: true,
};
const BACKEND_FACTORY = ON_REDIS ? undefined : createPostgresBackend;

const CAPABILITIES = {
  hooks: SAFE, // as documented, the checks and the add are two stores' calls, no one step
  row_locking: SAFE,
  persistent: true, // Redis with appendonly and fsync always (kit/scripts/redis_test_server)
  sql_schema: !ON_REDIS || SAFE, // on Redis as documented the record is a job, not a row
  leases: true,
  injected_store_clock: false,
  skewable_client_clock: true, // the adapter never reads its clock (BullMQ may: on PostgreSQL)
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: ATTEMPTS,
};

// A child id for the protocol (u64), from the job id: the first 64 bits of its hash.
const childIdOfJobId = (id) => BigInt(`0x${id.slice(1, 17)}`);
const childIdOf = (job) => childIdOfJobId(job.id);

const STATES = ['active', 'waiting', 'delayed', 'prioritized', 'paused', 'completed', 'failed',
  'waiting-children'];

// A session: its PostgreSQL connection, and the Worker its claims go through.
class WorkerSession extends SessionQueue {
  constructor(session, adapter) {
    super(session);
    this.adapter = adapter;
    this.worker = null; // this session's Worker without a processor, made by its first claim
  }

  async close() {
    await Promise.allSettled([this.worker?.close(true), this.session.close()]);
  }

  async add(payload, jobId) {
    try {
      await this.adapter.queue.add('turn', payload, { jobId, attempts: ATTEMPTS });
    } catch (error) {
      throw new QueueError('unavailable', `BullMQ add failed: ${error.message}`);
    }
  }

  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    if (SAFE) {
      const answer = await admitAndInsert(this.session, request, hook,
        (admitted) => stageChildTurn(this.session.client, request, admitted));
      if (answer.status === 'enqueued') await this.relay();
      return answer;
    }
    return checkThenCall(this.session, request, async (key) => {
      await this.add(childTurnPayload(request, key), jobIdOf(key));
      return { status: 'enqueued' }; // add cannot tell a duplicate from a new job
    });
  }

  // The relay (thm-safe): a child already decided is delivered later if not now, so a
  // failure here changes no answer; the next relay takes the row.
  async relay() {
    try {
      await relayToBullMQ(this.session.client, this.adapter.queue, { attempts: ATTEMPTS });
    } catch (error) {
      this.adapter.log('relay:', error.message);
    }
  }

  // ---- leases: BullMQ's manual fetching ----

  async leaseCall(run) {
    try {
      return await run();
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      if (/Missing lock|not in the active|Lock mismatch|does not exist|Missing key/i.test(error.message)) {
        throw new LeaseError('stale_token');
      }
      this.adapter.log('lease:', error.message);
      throw new LeaseError('unavailable');
    }
  }

  async claim(duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    if (SAFE) await this.relay();
    return this.leaseCall(async () => {
      const token = randomUUID();
      // A Worker holds connections of its own (a pool and a LISTEN client on PostgreSQL), so
      // only sessions that claim make one: a race of 64 enqueuers stays within the server's.
      this.worker ??= this.adapter.newWorker();
      this.worker.opts.lockDuration = Number(duration);
      const job = await this.worker.getNextJob(token, { block: false });
      if (!job) return null;
      this.adapter.held.set(token, job.id);
      return {
        child_id: integer(childIdOf(job)), token, expires_at: await this.adapter.lockExpiry(job.id),
        attempt: job.attemptsStarted, request: requestOf(job.data),
      };
    });
  }

  // The job a token's claim took, read again through the adapter's Queue: the claiming
  // session (and its Worker's connection) may be closed by now, as a worker that hands its
  // job on would be.
  async heldJob(token) {
    const id = this.adapter.held.get(token);
    const job = id === undefined ? undefined : await Job.fromId(this.adapter.queue, id);
    if (!job) throw new LeaseError('stale_token');
    return job;
  }

  async renew(token, duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    return this.leaseCall(async () => {
      const job = await this.heldJob(token);
      if (!(await job.extendLock(token, Number(duration)))) throw new LeaseError('stale_token');
      return this.adapter.lockExpiry(job.id);
    });
  }

  complete(token) {
    return this.leaseCall(async () => {
      const job = await this.heldJob(token);
      await job.moveToCompleted('done', token, false);
      return turnState(await job.getState());
    });
  }

  fail(token) {
    return this.leaseCall(async () => {
      const job = await this.heldJob(token);
      await job.moveToFailed(new Error('failed by its worker'), token, false);
      return turnState(await job.getState());
    });
  }
}

class BullMqAdapter extends PostgresAdapter {
  constructor() {
    super({ name: NAME, capabilities: CAPABILITIES });
    this.held = new Map(); // lease token → the id of the job its claim took
  }

  // The BullMQ queue, and on Redis a client of its own for TIME and the locks' expiries.
  async boot() {
    if (ON_REDIS) {
      this.redis = new IORedis(CONNECTION);
      this.redis.on('error', (error) => this.log('redis:', error.message));
    }
    if (SAFE) await this.store.query(OUTBOX_TABLE);
    this.queue = new Queue(QUEUE, { connection: CONNECTION }, BACKEND_FACTORY);
    this.queue.on('error', (error) => this.log('queue:', error.message));
    await this.queue.waitUntilReady();
  }

  newWorker() {
    const worker = new Worker(QUEUE, null, { connection: CONNECTION, autorun: false },
      BACKEND_FACTORY);
    worker.on('error', (error) => this.log('worker:', error.message));
    return worker;
  }

  async openQueue() {
    await this.started();
    return new WorkerSession(await Session.open(undefined, (...parts) => this.log(...parts)), this);
  }

  async close() {
    await Promise.allSettled([this.queue?.close(), this.redis?.quit()]);
    await super.close();
  }

  // A closed session's Worker is closed with it (on PostgreSQL it holds a pool and a LISTEN
  // client); its PostgreSQL connection is kept for the next session, as the base class does.
  async op_close_session(message) {
    const session = this.queueOf(message);
    await session.worker?.close(true);
    session.worker = null;
    return super.op_close_session(message);
  }

  /**
   * The expiry of a job's lock in milliseconds, as the backend keeps it: on Redis the lock
   * key's expiry on Redis's clock; on PostgreSQL the row's `locked_until_ms`. Null without
   * a lock.
   */
  async lockExpiry(id) {
    if (!ON_REDIS) {
      const [row] = await this.store.query(
        "SELECT locked_until_ms FROM bullmq.job WHERE id = $1 AND (queue = $2 OR queue LIKE '%:' || $2)",
        [id, QUEUE]);
      return integer(row?.locked_until_ms ?? null);
    }
    // The absolute expiry Redis keeps for the lock key (PEXPIRETIME, Redis 7): the same
    // number every time it is read, unlike now + PTTL.
    const expiry = await this.redis.call('PEXPIRETIME', `bull:${QUEUE}:${id}:lock`);
    return expiry < 0 ? null : integer(expiry);
  }

  // The backend's clock: Redis's TIME, or (PostgreSQL) the server's.
  async op_store_now() {
    await this.started();
    if (!ON_REDIS) return super.op_store_now();
    const [seconds, micros] = await this.redis.time();
    return { now: integer(BigInt(seconds) * 1000n + BigInt(micros) / 1000n) };
  }

  // On PostgreSQL, BullMQ's primary key on (queue, id) is the record; on thm-safe, thm's.
  async op_unique_key_index() {
    await this.started();
    return {
      index: await (SAFE ? this.store.uniqueKeyIndex('thm_idempotency')
        : this.store.uniqueKeyIndex('bullmq.job', { primary: true })),
    };
  }

  async reset() {
    await this.started();
    this.held.clear();
    await this.store.truncateHost();
    if (SAFE) await this.store.query('DELETE FROM thm_child_turn_outbox');
    await this.queue.obliterate({ force: true });
  }

  async jobs() {
    await this.started();
    return (await this.queue.getJobs(STATES)).filter(Boolean);
  }

  async jobOf(childId) {
    const id = BigInt(childId);
    const job = (await this.jobs()).find((candidate) => childIdOf(candidate) === id);
    if (!job) throw new Error(`no job with child id ${childId}`);
    return job;
  }

  // The host settles a job as its worker would: a waiting job is fetched first (others the
  // fetch takes on the way are put back), then completed, or failed for good (fail and dead
  // letter alike: an UnrecoverableError, no retry); delete is `remove`.
  async op_settle(message) {
    checkSettleWay(message.how);
    const job = await this.jobOf(message.child_id);
    if (message.how === 'delete') {
      await job.remove();
      return;
    }
    const finish = async (active, token) => {
      if (message.how === 'complete') await active.moveToCompleted('settled', token, false);
      // Unrecoverable: failed for good, with no retry left.
      else await active.moveToFailed(new UnrecoverableError(`settled: ${message.how}`), token, false);
    };
    if ((await job.getState()) === 'active') {
      await finish(job, '0'); // '0': BullMQ skips the lock's token check
      return;
    }
    const token = randomUUID();
    const worker = this.newWorker();
    try {
      const passed = [];
      let active = null;
      for (let taken; !active && (taken = await worker.getNextJob(token, { block: false }));) {
        if (taken.id === job.id) active = taken;
        else passed.push(taken);
      }
      for (const other of passed) await other.moveToWait(token);
      if (!active) throw new Error(`child ${message.child_id} could not be fetched to settle it`);
      await finish(active, token);
    } finally {
      await worker.close(true);
    }
  }

  // BullMQ's retention, as `removeOnComplete` and `removeOnFail` or `clean` apply it: every
  // finished job removed.
  async op_run_maintenance() {
    await this.started();
    await this.queue.clean(0, 0, 'completed');
    await this.queue.clean(0, 0, 'failed');
  }

  // As documented, the records are the jobs: a job's id is what dedups. On thm-safe, thm's.
  async op_records() {
    if (SAFE) {
      // Each record names the job its turn key is added as (whatever record id it got).
      const rows = await this.store.query('SELECT turn_key FROM thm_idempotency ORDER BY id');
      return {
        records: rows.map((row) => ({
          key: toWire(row.turn_key), child_id: integer(childIdOfJobId(jobIdOf(row.turn_key))),
        })),
      };
    }
    const jobs = await this.jobs();
    return {
      records: jobs.map((job) => ({ key: toWire(keyOf(job.data)), child_id: integer(childIdOf(job)) }))
        .sort((a, b) => (BigInt(a.child_id) < BigInt(b.child_id) ? -1 : 1)),
    };
  }

  async op_children() {
    const jobs = await this.jobs();
    const children = [];
    for (const job of jobs) {
      const state = await job.getState();
      children.push({
        id: integer(childIdOf(job)), key: toWire(keyOf(job.data)), request: requestOf(job.data),
        state: turnState(state), attempts: job.attemptsStarted ?? 0,
        lease_expires_at: state === 'active' ? await this.lockExpiry(job.id) : null,
      });
    }
    // The relay's staged rows (thm-safe) are children not yet in BullMQ.
    if (SAFE) await withStagedChildren(this.store, children, (key) => childIdOfJobId(jobIdOf(key)));
    children.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    return { children };
  }

  op_restart_store() {
    restartServer(process.env[ON_REDIS ? 'THM_REDIS_RESTART' : 'THM_POSTGRES_RESTART']);
  }
}

serve(new BullMqAdapter());
