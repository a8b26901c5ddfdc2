// thm's reference host queue on an etcd 3.4 cluster (adr/0018): what a Node.js host on etcd
// copies. `EtcdQueue` is one session: its own client, its own etcd lease for the key locks it
// holds, and SPEC §4's step, whose decision is one etcd transaction. The harness's side (the
// host's writes, the inspector, the node faults) is in adapter.mjs.
//
// The keys (K is the canonical turn key, `TurnKey::encoded()`, as bytes):
//   thm/reply/K           the committed reply: {author_id, content, hop}
//   thm/policy            the live policy: {enabled, max_hops}; absent: dispatch disabled
//   thm/auth/N:S/T        "0" when source S (N bytes long) may not dispatch to target T
//   thm/avail/A           "1" when agent A is available
//   thm/record/K          the idempotency record (empty); its create revision is the child's id
//   thm/child/K           the child: {request, state, attempts, lease_expires_at, token}
//   thm/lock/K/L          a key lock held by the session whose etcd lease is L
// Byte fields are base64 inside the JSON values; ids and revisions are decimal text.
import { randomUUID } from 'node:crypto';

import { isBrokenCircuitError, noop } from 'cockatiel';
import { Etcd3 } from 'etcd3';

import {
  LeaseError, QueueError, checkLimits, integer, requestToWire, turnName, validDuration,
} from '../../protocol/node/protocol.mjs';

/** The limits this store declares (EQ-21): longer requests are `invalid_request`. */
export const LIMITS = { max_content_bytes: 1 << 20, max_id_bytes: 1024 };
/** Claims a child may receive; after the last one it is dead (EQ-18). */
export const MAX_ATTEMPTS = 3;
/** Seconds a session's etcd lease, and so a key lock of a session that died, lives. */
const LOCK_TTL_SECONDS = 2;
const READ_DEADLINE_MS = 2000; // reads, locks, lease rows: well inside the suite's 30 s
// The write: below etcd's own 5 s + 2 × election, so that the client, not the server,
// decides when to stop waiting for a leader that is gone.
const WRITE_DEADLINE_MS = 3000;
const WRITE_RETRIES = 5; // a write whose rows changed under it is judged again, this often
// A claim that lost its child to another claimer picks again, this often: each round at
// least one of the claimers wins, so this many claimers at once all get an answer.
const CLAIM_RETRIES = 64;
// How long a step waits for the open step on its key, as PostgreSQL's lock_timeout in the
// other reference stores: under the suite's 30 s --exec-timeout, so that it hears
// `unavailable` rather than nothing.
const LOCK_WAIT_MS = 20000;

// ---- keys ----------------------------------------------------------------------------------

const bytes = (...parts) => Buffer.concat(parts.map((part) => Buffer.from(part)));

/** The store's keys, each a Buffer. */
export const keys = {
  prefix: Buffer.from('thm/'),
  policy: Buffer.from('thm/policy'),
  reply: (turn) => bytes('thm/reply/', turn),
  record: (turn) => bytes('thm/record/', turn),
  child: (turn) => bytes('thm/child/', turn),
  children: Buffer.from('thm/child/'),
  records: Buffer.from('thm/record/'),
  locks: (turn) => bytes('thm/lock/', turn, '/'),
  auth: (source, target) => bytes(`thm/auth/${source.length}:`, source, '/', target),
  avail: (agent) => bytes('thm/avail/', agent),
};

/** etcd's `range_end` for every key that starts with `prefix`. */
export function prefixEnd(prefix) {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i -= 1) {
    if (end[i] < 0xff) {
      end[i] += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** The range of every key under `prefix`, for a RangeRequest or DeleteRangeRequest. */
export const under = (prefix) => ({ key: prefix, range_end: prefixEnd(prefix) });

const GENERAL = ['main', 'general'];

/**
 * The canonical turn key of a request (SPEC §3.3, `TurnKey::encoded()`):
 * `v1/<desk byte length>:<desk id>/<c | t<root>>/<sequence>`, every General spelling `General`.
 */
export function turnKey({ desk_id: desk, thread_root: root, sequence }) {
  const ascii = desk.toString('latin1').replace(/[A-Z]/g, (c) => c.toLowerCase());
  const canonical = desk.length === 0 || GENERAL.includes(ascii) ? Buffer.from('General') : desk;
  const channel = root === null || root === undefined ? 'c' : `t${BigInt(root)}`;
  return bytes(`v1/${canonical.length}:`, canonical, `/${channel}/${BigInt(sequence)}`);
}

// ---- values --------------------------------------------------------------------------------

const b64 = (buffer) => Buffer.from(buffer).toString('base64');
const unb64 = (text) => Buffer.from(text, 'base64');

/** A JSON value for etcd. */
export const encode = (value) => Buffer.from(JSON.stringify(value));
/** A stored JSON value, or null for a key that is absent. */
export const decode = (kv) => (kv ? JSON.parse(kv.value.toString('utf8')) : null);

/** A child's stored request from requestFromWire's fields. */
export const storedRequest = (request) => ({
  desk_id: b64(request.desk_id),
  thread_root: request.thread_root === null ? null : String(request.thread_root),
  sequence: String(request.sequence),
  source_id: b64(request.source_id),
  target_id: b64(request.target_id),
  content: b64(request.content),
  child_hop: request.child_hop,
});

/** requestFromWire's fields of a stored request (integers as BigInt). */
export const requestOf = (stored) => ({
  desk_id: unb64(stored.desk_id),
  thread_root: stored.thread_root === null ? null : BigInt(stored.thread_root),
  sequence: BigInt(stored.sequence),
  source_id: unb64(stored.source_id),
  target_id: unb64(stored.target_id),
  content: unb64(stored.content),
  child_hop: stored.child_hop,
});

/** The reply's stored value. */
export const storedReply = ({ author_id: author, content, hop }) =>
  ({ author_id: b64(author), content: b64(content), hop: Number(hop) });

// ---- errors --------------------------------------------------------------------------------

/**
 * Whether `error`, from a call the client made, proves that the call never reached a member:
 * no connection, no transport picked before the deadline, every host's circuit open, or a
 * member that turned it away before proposing it. The texts are grpc-js 1.14's and etcd
 * 3.4's (package-lock.json pins grpc-js). Anything else may have been proposed, and so may
 * commit: a write that fails so is `indeterminate`, never `unavailable`.
 */
export function neverSent(error) {
  if (isBrokenCircuitError(error)) return true;
  const message = String(error?.message ?? error);
  return message.includes('No connection established') ||
    (message.includes('Waiting for LB pick') && !message.includes('remote_addr')) ||
    message.includes('etcdserver: too many requests');
}

const storeError = (kind, what, error) =>
  new QueueError(kind, `${what}: ${String(error?.message ?? error).split('\n')[0]}`);

// ---- the clock -----------------------------------------------------------------------------

const CLOCK_SLACK_MS = 50; // how far a reading may stray from the member's second, for jitter
// A tick is taken at once when the reading before it and the reading that saw it span at
// most this long (or two of the member's fastest round trips, for a member far away), so the
// moment it is placed at is off by at most half of it; else the tightest of three ticks.
const TICK_WINDOW_MS = 20;

/**
 * The store's clock (adr/0018 §0): the wall clock of one member, which etcd shows only in
 * the `Date` header of its HTTP answers, to the whole second. The clock finds the moment a
 * member's second begins (it asks every 2 ms until `Date` changes, and keeps a tick only
 * when the two readings around it took at most 20 ms), then counts from it on this
 * process's monotonic clock, which no skew of the wall clock moves. Every reading asks the
 * member again and starts over when the member's second disagrees with it by more than
 * 50 ms. So it is within about 10 ms of the member's time after a sync, and it never
 * goes back: after a new sync behind what it said, it says that again until the member's
 * time passes it. Leases are computed on it, never
 * on this process's wall clock. One clock per process, shared by its sessions; two
 * processes may differ by twice that error, so a host leases for longer than it renews.
 */
export class ClusterClock {
  constructor(endpoints) {
    this.endpoints = endpoints;
    this.anchor = null; // {endpoint, date, at}: the member's second `date` began at `at`
    this.syncing = null;
    this.said = -Infinity; // the latest time it answered: it never answers earlier
  }

  /** One `Date` of `endpoint`, in ms, with the monotonic moments around it. */
  static async ask(endpoint) {
    const sent = performance.now();
    const answer = await fetch(`${endpoint}/version`, { signal: AbortSignal.timeout(1000) });
    await answer.arrayBuffer();
    const received = performance.now();
    const date = Date.parse(answer.headers.get('date') ?? '');
    if (!Number.isFinite(date)) throw new Error(`${endpoint} answered without a Date header`);
    return { date, sent, received };
  }

  /** Finds the start of a member's next second: the first of the endpoints that answers. */
  async sync() {
    let last;
    for (const endpoint of this.endpoints) {
      try {
        let before = await ClusterClock.ask(endpoint);
        let fastest = before.received - before.sent;
        let best = null;
        for (let ticks = 0; ticks < 3;) {
          await new Promise((resolve) => { setTimeout(resolve, 2); });
          const reading = await ClusterClock.ask(endpoint);
          fastest = Math.min(fastest, reading.received - reading.sent);
          if (reading.date !== before.date) {
            ticks += 1;
            const window = reading.received - before.sent;
            if (!best || window < best.window) {
              best = { endpoint, date: reading.date, at: (before.sent + reading.received) / 2, window };
            }
            if (window <= Math.max(TICK_WINDOW_MS, 2 * fastest + 5)) break;
          }
          before = reading;
        }
        this.anchor = best;
        return;
      } catch (error) {
        last = error;
      }
    }
    throw last ?? new Error('no etcd endpoint');
  }

  /** The store's time now, in whole milliseconds since the epoch; throws when no member answers. */
  async now() {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (!this.anchor) {
        this.syncing ??= this.sync().finally(() => { this.syncing = null; });
        await this.syncing;
      }
      const anchor = this.anchor;
      if (!anchor) continue; // emptied meanwhile by another reading: sync again
      const at = (moment) => anchor.date + (moment - anchor.at);
      let reading;
      try {
        reading = await ClusterClock.ask(anchor.endpoint);
      } catch (error) {
        if (this.anchor === anchor) this.anchor = null; // that member is gone: another one
        if (attempt === 1) throw error;
        continue;
      }
      const low = at(reading.sent) - CLOCK_SLACK_MS;
      const high = at(reading.received) + CLOCK_SLACK_MS;
      if (low < reading.date + 1000 && high >= reading.date) {
        this.said = Math.max(this.said, Math.floor(at(performance.now())));
        return this.said;
      }
      if (this.anchor === anchor) this.anchor = null; // the member's clock moved: again
    }
    throw new Error("the member's clock kept disagreeing with the last tick seen");
  }
}

const clocks = new Map(); // endpoints → the process's clock on them

/** The process's clock on the cluster at `endpoints`. */
export function clusterClock(endpoints) {
  const name = endpoints.join(',');
  if (!clocks.has(name)) clocks.set(name, new ClusterClock(endpoints));
  return clocks.get(name);
}

// ---- a session -----------------------------------------------------------------------------

/** A new etcd client for one session: no hidden retries, every unary call with a deadline. */
export function connect(endpoints) {
  return new Etcd3({
    hosts: endpoints,
    // The default policy re-sends a write that timed out, and may commit it twice unseen.
    faultHandling: { global: noop },
    defaultCallOptions: (context) =>
      (context.isStream ? {} : { deadline: Date.now() + READ_DEADLINE_MS }),
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
  });
}

const range = (key) => ({ request_range: { key } });
const kvOf = (response) => response.response_range.kvs[0] ?? null;
const modOf = (kv) => (kv ? kv.mod_revision : '0');
const sameMod = (key, kv) => ({ key, target: 'Mod', result: 'Equal', mod_revision: modOf(kv) });

/**
 * One session of the etcd queue. `endpoints` are the members' client URLs. Requests of one
 * session never overlap (PROTOCOL.md §3), so it holds at most one key lock at a time.
 */
export class EtcdQueue {
  constructor(endpoints) {
    this.endpoints = endpoints;
    this.client = connect(endpoints);
    this.lease = null; // the etcd lease of this session's key locks, granted on first use
    this.broken = false;
    // The policy, pair and availability rows as this session last read them, by key (latin1):
    // the kv, or null for a key that was absent. The one-transaction step compares them.
    this.seen = new Map();
  }

  close() {
    const lease = this.lease;
    this.abandonLease();
    const revoked = lease ? lease.revoke().catch(() => {}) : Promise.resolve();
    return revoked.finally(() => this.client.close());
  }

  // ---- the key lock: etcd's mutex recipe (the lowest create revision under the key holds it)

  /** This session's lease id, granted once and kept alive every third of its TTL. */
  async leaseId() {
    if (!this.lease) {
      const lease = this.client.lease(LOCK_TTL_SECONDS, { autoKeepAlive: false });
      this.lease = lease;
      this.keepalive = setInterval(() => {
        lease.keepaliveOnce({ deadline: Date.now() + 1000 }).catch((error) => {
          // Gone on the cluster: the next lock takes a new one. Anything else: try again.
          if (error?.constructor?.name === 'EtcdLeaseInvalidError' && this.lease === lease) {
            this.abandonLease();
          }
        });
      }, (LOCK_TTL_SECONDS * 1000) / 3);
      this.keepalive.unref();
    }
    const lease = this.lease;
    try {
      return await lease.grant();
    } catch (error) {
      if (this.lease === lease) this.abandonLease();
      throw error;
    }
  }

  /**
   * Stops keeping this session's lease alive, so that every key tied to it ends within its
   * TTL; the next lock takes a new one. For a lock key this session may have left behind
   * (a write of unknown outcome, a delete that did not reach the cluster): kept alive, it
   * would hold every later step on its turn for as long as the session lives.
   */
  abandonLease() {
    clearInterval(this.keepalive);
    this.lease = null;
  }

  /**
   * The step's first transaction: the rows an enqueue decides on, read at one revision, and,
   * when the key has no record yet, this session's lock key on it, put in the same
   * transaction with the oldest lock key read after it. Resolves to {rows, lock}: `lock` is
   * null when the key has its record, else {key, lease, prefix, held}, `held` when this
   * session's key is the oldest. Throws `unavailable` when the cluster cannot be asked; a
   * lock key that may have been written then ends with the session's lease.
   */
  async begin(request, turn) {
    const prefix = keys.locks(turn);
    const rows = [keys.reply(turn), keys.policy, keys.auth(request.source_id, request.target_id),
      keys.avail(request.target_id), keys.record(turn)];
    let lease = null;
    try {
      lease = await this.leaseId();
      const key = bytes(prefix, BigInt(lease).toString(16));
      const read = await this.client.kv.txn({
        compare: [{ key: keys.record(turn), target: 'Create', result: 'Equal', create_revision: '0' }],
        success: [{ request_put: { key, value: Buffer.alloc(0), lease } },
          { request_range: { ...under(prefix), limit: 1, sort_target: 'Create', sort_order: 'Ascend' } },
          ...rows.map(range)],
        failure: rows.map(range),
      });
      if (!read.succeeded) return { rows: viewOf(read.responses), lock: null };
      const oldest = kvOf(read.responses[1]);
      return {
        rows: viewOf(read.responses.slice(2)),
        lock: { key, lease, prefix, held: oldest !== null && oldest.key.equals(key) },
      };
    } catch (error) {
      if (lease) this.abandonLease(); // its lock key may exist, or come to: it ends with the lease
      throw storeError('unavailable', `reading ${turnName(request)}`, error);
    }
  }

  /**
   * Waits for the open step on the key of `lock`: resolves true once this session's key is
   * the oldest under the turn's lock keys, false once `record` exists (the step that held the
   * lock committed, and every waiter may answer from the record at once). Throws
   * `unavailable` when the cluster cannot be asked, or after LOCK_WAIT_MS. Every waiter
   * watches the oldest holder, so that when a step commits all of them find its record
   * together rather than one after another; a holder that died frees the lock when its
   * lease ends.
   */
  async waitForTurn(lock, record) {
    const until = performance.now() + LOCK_WAIT_MS;
    try {
      for (;;) {
        const oldest = await this.client.kv.range({
          ...under(lock.prefix), limit: 1, sort_target: 'Create', sort_order: 'Ascend',
        });
        const holder = oldest.kvs[0];
        if (!holder || holder.key.equals(lock.key)) return true;
        if (performance.now() > until) break;
        await this.deleted(holder.key, BigInt(oldest.header.revision) + 1n);
        if ((await this.client.kv.range({ key: record, keys_only: true })).kvs.length > 0) {
          return false;
        }
      }
    } catch (error) {
      throw storeError('unavailable', 'waiting for the open step on the key', error);
    }
    throw new QueueError('unavailable',
      `waited ${LOCK_WAIT_MS / 1000} s for the open step on the key; nothing was written`);
  }

  /**
   * Resolves once `key` is deleted at or after revision `from`, or after 250 ms, whichever
   * comes first: a watch whose stream is stuck on a member that stopped must not hold the
   * step, which then looks again.
   */
  deleted(key, from) {
    return new Promise((resolve) => {
      let done = false;
      let watcher = null;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        watcher?.cancel().catch(() => {});
        resolve();
      };
      const timer = setTimeout(finish, 250);
      this.client.watch().key(key).startRevision(String(from)).create().then((created) => {
        watcher = created;
        if (done) created.cancel().catch(() => {});
        else created.on('delete', finish);
      }, finish);
    });
  }

  /**
   * Lets the lock go, unless the decision's transaction already deleted it. If the cluster
   * cannot be told, the session gives up its lease (abandonLease).
   */
  async unlock(lock) {
    if (lock.released) return;
    lock.released = true;
    const lease = this.lease;
    try {
      await this.client.kv.deleteRange({ key: lock.key });
    } catch {
      if (this.lease === lease) this.abandonLease();
    }
  }

  // ---- the step -------------------------------------------------------------------------

  /** The rows an enqueue decides on, read together at one revision (linearizable). */
  async view(request, turn) {
    const rows = [keys.reply(turn), keys.policy, keys.auth(request.source_id, request.target_id),
      keys.avail(request.target_id), keys.record(turn)];
    try {
      const read = await this.client.kv.txn({ success: rows.map(range) });
      return viewOf(read.responses);
    } catch (error) {
      throw storeError('unavailable', `reading ${turnName(request)}`, error);
    }
  }

  /**
   * SPEC §4's step. `hook(point)` resolves false to fail there; null runs without hooks.
   * Resolves to the outcome, or throws a QueueError.
   */
  async enqueueOnce(request, hook) {
    checkLimits(request, LIMITS);
    const turn = turnKey(request);
    const pass = async (point) => {
      if (hook && !(await hook(point))) {
        throw new QueueError('unavailable', `the step was rolled back at ${point}`);
      }
    };
    await pass('after_begin');
    if (!hook) {
      const answer = await this.decideAtOnce(request, turn);
      if (answer) return answer;
    }
    // A key that has its record answers from this one read: the record and the child were
    // written together, so a record means a committed child.
    let { rows, lock } = await this.begin(request, turn);
    try {
      const answer = judge(rows, request);
      if (answer) return answer;
      if (lock && !lock.held) {
        const held = await this.waitForTurn(lock, keys.record(turn));
        rows = await this.view(request, turn);
        const now = judge(rows, request);
        if (now) return now;
        if (!held && !rows.record) { // the record seen while waiting is gone: a reset
          throw new QueueError('unavailable', `the record of ${turnName(request)} vanished; nothing was written`);
        }
      }
      await pass('after_validate_reads');
      if (rows.record) return { status: 'already' };
      // The record and the child go in one transaction: these points pass before it is sent.
      await pass('after_idempotency_statement');
      await pass('after_child_insert');
      await pass('before_commit');
      const written = await this.write(request, turn, rows, lock);
      if (written) return written;
      if (hook && !(await hook('after_commit_before_return'))) {
        throw new QueueError('indeterminate', 'the answer was lost after commit');
      }
      return { status: 'enqueued' };
    } finally {
      if (lock) await this.unlock(lock);
    }
  }

  /**
   * The decision: writes the record and the child if the rows it was judged on are unchanged,
   * this session still holds the key's lock, and the key has no record. Resolves to nothing
   * when it wrote them, or to the answer of rows that changed under it (a refusal, `already`).
   */
  async write(request, turn, judged, lock) {
    const recordKey = keys.record(turn);
    const child = newChild(request);
    const read = [keys.reply(turn), keys.policy, keys.auth(request.source_id, request.target_id),
      keys.avail(request.target_id), recordKey];
    let rows = judged;
    for (let attempt = 0; attempt < WRITE_RETRIES; attempt += 1) {
      const compare = [
        { key: lock.key, target: 'Lease', result: 'Equal', lease: lock.lease },
        ...read.slice(0, 4).map((key, i) => sameMod(key, rows.kvs[i])),
        { key: recordKey, target: 'Create', result: 'Equal', create_revision: '0' },
      ];
      let result;
      try {
        result = await this.client.kv.txn({
          compare,
          success: [{ request_put: { key: recordKey, value: Buffer.alloc(0) } },
            { request_put: { key: keys.child(turn), value: child } },
            { request_delete_range: { key: lock.key } }],
          failure: [...read.map(range), range(lock.key)],
        }, { deadline: Date.now() + WRITE_DEADLINE_MS });
      } catch (error) {
        throw storeError(neverSent(error) ? 'unavailable' : 'indeterminate',
          `writing ${turnName(request)}`, error);
      }
      if (result.succeeded) {
        lock.released = true; // deleted by the same transaction
        return null;
      }
      rows = viewOf(result.responses.slice(0, 5));
      const answer = judge(rows, request);
      if (answer) return answer;
      if (rows.record) return { status: 'already' };
      const held = kvOf(result.responses[5]);
      if (!held || held.lease !== lock.lease) {
        throw new QueueError('unavailable',
          `the lock of ${turnName(request)} ended with this session's lease; nothing was written`);
      }
    }
    throw new QueueError('unavailable',
      `the rows of ${turnName(request)} kept changing under the step; nothing was written`);
  }

  // ---- the step without a hook: one transaction ------------------------------------------

  /** Keeps the policy, pair and availability rows of `rows` for the next steps to compare. */
  remember(rows) {
    if (this.seen.size > 4096) this.seen.clear(); // rows of pairs and agents long unused
    for (const row of ['policy', 'auth', 'avail']) {
      this.seen.set(rows.keys[row].toString('latin1'), rows[row]);
    }
  }

  /**
   * SPEC §4's step when no hook can pause it, in one etcd transaction and so one round trip:
   * it writes the record and the child if the key has no record and no lock key (no hooked
   * step is open on it), the reply under the key is the one the request implies, byte for
   * byte, and the policy, the pair and the target's rows are at the revisions this session
   * last read and judged them at (`seen`). Otherwise it writes nothing and the same
   * transaction reads the rows, which the step judges: an answer, or, when only the
   * session's view of the policy rows was old, the transaction again with the new one.
   * Before the session has seen those rows, or when it last judged them a refusal, one read
   * comes first. Resolves to the answer, or to null when a hooked step holds the key's lock:
   * the caller then waits for it as a hooked step does.
   */
  async decideAtOnce(request, turn) {
    const rowKeys = {
      reply: keys.reply(turn), policy: keys.policy, record: keys.record(turn),
      auth: keys.auth(request.source_id, request.target_id), avail: keys.avail(request.target_id),
    };
    const locks = keys.locks(turn);
    const reply = encode(storedReply({
      author_id: request.source_id, content: request.content, hop: request.child_hop - 1,
    }));
    for (let attempt = 0; attempt < WRITE_RETRIES; attempt += 1) {
      const seen = ['policy', 'auth', 'avail'].map((row) => this.seen.get(rowKeys[row].toString('latin1')));
      if (seen.includes(undefined) || refusal(...seen, request)) {
        const rows = { ...(await this.view(request, turn)), keys: rowKeys };
        this.remember(rows);
        const answer = judge(rows, request);
        if (answer) return answer;
        if (rows.record) return { status: 'already' };
        continue;
      }
      const result = await this.commitAtOnce(request, {
        compare: [
          { key: rowKeys.record, target: 'Create', result: 'Equal', create_revision: '0' },
          { ...under(locks), target: 'Create', result: 'Equal', create_revision: '0' },
          { key: rowKeys.reply, target: 'Value', result: 'Equal', value: reply },
          ...seen.map((kv, i) => sameMod([rowKeys.policy, rowKeys.auth, rowKeys.avail][i], kv)),
        ],
        success: [{ request_put: { key: rowKeys.record, value: Buffer.alloc(0) } },
          { request_put: { key: keys.child(turn), value: newChild(request) } }],
        failure: [...[rowKeys.reply, rowKeys.policy, rowKeys.auth, rowKeys.avail, rowKeys.record]
          .map(range), { request_range: { ...under(locks), limit: 1, keys_only: true } }],
      });
      if (result.succeeded) return { status: 'enqueued' };
      const rows = { ...viewOf(result.responses.slice(0, 5)), keys: rowKeys };
      this.remember(rows);
      const answer = judge(rows, request);
      if (answer) return answer;
      if (rows.record) return { status: 'already' };
      if (kvOf(result.responses[5])) return null; // a hooked step is open on the key
    }
    throw new QueueError('unavailable',
      `the rows of ${turnName(request)} kept changing under the step; nothing was written`);
  }

  /** Sends the one-transaction step's transaction: a write, so a failure may have committed. */
  async commitAtOnce(request, txn) {
    try {
      return await this.client.kv.txn(txn, { deadline: Date.now() + WRITE_DEADLINE_MS });
    } catch (error) {
      throw storeError(neverSent(error) ? 'unavailable' : 'indeterminate',
        `writing ${turnName(request)}`, error);
    }
  }

  // ---- leases: rows on the cluster's clock (adr/0018 §2.1) --------------------------------

  now() {
    return clusterClock(this.endpoints).now();
  }

  /** Every child, oldest first: [{kv, id, child}]. */
  async children() {
    const all = await this.client.kv.range({ ...under(keys.children), sort_target: 'Create' });
    return all.kvs.map((kv) => ({ kv, id: kv.create_revision, child: decode(kv) }));
  }

  /**
   * The pending child whose current token is `token`, if any: {kv, id, child}. The token
   * begins with the child's id, found among the children's keys alone; then that one child
   * is read.
   */
  async leased(token) {
    const id = String(token).split('.')[0];
    const all = await this.client.kv.range({ ...under(keys.children), keys_only: true });
    const named = all.kvs.find((kv) => kv.create_revision === id);
    if (!named) return null;
    const [kv] = (await this.client.kv.range({ key: named.key })).kvs;
    const child = decode(kv);
    return child && child.token === token && child.state === 'pending' ? { kv, id, child } : null;
  }

  /** Writes `rows` ([kv, value]) if none changed since it was read; false if one did. */
  async replace(rows) {
    const result = await this.client.kv.txn({
      compare: rows.map(([kv]) => ({ key: kv.key, target: 'Mod', result: 'Equal',
        mod_revision: kv.mod_revision })),
      success: rows.map(([kv, value]) => ({ request_put: { key: kv.key, value: encode(value) } })),
    });
    return result.succeeded;
  }

  async leaseStep(what, retries = WRITE_RETRIES) {
    try {
      for (let attempt = 0; attempt < retries; attempt += 1) {
        const done = await what();
        if (done !== undefined) return done;
      }
    } catch (error) {
      if (error instanceof LeaseError) throw error;
      console.error('etcd-queue: lease:', String(error?.message ?? error).split('\n')[0]);
      throw new LeaseError('unavailable');
    }
    throw new LeaseError('unavailable'); // the rows kept changing under it
  }

  /**
   * Claims the oldest pending child with attempts left and no live lease: attempts + 1, a
   * new token, expiry = store time + `duration`. Children whose attempts are spent and whose
   * lease is over are marked dead first. Null when none is claimable. Every claim reads
   * every child: a host with many children would keep the pending ones under a key of
   * their own.
   */
  claim(duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    return this.leaseStep(async () => {
      const now = await this.now();
      const free = ({ child }) => child.state === 'pending' &&
        (child.lease_expires_at === null || child.lease_expires_at <= now);
      const rows = (await this.children()).filter(free);
      const spent = rows.filter(({ child }) => child.attempts >= MAX_ATTEMPTS);
      // Each on its own: a claimer that lost one of these to another loses nothing else.
      await Promise.all(spent.map(({ kv, child }) => this.replace([[kv, { ...child, state: 'dead' }]])));
      const next = rows.find(({ child }) => child.attempts < MAX_ATTEMPTS);
      if (!next) return null;
      if (!Number.isSafeInteger(now + Number(duration))) throw new LeaseError('invalid_duration');
      const attempt = next.child.attempts + 1;
      const leased = {
        ...next.child, attempts: attempt, token: `${next.id}.${attempt}.${randomUUID()}`,
        lease_expires_at: now + Number(duration),
      };
      if (!(await this.replace([[next.kv, leased]]))) return undefined; // taken: pick again
      return {
        child_id: integer(next.id), token: leased.token, expires_at: leased.lease_expires_at,
        attempt, request: requestToWire(requestOf(next.child.request)),
      };
    }, CLAIM_RETRIES);
  }

  /** Extends a live lease to store time + `duration`; never shortens it. */
  renew(token, duration) {
    if (!validDuration(duration)) throw new LeaseError('invalid_duration');
    return this.leaseStep(async () => {
      const now = await this.now();
      const row = await this.leased(token);
      if (!row || row.child.lease_expires_at <= now) throw new LeaseError('stale_token');
      if (!Number.isSafeInteger(now + Number(duration))) throw new LeaseError('invalid_duration');
      const expiry = Math.max(row.child.lease_expires_at,
        now + Number(duration));
      return (await this.replace([[row.kv, { ...row.child, lease_expires_at: expiry }]]))
        ? expiry : undefined;
    });
  }

  /** Ends a live lease's child as `completed`, or gives it back (`fail`). The state after. */
  settleLease(token, how) {
    return this.leaseStep(async () => {
      const now = await this.now();
      const row = await this.leased(token);
      if (!row || row.child.lease_expires_at <= now) throw new LeaseError('stale_token');
      const after = how === 'complete'
        ? { ...row.child, state: 'completed', token: null }
        : { ...row.child, token: null, lease_expires_at: null,
          state: row.child.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending' };
      return (await this.replace([[row.kv, after]])) ? after.state : undefined;
    });
  }

  complete(token) {
    return this.settleLease(token, 'complete');
  }

  fail(token) {
    return this.settleLease(token, 'fail');
  }
}

// ---- judging the rows ----------------------------------------------------------------------

function viewOf(responses) {
  const kvs = responses.map(kvOf);
  const [reply, policy, auth, avail, record] = kvs;
  return { kvs, reply, policy, auth, avail, record };
}

/**
 * What the rows say before the idempotency decision (SPEC §4): the stored reply first (a
 * missing or different trigger is an error), then the live policy, the pair, the target.
 * Null when the request may go on; a refusal; throws the trigger's QueueError.
 */
function judge(rows, request) {
  const name = turnName(request);
  const reply = decode(rows.reply);
  if (!reply) throw new QueueError('trigger_missing', `no committed reply for ${name}`);
  const differs = (what) =>
    new QueueError('trigger_mismatch', `the request's ${what} differs from the committed reply for ${name}`);
  if (!unb64(reply.author_id).equals(request.source_id)) throw differs('source');
  if (!unb64(reply.content).equals(request.content)) throw differs('content');
  if (!(reply.hop >= 0 && reply.hop < 0xFFFFFFFF) || request.child_hop !== reply.hop + 1) {
    throw differs('child hop');
  }
  return refusal(rows.policy, rows.auth, rows.avail, request);
}

/** The refusal the policy, pair and availability rows (kvs, or null when absent) give. */
function refusal(policyRow, auth, avail, request) {
  const policy = decode(policyRow);
  if (!policy || !policy.enabled || request.child_hop > policy.max_hops) {
    return { status: 'refused', reason: 'feature_disabled' };
  }
  if (auth && auth.value.toString() === '0') return { status: 'refused', reason: 'unauthorized' };
  if (!avail) return { status: 'refused', reason: 'target_unavailable' };
  return null;
}

/** A new child's value: the request as admitted, pending, never claimed. */
function newChild(request) {
  return encode({
    request: storedRequest(request), state: 'pending', attempts: 0,
    lease_expires_at: null, token: null,
  });
}
