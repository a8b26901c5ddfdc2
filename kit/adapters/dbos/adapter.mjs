#!/usr/bin/env node
// The conformance suite's adapter over DBOS Transact 5.3.0 (kit/protocol/PROTOCOL.md, version
// 1): child turns are DBOS workflows (`thm_child_turn`) on the queue `thm_child_turns`, with
// DBOS's system schema (`dbos`) in the PostgreSQL database the PG* variables name, beside the
// host's tables. This process is DBOS's one executor: each workflow waits for the host's
// message (`DBOS.send(id, {how}, 'settle')`), so a child stays pending until the suite
// settles it. Recipes (kit/adapters/COMPATIBILITY.md says what each proves):
//
//   node adapter.mjs --recipe as-documented [--key workflow-id|deduplication-id]
//     DBOS as its documentation tells a host to run a workflow once: the turn's id as the
//     workflow id, DBOS's idempotency key (`DBOS.startWorkflow(fn, { workflowID,
//     queueName })`, the default): a second start with the id answers the first workflow's
//     handle, and nothing says it was a second, so every start is answered enqueued. With
//     `--key deduplication-id`, a fresh workflow id per start and the turn's id as the
//     queue's `deduplicationID` instead: a duplicate throws DBOSQueueDuplicatedError, which
//     is `already`, until the first workflow ends. The host's checks (the stored reply and
//     the live policy) run first, in a transaction of their own.
//
//   node adapter.mjs --recipe thm-safe
//     dbos/recipe.mjs: BEGIN, thm_admit (thm_queue.sql), `DBOSClient.enqueueInTransaction`
//     on the same connection (the workflow id is the turn's), COMMIT.
//
// No leases: DBOS's executors take queued workflows themselves, and a host has no call that
// claims one.
//
// Environment: PG* for the database; THM_POSTGRES_RESTART, a shell command that restarts the
// server, makes `restart_store` real; THM_QUEUE_SQL as for kit/protocol/node.
import { createHash, randomUUID } from 'node:crypto';

import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';

import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall, fromStore,
} from '../../protocol/node/postgres.mjs';
import { QueueError, checkLimits, integer, serve, toWire } from '../../protocol/node/protocol.mjs';
import { checkSettleWay, childOf, commandLine, keyOf, requestOf } from '../library.mjs';
import { childTurnPayload } from '../recipe.mjs';
import { enqueueChildWorkflow, workflowIdOf } from './recipe.mjs';

const { recipe: RECIPE, key: KEY = 'workflow-id' } =
  commandLine({ key: [undefined, 'workflow-id', 'deduplication-id'] });
const SAFE = RECIPE === 'thm-safe';
const BY_DEDUPLICATION_ID = !SAFE && KEY === 'deduplication-id';
const NAME = SAFE ? 'dbos-thm-safe' : `dbos-${KEY}`;
const QUEUE = 'thm_child_turns';
const WORKFLOW = 'thm_child_turn';
const APP_VERSION = 'thm-conformance-1'; // queued workflows run on executors of their version
const SETTLE = 'settle'; // the topic of the host's message to a workflow
const WAIT_SECONDS = 24 * 3600; // how long a workflow waits for it

const CAPABILITIES = {
  hooks: SAFE, // as documented, no one transaction holds the checks and the start
  row_locking: SAFE,
  persistent: true,
  sql_schema: true,
  leases: false,
  injected_store_clock: false,
  skewable_client_clock: false,
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: null,
};

const log = (...parts) => console.error(`${NAME}:`, ...parts);
// DBOS's own logging on stderr (its default sink is stdout, the protocol's): warnings and
// errors only.
const LOGGER = {
  info() {}, debug() {}, warn: (entry) => log(entry), error: (entry) => log(entry),
};

const { PGHOST, PGPORT, PGUSER, PGDATABASE } = process.env;
const DATABASE_URL = `postgresql://${encodeURIComponent(PGUSER ?? '')}@localhost/` +
  `${encodeURIComponent(PGDATABASE ?? '')}?host=${encodeURIComponent(PGHOST ?? '')}` +
  `&port=${PGPORT ?? 5432}`;

// A workflow's number for the protocol (u64): the first 64 bits of its id's SHA-256.
const childIdOf = (workflowId) =>
  BigInt(`0x${createHash('sha256').update(workflowId).digest('hex').slice(0, 16)}`);

// A child turn: it waits for the host's word, and ends completed or failed by it.
const childTurn = DBOS.registerWorkflow(async (payload) => {
  const settled = await DBOS.recv(SETTLE, { timeoutSeconds: WAIT_SECONDS });
  if (settled?.how !== 'complete') throw new Error(`settled by the host: ${settled?.how ?? 'never'}`);
  return payload.key;
}, { name: WORKFLOW });

const STATES = {
  ENQUEUED: 'pending', PENDING: 'pending', DELAYED: 'pending', SUCCESS: 'completed',
  ERROR: 'failed', CANCELLED: 'failed', MAX_RECOVERY_ATTEMPTS_EXCEEDED: 'failed',
};

class Queue extends SessionQueue {
  constructor(session, dbos) {
    super(session);
    this.dbos = dbos;
  }

  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    if (SAFE) {
      return admitAndInsert(this.session, request, hook, (admitted) =>
        enqueueChildWorkflow(this.dbos, this.session.client, request, admitted,
          { queueName: QUEUE, workflowName: WORKFLOW, appVersion: APP_VERSION }));
    }
    return checkThenCall(this.session, request, (key) => start(request, key));
  }
}

/** As documented: the workflow started on the queue, by its id or its deduplication id. */
async function start(request, key) {
  const id = workflowIdOf(key);
  const options = BY_DEDUPLICATION_ID
    ? { workflowID: randomUUID(), queueName: QUEUE, enqueueOptions: { deduplicationID: id } }
    : { workflowID: id, queueName: QUEUE };
  try {
    await DBOS.startWorkflow(childTurn, options)(childTurnPayload(request, key));
  } catch (error) {
    if (error?.name === 'DBOSQueueDuplicatedError') return { status: 'already' };
    if (!fromStore(error, null)) throw error;
    throw new QueueError('unavailable', `DBOS could not start the workflow: ${error.message}`);
  }
  return { status: 'enqueued' }; // a second start by workflow id says nothing of it
}

class DbosAdapter extends PostgresAdapter {
  constructor() {
    super({ name: NAME, capabilities: CAPABILITIES });
  }

  // DBOS launched as this process's executor (its schema migrated by launch), the queue
  // registered, and on thm-safe a client for enqueues in the host's transactions.
  async boot() {
    DBOS.setConfig({
      name: 'thm-conformance', systemDatabaseUrl: DATABASE_URL, applicationVersion: APP_VERSION,
      executorID: 'thm-conformance', logger: LOGGER,
    });
    await DBOS.launch();
    await DBOS.registerQueue(QUEUE);
    this.dbos = SAFE ? await DBOSClient.create({ systemDatabaseUrl: DATABASE_URL, logger: LOGGER })
      : null;
  }

  async openQueue() {
    await this.started();
    return new Queue(await Session.open(undefined, log), this.dbos);
  }

  async close() {
    await this.dbos?.destroy().catch(() => {});
    await DBOS.shutdown().catch(() => {});
    await super.close();
  }

  async workflows() {
    await this.started();
    return DBOS.listWorkflows({ workflowName: WORKFLOW, loadInput: true });
  }

  // Every workflow ended: a running one is cancelled and woken (a cancel does not interrupt
  // its wait), then deleted.
  async reset() {
    const workflows = await this.workflows();
    const running = workflows.filter((workflow) => STATES[workflow.status] === 'pending');
    await Promise.all(running.map(async ({ workflowID }) => {
      await DBOS.cancelWorkflow(workflowID);
      await DBOS.send(workflowID, { how: 'reset' }, SETTLE).catch(() => {});
    }));
    await DBOS.deleteWorkflows(workflows.map((workflow) => workflow.workflowID));
    await this.store.truncateHost();
  }

  async workflowOf(childId) {
    return childOf(await this.workflows(), childId, (workflow) => childIdOf(workflow.workflowID));
  }

  // The host's word to the workflow, and its end awaited; delete is DBOS's deleteWorkflow of
  // a cancelled one.
  async op_settle(message) {
    checkSettleWay(message.how);
    const { workflowID } = await this.workflowOf(message.child_id);
    if (message.how === 'delete') {
      await DBOS.cancelWorkflow(workflowID);
      await DBOS.send(workflowID, { how: 'delete' }, SETTLE).catch(() => {});
      await DBOS.deleteWorkflow(workflowID);
      return;
    }
    await DBOS.send(workflowID, { how: message.how }, SETTLE);
    await DBOS.retrieveWorkflow(workflowID).getResult().catch(() => {});
  }

  // DBOS Transact keeps workflows until they are deleted: no retention runs here.
  async op_run_maintenance() {}

  // As documented, the records are what DBOS dedups on: every workflow's id, or the
  // deduplication ids of workflows not yet ended. On thm-safe, thm's records.
  async op_records() {
    await this.started();
    if (SAFE) {
      const rows = await this.store.query('SELECT turn_key FROM thm_idempotency ORDER BY id');
      return {
        records: rows.map((row) => ({
          key: toWire(row.turn_key), child_id: integer(childIdOf(workflowIdOf(row.turn_key))),
        })),
      };
    }
    const holding = (await this.workflows()).filter((workflow) =>
      !BY_DEDUPLICATION_ID || workflow.deduplicationID);
    return {
      records: holding.map((workflow) => ({
        key: toWire(keyOf(workflow.input[0])), child_id: integer(childIdOf(workflow.workflowID)),
      })),
    };
  }

  async op_children() {
    const workflows = await this.workflows();
    return {
      children: workflows.map((workflow) => ({
        id: integer(childIdOf(workflow.workflowID)), key: toWire(keyOf(workflow.input[0])),
        request: requestOf(workflow.input[0]), state: STATES[workflow.status] ?? 'failed',
        attempts: 0, lease_expires_at: null,
      })),
    };
  }

  // As documented, the key DBOS holds unique: the workflow id (the primary key of its
  // status table), or the queue's deduplication id; on thm-safe, thm's.
  async op_unique_key_index() {
    await this.started();
    if (SAFE) return { index: await this.store.uniqueKeyIndex('thm_idempotency') };
    if (!BY_DEDUPLICATION_ID) {
      return { index: await this.store.uniqueKeyIndex('dbos.workflow_status', { primary: true }) };
    }
    return { index: await this.store.uniqueKeyIndex('dbos.workflow_status') };
  }
}

serve(new DbosAdapter());
