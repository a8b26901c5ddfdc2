// A queue in memory, in plain JavaScript, and its conformance harness: what the tests of
// thm/conformance serve to the suite. Each step runs to its end without awaiting, so it is
// atomic. No hooks and no leases: those checks are skipped.
import thm from "thm";

/** @typedef {import("thm/conformance").Bytes} Bytes */
/** @typedef {import("thm/conformance").SuiteRequest} SuiteRequest */
/** @typedef {import("thm/conformance").Reply} Reply */
/** @typedef {import("thm/conformance").Outcome} Outcome */
/** @typedef {import("thm/conformance").ConformanceHarness} ConformanceHarness */
/** @typedef {{ id: number, key: Buffer, request: SuiteRequest, state: string, attempts: number,
 *              lease_expires_at: null }} Row */

const MAX_CONTENT_BYTES = 1 << 20;
const MAX_ID_BYTES = 1024;
/** @param {Bytes} value */
const bytes = (value) => (typeof value === "string" ? Buffer.from(value) : Buffer.from(value));
/** @param {Bytes} a @param {Bytes} b */
const same = (a, b) => bytes(a).equals(bytes(b));
/** A map key for a byte string. @param {Bytes} value */
const name = (value) => bytes(value).toString("base64");

/** The canonical key of a turn in `conversation` at `sequence`, as thm.turnKey gives it.
 * @param {Reply["conversation"]} conversation @param {bigint} sequence */
const keyOf = (conversation, sequence) => bytes(thm.turnKey({
  key: { trigger_sequence: sequence }, source_id: "", target_id: "", content: "",
  conversation, child_hop: 0 }));

/** @implements {ConformanceHarness} */
export class MemoryHarness {
  name = "node-memory";
  capabilities = { max_content_bytes: MAX_CONTENT_BYTES, max_id_bytes: MAX_ID_BYTES };
  /** @type {Map<string, Reply>} */ replies = new Map();
  /** @type {{ enabled: boolean, max_hops: number } | null} */ policy = null;
  /** @type {Set<string>} */ forbidden = new Set();
  /** @type {Set<string>} */ available = new Set();
  /** @type {Map<string, { key: Buffer, id: number }>} */ keys = new Map();
  /** @type {Map<number, Row>} */ rows = new Map();

  reset() {
    this.replies = new Map();
    this.policy = null;
    this.forbidden = new Set();
    this.available = new Set();
    this.keys = new Map();
    this.rows = new Map();
  }

  openSession() {
    return { enqueueOnce: (/** @type {SuiteRequest} */ request) => this.enqueueOnce(request) };
  }

  /** @param {SuiteRequest} request @returns {Outcome} */
  enqueueOnce(request) {
    if (bytes(request.content).length > MAX_CONTENT_BYTES ||
        [request.source_id, request.target_id, request.conversation.desk_id]
          .some((id) => bytes(id).length > MAX_ID_BYTES)) {
      throw new thm.QueueError("invalid_request", "over the store's limits");
    }
    const key = bytes(thm.turnKey(request));
    const reply = this.replies.get(name(key));
    if (!reply) throw new thm.QueueError("trigger_missing", "no committed reply");
    if (!same(reply.author_id, request.source_id) || !same(reply.content, request.content) ||
        reply.hop + 1 !== request.child_hop) {
      throw new thm.QueueError("trigger_mismatch", "not the reply");
    }
    if (!this.policy?.enabled || request.child_hop > this.policy.max_hops) {
      return { status: "refused", reason: "feature_disabled" };
    }
    if (this.forbidden.has(`${name(request.source_id)} ${name(request.target_id)}`)) {
      return { status: "refused", reason: "unauthorized" };
    }
    if (!this.available.has(name(request.target_id))) return { status: "refused", reason: "target_unavailable" };
    if (this.keys.has(name(key))) return { status: "already" };
    const id = this.keys.size + 1;
    this.keys.set(name(key), { key, id });
    this.rows.set(id, { id, key, request, state: "pending", attempts: 0, lease_expires_at: null });
    return { status: "enqueued" };
  }

  /** @param {Reply} reply */
  commitReply(reply) {
    this.replies.set(name(keyOf(reply.conversation, reply.sequence)), reply);
  }

  /** @param {{ enabled: boolean, max_hops: number }} policy */
  setPolicy(policy) {
    this.policy = policy;
  }

  /** @param {Bytes} sourceId @param {Bytes} targetId @param {boolean} authorized */
  setAuthorized(sourceId, targetId, authorized) {
    const pair = `${name(sourceId)} ${name(targetId)}`;
    if (authorized) this.forbidden.delete(pair);
    else this.forbidden.add(pair);
  }

  /** @param {Bytes} agentId @param {boolean} available */
  setAvailable(agentId, available) {
    if (available) this.available.add(name(agentId));
    else this.available.delete(name(agentId));
  }

  /** @param {number | bigint} childId @param {"complete" | "fail" | "dead_letter" | "delete"} how */
  settle(childId, how) {
    const row = this.rows.get(Number(childId));
    if (!row) throw new Error(`no child ${childId}`);
    if (how === "delete") this.rows.delete(row.id);
    else row.state = { complete: "completed", fail: "failed", dead_letter: "dead" }[how];
  }

  runMaintenance() {
    for (const [id, row] of this.rows) if (row.state !== "pending") this.rows.delete(id);
  }

  records() {
    return [...this.keys.values()].map(({ key, id }) => ({ key, child_id: id }));
  }

  children() {
    return [...this.rows.values()];
  }
}

/** The same queue with one bug: a replay answers enqueued. */
export class ReplayAnsweredEnqueued extends MemoryHarness {
  /** @param {SuiteRequest} request @returns {Outcome} */
  enqueueOnce(request) {
    const outcome = super.enqueueOnce(request);
    return outcome.status === "already" ? { status: "enqueued" } : outcome;
  }
}

/** A harness whose methods are arrow-function fields: a class all the same. */
export class ArrowFields {
  queue = new MemoryHarness();
  name = "node-memory-arrows";
  capabilities = this.queue.capabilities;
  openSession = () => this.queue.openSession();
  reset = () => this.queue.reset();
  commitReply = (/** @type {Reply} */ reply) => this.queue.commitReply(reply);
  setPolicy = (/** @type {{ enabled: boolean, max_hops: number }} */ policy) => this.queue.setPolicy(policy);
  setAuthorized = (/** @type {Bytes} */ source, /** @type {Bytes} */ target, /** @type {boolean} */ on) =>
    this.queue.setAuthorized(source, target, on);
  setAvailable = (/** @type {Bytes} */ agent, /** @type {boolean} */ on) => this.queue.setAvailable(agent, on);
  settle = (/** @type {number | bigint} */ id, /** @type {"complete" | "fail" | "dead_letter" | "delete"} */ how) =>
    this.queue.settle(id, how);
  runMaintenance = () => this.queue.runMaintenance();
  records = () => this.queue.records();
  children = () => this.queue.children();
}
