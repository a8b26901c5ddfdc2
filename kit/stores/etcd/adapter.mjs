#!/usr/bin/env node
// The conformance protocol's adapter (kit/protocol/PROTOCOL.md, version 1) over thm's etcd store
// (queue.mjs, adr/0018).
//
//   node adapter.mjs --endpoints URL,URL,URL [--cluster DIR] [--mutant ack-early]
//
// --endpoints   the members' client URLs (default: THM_ETCD_ENDPOINTS)
// --cluster     the directory of a cluster that kit/scripts/etcd_cluster started: with it the
//               adapter declares `nodes` and makes the suite's node faults, and
//               `restart_store` restarts the whole cluster (EQ-23); without it `restart_store`
//               does nothing (the cluster outlives the adapter), and the suite's `reopen`
//               after it reconnects
// --mutant ack-early   a broken queue for the node-loss checks: it answers
//               `enqueued` before the cluster has the write, sends it 500 ms later, and
//               drops it if it fails
//
// Logs go to stderr; stdout carries protocol messages only.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

import { clusterScript, nodeOperations } from '../../protocol/node/cluster.mjs';
import {
  Adapter, Unsupported, fromWire, integer, requestToWire, serve, toWire, u64,
} from '../../protocol/node/protocol.mjs';
import {
  EtcdQueue, LIMITS, MAX_ATTEMPTS, clusterClock, connect, decode, encode, keys, requestOf,
  storedReply, turnKey, under,
} from './queue.mjs';

const USAGE = 'usage: adapter.mjs --endpoints http://HOST:PORT,... [--cluster DIR] [--mutant ack-early]';
/** Exits 2 with `why` and the usage line. */
function usage(why) {
  console.error(`etcd-adapter: ${why}\n${USAGE}`);
  process.exit(2);
}
let options;
try {
  ({ values: options } = parseArgs({
    options: { endpoints: { type: 'string' }, cluster: { type: 'string' }, mutant: { type: 'string' } },
  }));
} catch (error) {
  usage(error.message);
}
const endpoints = (options.endpoints ?? process.env.THM_ETCD_ENDPOINTS ?? '')
  .split(',').filter(Boolean);
if (endpoints.length === 0) usage('no endpoints: give --endpoints or THM_ETCD_ENDPOINTS');
for (const endpoint of endpoints) {
  if (!/^https?:\/\/[^/]+$/.test(endpoint)) usage(`an endpoint is a URL such as http://127.0.0.1:2379, not '${endpoint}'`);
}
if (options.mutant !== undefined && options.mutant !== 'ack-early') {
  usage(`the only mutant is ack-early, not '${options.mutant}'`);
}
if (options.cluster !== undefined && !existsSync(`${options.cluster}/etcd_cluster`)) {
  usage(`--cluster ${options.cluster} is not a cluster that kit/scripts/etcd_cluster started`);
}
const CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/etcd_cluster', import.meta.url));
const ELECTION_TIMEOUT_MS = 500; // kit/scripts/etcd_cluster's --election-timeout

const CAPABILITIES = {
  hooks: true,
  // The decision's transaction compares the reply's revision: an edit made while the step
  // is open fails it, and the step judges the edited reply (EQ-13).
  row_locking: true,
  persistent: true,
  leases: true,
  skewable_client_clock: true, // leases are on the members' clock, never this process's
  ...LIMITS,
  max_attempts: MAX_ATTEMPTS,
  nodes: options.cluster !== undefined,
  election_timeout: options.cluster !== undefined ? ELECTION_TIMEOUT_MS : null,
};

const log = (...parts) => console.error('etcd-adapter:', ...parts);

/**
 * The mutant "ack-early": the correct queue's step, but its decision is answered
 * `enqueued` as soon as it is made, and its transaction is sent ACK_AHEAD_MS later, as a
 * write-behind buffer would, and dropped if it fails. The key's lock is held until the write
 * settles, the session's next step waits for it, and the inspector waits for every write in
 * flight, so on a healthy cluster it answers as the correct queue does. A write that meets
 * a member killed is an acknowledged enqueue lost. The delay outlasts the time the cluster
 * script takes to kill a member once the suite has decided to (about 170 ms here): sent at
 * once, the writes acknowledged just before a fault landed before it, and EQ-28 found a
 * loss in two runs of three.
 */
const ACK_AHEAD_MS = 500;

class AckEarlyQueue extends EtcdQueue {
  constructor(endpoints, inFlight) {
    super(endpoints);
    this.inFlight = inFlight;
    this.lastWrite = Promise.resolve();
  }

  async enqueueOnce(request, hook) {
    await this.lastWrite;
    return super.enqueueOnce(request, hook);
  }

  // Every step takes the locked path, whose decision write() sends late: the one-transaction
  // step has no decision apart from its write to answer early.
  decideAtOnce() {
    return Promise.resolve(null);
  }

  write(request, turn, judged, lock) {
    const written = new Promise((resolve) => { setTimeout(resolve, ACK_AHEAD_MS); })
      .then(() => super.write(request, turn, judged, lock))
      .catch((error) => log('ack-early: an acknowledged write was lost:', error.message));
    this.inFlight.add(written);
    written.finally(() => this.inFlight.delete(written));
    this.lastWrite = written;
    return Promise.resolve(null);
  }

  unlock(lock) {
    this.lastWrite = this.lastWrite.then(() => super.unlock(lock));
    return Promise.resolve(); // answered now: the lock goes once the write has settled
  }
}

/** kit/scripts/etcd_cluster on the cluster of --cluster. */
const cluster = clusterScript(CLUSTER_SCRIPT, options.cluster);

class EtcdAdapter extends Adapter {
  constructor() {
    super({ name: options.mutant ? `etcd-${options.mutant}` : 'etcd', capabilities: CAPABILITIES });
    this.store = connect(endpoints); // the harness's own client
    this.inFlight = new Set(); // the mutant's writes not yet settled
  }

  async openQueue() {
    return options.mutant ? new AckEarlyQueue(endpoints, this.inFlight) : new EtcdQueue(endpoints);
  }

  close() {
    this.store.close();
  }

  /** Waits for the mutant's writes in flight, so that the inspector reads what they did. */
  async settled() {
    await Promise.allSettled([...this.inFlight]);
  }

  // ---- the host's writes ----

  async reset() {
    await this.settled();
    await this.store.kv.deleteRange(under(keys.prefix));
  }

  async op_commit_reply({ reply }) {
    const turn = turnKey({ desk_id: fromWire(reply.conversation.desk_id),
      thread_root: reply.conversation.thread_root, sequence: reply.sequence });
    await this.store.kv.put({ key: keys.reply(turn), value: encode(storedReply({
      author_id: fromWire(reply.author_id), content: fromWire(reply.content), hop: reply.hop })) });
  }

  async op_set_policy({ policy }) {
    await this.store.kv.put({ key: keys.policy,
      value: encode({ enabled: policy.enabled === true, max_hops: Number(policy.max_hops) }) });
  }

  async op_set_authorized(message) {
    const key = keys.auth(fromWire(message.source_id), fromWire(message.target_id));
    if (message.authorized) await this.store.kv.deleteRange({ key });
    else await this.store.kv.put({ key, value: Buffer.from('0') });
  }

  async op_set_available(message) {
    const key = keys.avail(fromWire(message.agent_id));
    if (message.available) await this.store.kv.put({ key, value: Buffer.from('1') });
    else await this.store.kv.deleteRange({ key });
  }

  /** A child by id: its key, found among the children's keys alone. */
  async childKey(id) {
    const all = await this.store.kv.range({ ...under(keys.children), keys_only: true });
    const kv = all.kvs.find((row) => row.create_revision === String(id));
    if (!kv) throw new Error(`no child turn with id ${id}`);
    return kv.key;
  }

  async op_settle(message) {
    const states = { complete: 'completed', fail: 'failed', dead_letter: 'dead' };
    if (message.how !== 'delete' && !Object.hasOwn(states, message.how)) {
      throw new Error(`unknown way to settle: ${message.how}`);
    }
    const key = await this.childKey(u64(message.child_id));
    if (message.how === 'delete') {
      await this.store.kv.deleteRange({ key });
      return;
    }
    const [row] = (await this.store.kv.range({ key })).kvs;
    await this.store.kv.put({ key, value: encode({ ...decode(row), state: states[message.how], token: null }) });
  }

  async op_run_maintenance() {
    const all = await this.store.kv.range(under(keys.children));
    for (const kv of all.kvs) {
      if (decode(kv).state !== 'pending') await this.store.kv.deleteRange({ key: kv.key });
    }
  }

  // ---- the inspector ----

  async op_records() {
    await this.settled();
    const all = await this.store.kv.range({ ...under(keys.records), keys_only: true, sort_target: 'Create' });
    return {
      records: all.kvs.map((kv) => ({
        key: toWire(kv.key.subarray(keys.records.length)), child_id: integer(kv.create_revision),
      })),
    };
  }

  async op_children() {
    await this.settled();
    const all = await this.store.kv.range({ ...under(keys.children), sort_target: 'Create' });
    return {
      children: all.kvs.map((kv) => {
        const child = decode(kv);
        return {
          id: integer(kv.create_revision), key: toWire(kv.key.subarray(keys.children.length)),
          request: requestToWire(requestOf(child.request)), state: child.state,
          attempts: child.attempts, lease_expires_at: child.lease_expires_at,
        };
      }),
    };
  }

  async op_store_now() {
    return { now: await clusterClock(endpoints).now() };
  }

  async op_reopen() {
    this.store.close();
    this.store = connect(endpoints);
    const idle = this.idle.splice(0);
    await Promise.allSettled(idle.map((queue) => queue.close()));
  }

  async op_restart_store() {
    if (options.cluster === undefined) return; // no cluster of the suite's: `reopen` reconnects
    await cluster('restart-all');
  }

  // ---- what this store does not have ----

  op_unique_key_index() {
    throw new Unsupported('etcd has no SQL schema: EQ-02 is the behavioural check');
  }
}

// The node faults (PROTOCOL.md §4; with --cluster).
Object.assign(EtcdAdapter.prototype, nodeOperations(cluster));

serve(new EtcdAdapter());
