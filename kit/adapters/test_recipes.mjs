// The thm-safe recipes as a host runs them (recipe.mjs and each library's recipe.mjs, the files
// COMPATIBILITY.md shows): each step whole, on the PostgreSQL database the PG* variables name,
// with the library at its pinned version. Run: node --test kit/adapters/test_recipes.mjs
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { Queue, createPostgresBackend } from 'bullmq';
import { makeWorkerUtils } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';

import { migrate } from '../protocol/node/postgres.mjs';
import { requestToWire } from '../protocol/node/protocol.mjs';
import * as bullmq from './bullmq/recipe.mjs';
import * as dbos from './dbos/recipe.mjs';
import * as graphile from './graphile-worker/recipe.mjs';
import { keyOf, requestOf } from './library.mjs';
import * as pgBoss from './pg-boss/recipe.mjs';
import {
  OUTBOX_TABLE, commitReply, enqueueStagedChildTurn, setAgentAvailable, setPairForbidden, setPolicy,
} from './recipe.mjs';

const bytes = (text) => Buffer.from(text, 'utf8');
const clients = [];
const client = async () => {
  const opened = new pg.Client();
  await opened.connect();
  clients.push(opened);
  return opened;
};

let host; // the host's own connection: replies and policy
let sequence = 0n;
const DESK = bytes(`desk ${randomUUID()}`); // a desk of this run's own: the database may be reused

/**
 * A turn whose trigger reply is stored (through commitReply) and allowed by the policy: a
 * fresh sequence each time, content with a NUL and bytes that are not UTF-8.
 */
async function storedTurn() {
  sequence += 1n;
  const turn = {
    desk_id: DESK, thread_root: 18446744073709551615n, sequence,
    source_id: bytes('alice'), target_id: bytes('bob'),
    content: Buffer.concat([bytes(`@bob turn ${sequence}`), Buffer.from([0, 0xff, 0xfe])]),
    child_hop: 1,
  };
  await commitReply(host, {
    desk_id: turn.desk_id, thread_root: turn.thread_root, sequence: turn.sequence,
    author_id: turn.source_id, content: turn.content, hop: 0,
  });
  return turn;
}

/** `enqueue(clientN, turn)` from eight connections at once: the outcomes, sorted. */
async function race(enqueue, turn) {
  const connections = await Promise.all(Array.from({ length: 8 }, client));
  const answers = await Promise.all(connections.map((connection) => enqueue(connection, turn)));
  return answers.map((answer) => answer.outcome).sort();
}

const ONE_WINNER = ['admitted', ...Array(7).fill('already')];

/** The job payload read back is the whole turn, byte for byte. */
function assertCarries(payload, turn) {
  assert.deepEqual(requestOf(payload), requestToWire(turn));
}

async function records() {
  return Number((await host.query('SELECT count(*) AS n FROM thm_idempotency')).rows[0].n);
}

before(async () => {
  host = await client();
  await migrate(host);
  await setPolicy(host, { enabled: true, maxHops: 8 });
  await setAgentAvailable(host, bytes('bob'), true);
});

after(() => Promise.allSettled(clients.map((opened) => opened.end())));

describe('pg-boss', () => {
  let boss;
  before(async () => {
    boss = new PgBoss({ schema: 'pgboss', supervise: false, schedule: false });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue('child-turn', { policy: 'standard' });
  });
  after(() => boss.stop({ graceful: false, wait: true }));

  test('eight callers racing on one turn: one job, the whole request in it', async () => {
    const turn = await storedTurn();
    const enqueue = (connection, t) => pgBoss.enqueueChildTurn(boss, 'child-turn', connection, t);
    assert.deepEqual(await race(enqueue, turn), ONE_WINNER);
    const { rows } = await host.query("SELECT data FROM pgboss.job WHERE name = 'child-turn'" +
      " AND data->>'desk_id' = $1 AND data->>'sequence' = $2",
    [DESK.toString('base64'), String(turn.sequence)]);
    assert.equal(rows.length, 1);
    assertCarries(rows[0].data, turn);
  });

  test('a queue that was never created: the step throws and commits no record', async () => {
    const turn = await storedTurn();
    const before = await records();
    await assert.rejects(pgBoss.enqueueChildTurn(boss, 'never-created', await client(), turn),
      /inserted no job/);
    assert.equal(await records(), before);
  });

  test('the policy the setters write decides: a forbidden pair and an agent not available', async () => {
    const turn = await storedTurn();
    const enqueue = (t) => pgBoss.enqueueChildTurn(boss, 'child-turn', host, t);
    await setPairForbidden(host, turn.source_id, turn.target_id, true);
    assert.equal((await enqueue(turn)).outcome, 'refused');
    await setPairForbidden(host, turn.source_id, turn.target_id, false);
    await setAgentAvailable(host, turn.target_id, false);
    assert.equal((await enqueue(turn)).outcome, 'refused');
    await setAgentAvailable(host, turn.target_id, true);
    assert.equal((await enqueue(turn)).outcome, 'admitted');
  });

  test('a u64 as a Number past 2^53 is refused, not rounded', async () => {
    const turn = { ...(await storedTurn()), sequence: 2 ** 53 + 2 };
    await assert.rejects(pgBoss.enqueueChildTurn(boss, 'child-turn', host, turn), TypeError);
  });

  test('a turn with no stored reply writes nothing', async () => {
    const turn = { ...(await storedTurn()), sequence: 999999n };
    const answer = await pgBoss.enqueueChildTurn(boss, 'child-turn', await client(), turn);
    assert.equal(answer.outcome, 'trigger_missing');
  });
});

describe('graphile-worker', () => {
  let utils;
  before(async () => {
    utils = await makeWorkerUtils({ pgPool: new pg.Pool({ max: 2 }) });
    await utils.migrate();
  });
  after(() => utils.release());

  test('eight callers racing on one turn: one job, the whole request in it', async () => {
    const turn = await storedTurn();
    const enqueue = (connection, t) => graphile.enqueueChildTurn(connection, 'child_turn', t);
    assert.deepEqual(await race(enqueue, turn), ONE_WINNER);
    // graphile-worker's jobs view leaves the payload out: its table, as the adapter reads it.
    const { rows } = await host.query('SELECT j.payload FROM graphile_worker._private_jobs j' +
      ' JOIN graphile_worker._private_tasks t ON t.id = j.task_id' +
      " WHERE t.identifier = 'child_turn' AND j.payload->>'desk_id' = $1" +
      " AND j.payload->>'sequence' = $2", [DESK.toString('base64'), String(turn.sequence)]);
    assert.equal(rows.length, 1);
    assertCarries(rows[0].payload, turn);
  });
});

// The PG* database as a URL (a host name is required; `host=` names the socket's folder).
const { PGHOST, PGPORT, PGUSER, PGDATABASE } = process.env;
const DATABASE_URL = `postgresql://${encodeURIComponent(PGUSER ?? '')}@localhost/` +
  `${encodeURIComponent(PGDATABASE ?? '')}?host=${encodeURIComponent(PGHOST ?? '')}` +
  `&port=${PGPORT ?? 5432}`;

describe('DBOS', () => {
  let dbosClient;
  const quiet = { info() {}, debug() {}, warn() {}, error() {} };
  const options = { queueName: 'child_turns', workflowName: 'child_turn', appVersion: 'v1' };
  before(async () => {
    DBOS.setConfig({ name: 'recipes', systemDatabaseUrl: DATABASE_URL, logger: quiet });
    await DBOS.launch(); // creates DBOS's schema in the host's database
    dbosClient = await DBOSClient.create({ systemDatabaseUrl: DATABASE_URL, logger: quiet });
  });
  after(async () => {
    await dbosClient.destroy();
    await DBOS.shutdown();
  });

  test('eight callers racing on one turn: one workflow, the whole request its argument', async () => {
    const turn = await storedTurn();
    const enqueue = (connection, t) => dbos.enqueueChildTurn(dbosClient, connection, t, options);
    assert.deepEqual(await race(enqueue, turn), ONE_WINNER);
    const { rows: [record] } = await host.query('SELECT turn_key FROM thm_idempotency' +
      ' ORDER BY id DESC LIMIT 1');
    const [workflow] = await DBOS.listWorkflows({
      workflowIDs: [dbos.workflowIdOf(record.turn_key)], loadInput: true,
    });
    assert.equal(workflow.status, 'ENQUEUED');
    assertCarries(workflow.input[0], turn);
  });
});

describe('BullMQ relay', () => {
  let queue;
  before(async () => {
    await host.query(OUTBOX_TABLE);
    const connection = { connectionString: DATABASE_URL, migrate: true };
    queue = new Queue('child-turn', { connection }, createPostgresBackend);
    await queue.waitUntilReady();
  });
  after(() => queue.close());

  test('racing callers stage one row; relays at once add one job keyed by the turn', async () => {
    const turn = await storedTurn();
    assert.deepEqual(await race((connection, t) => enqueueStagedChildTurn(connection, t), turn),
      ONE_WINNER);
    const relays = await Promise.all([client(), client()]);
    const relayed = await Promise.all(
      relays.map((connection) => bullmq.relayToBullMQ(connection, queue)));
    assert.equal(relayed[0] + relayed[1], 1);
    const { rows: [record] } = await host.query('SELECT turn_key FROM thm_idempotency' +
      ' ORDER BY id DESC LIMIT 1');
    const job = await queue.getJob(bullmq.jobIdOf(record.turn_key));
    assertCarries(job.data, turn);
    assert.equal(await bullmq.relayToBullMQ(relays[0], queue), 0); // nothing left to add
    assert.equal((await host.query('SELECT count(*) AS n FROM thm_child_turn_outbox')).rows[0].n, '0');
  });

  test('a row a relay left (it stopped before its commit) adds no second job', async () => {
    const turn = await storedTurn();
    const connection = await client();
    await enqueueStagedChildTurn(connection, turn);
    const { rows: [row] } = await host.query('SELECT payload FROM thm_child_turn_outbox');
    const id = bullmq.jobIdOf(keyOf(row.payload));
    await queue.add('child-turn', row.payload, { jobId: id }); // the add before the stop
    assert.equal(await bullmq.relayToBullMQ(connection, queue), 1);
    const jobs = (await queue.getJobs(['waiting'])).filter((job) => job.id === id);
    assert.equal(jobs.length, 1);
  });
});
