#!/usr/bin/env node
// The conformance suite's adapter over Restate 1.7.12 (kit/protocol/PROTOCOL.md, version 1),
// with the TypeScript SDK 1.17.2: child turns are runs of the workflow `thm_child_turn` on
// the Restate server whose ingress and admin APIs THM_RESTATE_INGRESS and THM_RESTATE_ADMIN
// name, served by restate/service.mjs (its deployment; kit/scripts/restate_cluster starts
// and registers it); the host's replies and policy are thm_queue.sql's tables in the
// PostgreSQL database the PG* variables name. Each run waits for the host's `settle`, so a
// child stays pending until the suite settles it, and is kept a second after it ends.
//
//   node adapter.mjs --recipe as-documented [--key workflow-id|idempotency-key]
//     Restate as its documentation tells a host to run work once: the turn's id as the
//     workflow id (a workflow's `run` runs once per id), submitted through the ingress's
//     `send`; `Accepted` is enqueued and `PreviouslyAccepted` already. With `--key
//     idempotency-key`, a call of the object `thm_child_turn_call` with the turn's id as its
//     key and as its `idempotency-key` header instead. The host's checks (the stored reply
//     and the live policy) run first, in a transaction of their own.
//
//   node adapter.mjs --recipe thm-safe
//     the relay (restate/recipe.mjs): BEGIN, thm_admit (thm_queue.sql), an outbox row, COMMIT;
//     then the relay submits the row as the turn's workflow and deletes it. A staged row is a
//     pending child.
//
// No leases: Restate pushes each invocation to the service; a host has no call that claims
// one.
//
// Environment: as above, each a comma-separated list for a cluster (the nodes, tried in
// order); THM_RESTATE_RESTART, a shell command that restarts the Restate server, makes
// `restart_store` real; THM_RESTATE_CLUSTER, a cluster kit/scripts/restate_cluster started
// (its DIR), declares `nodes` and serves the node faults through that script.
import { fileURLToPath } from 'node:url';

import { clusterScript, nodeOperations } from '../../protocol/node/cluster.mjs';
import {
  PostgresAdapter, Session, SessionQueue, admitAndInsert, checkThenCall, restartServer,
} from '../../protocol/node/postgres.mjs';
import { QueueError, checkLimits, integer, serve, toWire } from '../../protocol/node/protocol.mjs';
import {
  checkSettleWay, childOf, commandLine, keyOf, requestOf, withStagedChildren,
} from '../library.mjs';
import {
  OUTBOX_TABLE, childTurnPayload, stageChildTurn,
} from '../recipe.mjs';
import { postToRestate, relayToRestate, workflowIdOf } from './recipe.mjs';
import { CALL_SERVICE, RETENTION_SECONDS, SERVICE } from './service.mjs';

const { recipe: RECIPE, key: KEY = 'workflow-id' } =
  commandLine({ key: [undefined, 'workflow-id', 'idempotency-key'] });
const SAFE = RECIPE === 'thm-safe';
const BY_IDEMPOTENCY_KEY = !SAFE && KEY === 'idempotency-key';
const NAME = SAFE ? 'restate-thm-safe' : `restate-${KEY}`;
// The child's service: the workflow, or (by idempotency key) the object.
const CHILD_SERVICE = BY_IDEMPOTENCY_KEY ? CALL_SERVICE : SERVICE;
const { THM_RESTATE_INGRESS, THM_RESTATE_ADMIN, THM_RESTATE_CLUSTER: CLUSTER } = process.env;
if (!THM_RESTATE_INGRESS || !THM_RESTATE_ADMIN) {
  console.error(`${NAME}: THM_RESTATE_INGRESS and THM_RESTATE_ADMIN name no Restate server`);
  process.exit(2);
}
const INGRESSES = THM_RESTATE_INGRESS.split(',');
const ADMINS = THM_RESTATE_ADMIN.split(',');
const CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/restate_cluster', import.meta.url));

const CAPABILITIES = {
  hooks: SAFE, // as documented, the checks (PostgreSQL) and the submission (Restate) are two
  row_locking: SAFE,
  persistent: true,
  sql_schema: SAFE, // as documented the record is Restate's workflow id, not a row
  leases: false,
  injected_store_clock: false,
  skewable_client_clock: false,
  max_content_bytes: 1 << 20,
  max_id_bytes: 1024,
  max_attempts: null,
  nodes: CLUSTER !== undefined,
  election_timeout: null,
};

const log = (...parts) => console.error(`${NAME}:`, ...parts);

/**
 * Restate's admin API: `path` with `body` (JSON) or none; its JSON answer, from the first
 * node that gives one. On a cluster, a node that was just killed leaves the others unable to
 * answer queries for a moment while its partitions move: the nodes are asked again for up
 * to 15 s.
 */
async function admin(method, path, body) {
  const until = Date.now() + 15000;
  for (;;) {
    let last;
    for (const base of ADMINS) {
      let response;
      try {
        response = await fetch(`${base}${path}`, {
          method, headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(5000),
        });
      } catch (error) {
        last = error; // the node is down or paused: the next one
        continue;
      }
      const text = await response.text();
      if (response.ok) return text ? JSON.parse(text) : {};
      last = new Error(`Restate admin ${method} ${path}: ${response.status} ${text}`);
      if (response.status < 500) throw last; // an answer: the request itself was refused
    }
    if (ADMINS.length === 1 || Date.now() > until) throw last;
    await sleep(100);
  }
}

/** Rows of Restate's introspection SQL. */
async function query(sql) {
  return (await admin('POST', '/query', { query: sql })).rows;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** kit/scripts/restate_cluster on the cluster of THM_RESTATE_CLUSTER. */
const cluster = clusterScript(CLUSTER_SCRIPT, CLUSTER);

/**
 * The host's word to child `id` (a workflow's `settle`; an object call's awakeable, read from
 * its state), on the first node that takes it.
 */
async function settleChild(id, how) {
  if (!BY_IDEMPOTENCY_KEY) {
    await postToRestate(INGRESSES, `/${SERVICE}/${id}/settle`, how);
    return;
  }
  const [row] = await query(`SELECT value_utf8 FROM state WHERE service_name = '${CALL_SERVICE}'` +
    ` AND service_key = '${id}' AND key = 'awakeable'`);
  if (!row) throw new Error(`child ${id} waits on no awakeable`);
  await postToRestate(INGRESSES, `/restate/awakeables/${JSON.parse(row.value_utf8)}/resolve`, how);
}

// A run's input, from its journal's first entry (its bytes as a list of numbers): the JSON
// payload the ingress took.
const inputOf = (entryJson) => (entryJson
  ? JSON.parse(Buffer.from(JSON.parse(entryJson).Command.Input.payload).toString('utf8')) : null);

// A workflow's number for the protocol (u64): the first 64 bits of its id (a SHA-256).
const childIdOf = (workflowId) => BigInt(`0x${workflowId.slice(0, 16)}`);

class Queue extends SessionQueue {
  constructor(session, adapter) {
    super(session);
    this.adapter = adapter;
  }

  async enqueueOnce(request, hook) {
    checkLimits(request, CAPABILITIES);
    if (SAFE) {
      const answer = await admitAndInsert(this.session, request, hook,
        (admitted) => stageChildTurn(this.session.client, request, admitted));
      if (answer.status === 'enqueued') await this.adapter.relay(this.session.client);
      return answer;
    }
    return checkThenCall(this.session, request, (key) => submit(request, key));
  }
}

/**
 * As documented: the turn's workflow, or the object call with the turn as its idempotency
 * key, submitted; `PreviouslyAccepted` is already.
 */
async function submit(request, key) {
  const id = workflowIdOf(key);
  const [path, headers] = BY_IDEMPOTENCY_KEY
    ? [`/${CALL_SERVICE}/${id}/run/send`, { 'idempotency-key': id }]
    : [`/${SERVICE}/${id}/run/send`, {}];
  let sent;
  try {
    sent = await postToRestate(INGRESSES, path, childTurnPayload(request, key), headers);
  } catch (error) {
    throw new QueueError(error.uncertain ? 'indeterminate' : 'unavailable',
      `Restate did not take the child: ${error.message}`);
  }
  if (sent.answer.status !== 'PreviouslyAccepted') return { status: 'enqueued' };
  // A node passed may have taken this very submission: then nobody knows whether the child
  // Restate holds is this caller's.
  if (sent.uncertain) throw new QueueError('indeterminate', 'a node passed may have taken it');
  return { status: 'already' };
}

class RestateAdapter extends PostgresAdapter {
  constructor() {
    super({ name: NAME, capabilities: CAPABILITIES });
  }

  async boot() {
    if (SAFE) await this.store.query(OUTBOX_TABLE);
  }

  // The relay (thm-safe): a child already decided is delivered later if not now, so a
  // failure here changes no answer; the next relay takes the row.
  async relay(client) {
    try {
      await relayToRestate(client, INGRESSES, SERVICE);
    } catch (error) {
      log('relay:', error.message);
    }
  }

  async openQueue() {
    await this.started();
    return new Queue(await Session.open(undefined, log), this);
  }

  /**
   * The workflows Restate holds: {id, invocation, state, payload}, the payload read from the
   * run's input in its journal (null once the journal is gone).
   */
  async workflows() {
    await this.started();
    const runs = await query('SELECT i.target_service_key AS id, i.id AS invocation, i.status,' +
      ' i.completion_failure, j.entry_json FROM sys_invocation i LEFT JOIN sys_journal j' +
      ` ON j.id = i.id AND j.index = 0 WHERE i.target_service_name = '${CHILD_SERVICE}'` +
      " AND i.target_handler_name = 'run'");
    return runs.map((run) => ({
      id: run.id, invocation: run.invocation, payload: inputOf(run.entry_json),
      state: run.status !== 'completed' ? 'pending' : run.completion_failure ? 'failed' : 'completed',
    }));
  }

  // Every workflow and settle call ended and purged, so their ids are free again.
  async reset() {
    await this.started();
    const invocations = await query('SELECT id, status FROM sys_invocation' +
      ` WHERE target_service_name IN ('${SERVICE}', '${CALL_SERVICE}')`);
    await Promise.all(invocations.filter((row) => row.status !== 'completed')
      .map((row) => admin('PATCH', `/invocations/${row.id}/kill`).catch(() => {})));
    await Promise.all(invocations.map((row) => this.purge(row.id)));
    await this.store.truncateHost();
    if (SAFE) await this.store.query('DELETE FROM thm_child_turn_outbox');
  }

  // Purges an invocation once it has ended (a kill takes a moment).
  async purge(invocation) {
    for (let tries = 0; tries < 100; tries += 1) {
      try {
        await admin('PATCH', `/invocations/${invocation}/purge`);
        return;
      } catch (error) {
        if (/ 404 /.test(error.message)) return;
        await sleep(50);
      }
    }
    throw new Error(`Restate did not purge ${invocation}`);
  }

  async workflowOf(childId) {
    return childOf(await this.workflows(), childId, (workflow) => childIdOf(workflow.id));
  }

  // The host's word to the workflow, and its end awaited; delete kills and purges it.
  async op_settle(message) {
    checkSettleWay(message.how);
    const workflow = await this.workflowOf(message.child_id);
    if (message.how === 'delete') {
      await admin('PATCH', `/invocations/${workflow.invocation}/kill`).catch(() => {});
      await this.purge(workflow.invocation);
      return;
    }
    await settleChild(workflow.id, message.how);
    for (let tries = 0; tries < 200; tries += 1) {
      if ((await this.workflowOf(message.child_id)).state !== 'pending') return;
      await sleep(50);
    }
    throw new Error(`child ${message.child_id} did not end within 10 s of its settle`);
  }

  // Restate's own retention: ended workflows are dropped RETENTION_SECONDS after they end,
  // by its cleaner (every second on the test server).
  async op_run_maintenance() {
    await sleep(RETENTION_SECONDS * 1000 + 2500);
  }

  // As documented, the records are the workflow ids Restate holds; on thm-safe, thm's.
  async op_records() {
    if (SAFE) {
      await this.started();
      const rows = await this.store.query('SELECT turn_key FROM thm_idempotency ORDER BY id');
      return {
        records: rows.map((row) => ({
          key: toWire(row.turn_key), child_id: integer(childIdOf(workflowIdOf(row.turn_key))),
        })),
      };
    }
    const workflows = (await this.workflows()).filter((workflow) => workflow.payload);
    return {
      records: workflows.map((workflow) => ({
        key: toWire(keyOf(workflow.payload)), child_id: integer(childIdOf(workflow.id)),
      })),
    };
  }

  async op_children() {
    const children = (await this.workflows()).filter((workflow) => workflow.payload)
      .map((workflow) => ({
        id: integer(childIdOf(workflow.id)), key: toWire(keyOf(workflow.payload)),
        request: requestOf(workflow.payload), state: workflow.state, attempts: 0,
        lease_expires_at: null,
      }));
    // The relay's staged rows (thm-safe) are children not yet submitted.
    if (SAFE) await withStagedChildren(this.store, children, (key) => childIdOf(workflowIdOf(key)));
    return { children };
  }

  async op_unique_key_index() {
    await this.started();
    return { index: SAFE ? await this.store.uniqueKeyIndex('thm_idempotency') : null };
  }

  async op_restart_store() {
    if (CLUSTER !== undefined) await cluster('restart-all');
    else restartServer(process.env.THM_RESTATE_RESTART);
  }
}

// The node faults (PROTOCOL.md §4; with THM_RESTATE_CLUSTER).
Object.assign(RestateAdapter.prototype, nodeOperations(cluster));

serve(new RestateAdapter());
