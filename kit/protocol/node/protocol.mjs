// The adapter's side of the conformance protocol, version 1 (kit/protocol/PROTOCOL.md), for
// adapters written in Node.js: the wire forms, the answers, and the multiplexed session loop.
// The reference adapter (adapter.mjs) and the adapters over other queue libraries
// (kit/adapters/*) import it, so that none carries its own copy.
//
//   import { Adapter, serve } from './protocol.mjs';
//   class MyAdapter extends Adapter { async openQueue() {...}  async op_reset() {...}  ... }
//   serve(new MyAdapter({ name: 'mine', capabilities: {...} }));
//
// An adapter is a subclass of `Adapter` with one `op_<name>` method per operation it serves
// (§4). A method returns the result object (or nothing, for `{}`), or throws: a QueueError
// or a LeaseError is the queue's answer, Unsupported is `unsupported`, anything else a
// `failure` with its stack on stderr. Operations whose capability is not declared are
// answered `unsupported` before any method runs (EQ-24).
import { createInterface } from 'node:readline';

import { parse, stringify } from 'lossless-json';

/** The protocol version this module speaks. */
export const PROTOCOL = 1;

// ---- wire forms ----------------------------------------------------------------------------

/**
 * One protocol line as a value. Integers that fit a double stay numbers; larger ones (u64
 * sequences) become BigInt. lossless-json is exact but slow on megabyte lines, so it reads
 * only lines holding a run of 16 or more digits; with none, JSON.parse is exact.
 */
export const readJson = (line) =>
  !/\d{16}/.test(line)
    ? JSON.parse(line)
    : parse(line, null, (digits) => {
      const number = Number(digits);
      return Number.isSafeInteger(number) || !/^-?\d+$/.test(digits) ? number : BigInt(digits);
    });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A bytes field (a JSON string, its UTF-8, or {"base64": ...}) as a Buffer; TypeError else. */
export function fromWire(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  // Buffer.from skips what is not base64; the protocol's base64 is RFC 4648 with padding.
  if (value && typeof value.base64 === 'string' &&
      /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value.base64)) {
    return Buffer.from(value.base64, 'base64');
  }
  throw new TypeError(`not a bytes field: ${JSON.stringify(value)?.slice(0, 80)}`);
}

/** Bytes for the wire: a string when they are valid UTF-8, else {"base64": ...}. */
export function toWire(bytes) {
  try {
    return utf8.decode(bytes);
  } catch {
    return { base64: Buffer.from(bytes).toString('base64') };
  }
}

/** A u64 from the wire (number or BigInt) as decimal text, for NUMERIC parameters; null stays. */
export const u64 = (value) =>
  (value === null || value === undefined ? null : BigInt(value).toString());

/** An integer (a number, a BigInt or decimal text) for the wire: exact, then as small as it can be. */
export function integer(value) {
  if (value === null || value === undefined) return null;
  const exact = BigInt(value);
  return exact <= BigInt(Number.MAX_SAFE_INTEGER) && exact >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(exact)
    : exact;
}

/**
 * A request from the wire (a MentionTurnRequest, SPEC §6) with its byte fields as Buffers:
 * {desk_id, thread_root (u64 or null), sequence (u64), source_id, target_id, content,
 * child_hop (number)}.
 */
export function requestFromWire(wire) {
  return {
    desk_id: fromWire(wire.conversation.desk_id),
    thread_root: wire.conversation.thread_root ?? null,
    sequence: wire.key.trigger_sequence,
    source_id: fromWire(wire.source_id),
    target_id: fromWire(wire.target_id),
    content: fromWire(wire.content),
    child_hop: Number(wire.child_hop),
  };
}

/** The wire form of a request given as requestFromWire's fields (Buffers, integers). */
export function requestToWire(request) {
  return {
    key: { trigger_sequence: integer(request.sequence) },
    source_id: toWire(request.source_id),
    target_id: toWire(request.target_id),
    content: toWire(request.content),
    conversation: { desk_id: toWire(request.desk_id), thread_root: integer(request.thread_root) },
    child_hop: integer(request.child_hop),
  };
}

/** A lease duration in milliseconds: a positive integer a BIGINT holds. */
export const validDuration = (duration) =>
  (typeof duration === 'bigint' || Number.isSafeInteger(duration)) && duration > 0 &&
  BigInt(duration) < 2n ** 62n;

// ---- answers -------------------------------------------------------------------------------

/** The queue's QueueError (`kind` as in SPEC §6: unavailable, internal, invalid_request, ...). */
export class QueueError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

/** The queue's LeaseError: stale_token, invalid_duration or unavailable. */
export class LeaseError extends Error {
  constructor(kind) {
    super(kind);
    this.kind = kind;
  }
}

/** Thrown for an operation this adapter does not serve: the answer is `unsupported`. */
export class Unsupported extends Error {}

/**
 * The answer for a decision that wrote nothing, from thm_admit's or thm_enqueue_once's
 * `outcome` and `reason`: a result for `already` and `refused`, else a thrown QueueError.
 * `key` names the turn in the error's message.
 */
export function answerOf(outcome, reason, key) {
  switch (outcome) {
    case 'already':
      return { status: 'already' };
    case 'refused':
      return { status: 'refused', reason };
    case 'trigger_missing':
      throw new QueueError('trigger_missing', `no committed reply for ${key}`);
    case 'trigger_mismatch':
      throw new QueueError('trigger_mismatch',
        `the request's ${reason.replace('_', ' ')} differs from the committed reply for ${key}`);
    default:
      throw new QueueError('internal', `the store answered ${outcome} ${reason}`);
  }
}

/** A short name of a request's turn for messages: desk/root-or-c/sequence. */
export const turnName = (request) =>
  `${request.desk_id.toString('utf8')}/${request.thread_root ?? 'c'}/${request.sequence}`;

/**
 * Refuses a request over the declared limits with `invalid_request` (EQ-21), before any
 * store is touched.
 */
export function checkLimits(request, { max_content_bytes: content, max_id_bytes: id }) {
  if (content != null && request.content.length > content) {
    throw new QueueError('invalid_request',
      `content is longer than the store's limit of ${content} bytes`);
  }
  if (id != null &&
      Math.max(request.source_id.length, request.target_id.length, request.desk_id.length) > id) {
    throw new QueueError('invalid_request', `an id is longer than the store's limit of ${id} bytes`);
  }
}

// ---- the session loop ----------------------------------------------------------------------

// Operations that exist only with a capability; undeclared, they answer `unsupported`.
const NEEDS = {
  claim: 'leases', renew: 'leases', complete: 'leases', fail: 'leases', store_now: 'leases',
  unique_key_index: 'sql_schema', reopen: 'persistent', restart_store: 'persistent',
  advance_store_clock: 'injected_store_clock',
  node_count: 'nodes', leader: 'nodes', kill_node: 'nodes', restart_node: 'nodes',
  pause_node: 'nodes', resume_node: 'nodes', recover: 'nodes',
};

const IDLE_SESSIONS = 16; // closed sessions whose connections are kept for reuse

/**
 * A multiplexed adapter (PROTOCOL.md §3): one process, one queue object per session, requests
 * for different sessions in flight at once and answered as they finish.
 *
 * Subclasses give `openQueue()`, which resolves to a session's queue: an object with
 * `close()` and a `broken` property (a broken one is not reused). Closed sessions' queues are
 * kept, up to 16, for the next `open_session`, as a host's pool would keep connections.
 * `op_enqueue_once` is the subclass's; `this.hookFor(message)` gives the hook function its
 * step calls at each point (null when no hook is installed), and `this.queueOf(message)` the
 * session's queue.
 */
export class Adapter {
  /** `name` for reports; `capabilities` as `hello` declares them. */
  constructor({ name, capabilities }) {
    this.name = name;
    this.capabilities = capabilities;
    this.write = (text) => process.stdout.write(text);
    this.sessions = new Map(); // session number → queue
    this.idle = []; // closed sessions' queues, for the next open_session
    this.nextSession = 1;
    this.hooked = false; // set_hook: every session stops at the six points
    this.hooksSent = 0;
    this.waiting = new Map(); // hook number → resolve(proceed)
    this.inFlight = new Set(); // answers not yet written
  }

  /** A line on stderr, prefixed with the adapter's name: stdout carries the protocol only. */
  log(...parts) {
    console.error(`${this.name}:`, ...parts);
  }

  send(message) {
    this.write(`${stringify(message)}\n`);
  }

  receive(line) {
    let message;
    try {
      message = readJson(line);
    } catch (error) {
      this.log(`ignoring a line that is not JSON (${error.message}): ${line.slice(0, 200)}`);
      return;
    }
    if (message && message.hook_reply !== undefined) {
      const resolve = this.waiting.get(Number(message.hook_reply));
      this.waiting.delete(Number(message.hook_reply));
      if (resolve) resolve(message.proceed === true);
      else this.log(`ignoring a reply to no hook: ${line.slice(0, 200)}`);
      return;
    }
    if (!message || message.id === undefined) {
      this.log(`ignoring a message without an id: ${line.slice(0, 200)}`);
      return;
    }
    const answered = this.answer(message).then((response) => {
      this.send({ id: message.id, ...response });
    });
    this.inFlight.add(answered);
    answered.finally(() => this.inFlight.delete(answered));
  }

  /** stdin closed: waiting hooks fail where they are, answers in flight are written. */
  async finish() {
    for (const resolve of this.waiting.values()) resolve(false);
    this.waiting.clear();
    await Promise.allSettled([...this.inFlight]);
    const queues = [...this.sessions.values(), ...this.idle];
    await Promise.allSettled([...queues.map((queue) => queue.close()), this.close()]);
  }

  /** Closes the adapter's own connections, after every session's; the subclass's to give. */
  async close() {}

  async answer(message) {
    const op = message.op;
    const handler = typeof op === 'string' ? this[`op_${op}`] : undefined;
    try {
      const needed = NEEDS[op];
      if (needed && !this.capabilities[needed]) {
        throw new Unsupported(`${op} needs ${needed}, which ${this.name} does not declare`);
      }
      if (typeof handler !== 'function') throw new Unsupported(`unknown operation ${op}`);
      return { result: (await handler.call(this, message)) ?? {} };
    } catch (error) {
      if (error instanceof QueueError) {
        return { result: { queue_error: { kind: error.kind, message: error.message } } };
      }
      if (error instanceof LeaseError) return { result: { lease_error: error.kind } };
      if (error instanceof Unsupported) return { unsupported: error.message };
      this.log(error?.stack ?? error);
      return { failure: `${op}: ${error?.message ?? error}` };
    }
  }

  /** A hook call on stdout; resolves with the suite's reply (true: proceed). */
  hook(session, point) {
    const number = ++this.hooksSent;
    return new Promise((resolve) => {
      this.waiting.set(number, resolve);
      this.send({ hook: number, session, point });
    });
  }

  /** The hook function for a session's step, `(point) => Promise<boolean>`, or null. */
  hookFor(message) {
    const session = Number(message.session);
    return this.hooked ? (point) => this.hook(session, point) : null;
  }

  /** The queue of the message's session. */
  queueOf(message) {
    const queue = this.sessions.get(Number(message.session));
    if (!queue) throw new Error(`no open session ${message.session}`);
    return queue;
  }

  /** Resolves to a new session's queue; the subclass's to give. */
  async openQueue() {
    throw new Error('the adapter has no openQueue()');
  }

  op_hello(message) {
    if (Number(message.protocol) !== PROTOCOL) {
      throw new Error(`this adapter speaks protocol ${PROTOCOL} only`);
    }
    return { protocol: PROTOCOL, name: this.name, sessions: 'multiplexed',
      capabilities: this.capabilities };
  }

  async op_open_session() {
    const number = this.nextSession++;
    let queue = this.idle.pop();
    while (queue?.broken) {
      await queue.close();
      queue = this.idle.pop();
    }
    this.sessions.set(number, queue ?? (await this.openQueue()));
    return { session: number };
  }

  async op_close_session(message) {
    const queue = this.queueOf(message);
    this.sessions.delete(Number(message.session));
    if (queue.broken || this.idle.length >= IDLE_SESSIONS) await queue.close();
    else this.idle.push(queue);
  }

  /** Empties the store (PROTOCOL.md §4's `reset`); the subclass's to give. */
  async reset() {
    throw new Error('the adapter has no reset()');
  }

  async op_reset() {
    this.hooked = false;
    await this.reset();
  }

  op_set_hook(message) {
    if (message.installed === true && !this.capabilities.hooks) {
      throw new Unsupported(`${this.name} has no hooks`);
    }
    this.hooked = message.installed === true;
  }

  // ---- the session operations, on the session's queue: `enqueueOnce(request, hook)` (the
  // request as requestFromWire gives it) resolves to an outcome; `claim(duration)` to a lease
  // in its wire form or null; `renew(token, duration)` to the new expiry; `complete(token)`
  // and `fail(token)` to the state after. Each throws QueueError or LeaseError for the
  // queue's own answers.

  async op_enqueue_once(message) {
    const request = requestFromWire(message.request);
    return { outcome: await this.queueOf(message).enqueueOnce(request, this.hookFor(message)) };
  }

  async op_claim(message) {
    return { lease: await this.queueOf(message).claim(message.duration) };
  }

  async op_renew(message) {
    return { expires_at: await this.queueOf(message).renew(message.token, message.duration) };
  }

  async op_complete(message) {
    return { state: await this.queueOf(message).complete(message.token) };
  }

  async op_fail(message) {
    return { state: await this.queueOf(message).fail(message.token) };
  }
}

/**
 * Runs `adapter` on this process's stdin and stdout until stdin closes, then exits 0. A
 * stray console.log goes to stderr, so it never corrupts the protocol stream.
 */
export function serve(adapter) {
  console.log = console.error;
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => adapter.receive(line));
  lines.on('close', async () => {
    await adapter.finish();
    process.exit(0);
  });
}
