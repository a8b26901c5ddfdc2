// A host's turn queue on PostgreSQL, in Node.js with `pg`: the queue a chat host hands to
// thm's dispatchMentionAsync, and the worker's side that claims the turns it enqueued.
//
// It keeps nothing of its own: every step is one call of a function of thm_queue.sql (the
// kit's migration, kit/stores/postgres/), which holds SPEC §4's transaction. So this file is
// what a host writes: the parameters in, the answers out, and what an error means. Text
// fields are bytes in the tables (BYTEA): `Buffer.from(field)` is a field's exact bytes,
// whether it is a string or, from the conformance suite, a Buffer that is not UTF-8.
import thm from "thm";

export const MAX_ATTEMPTS = 3; // claims a child may receive; then it is dead
export const MAX_CONTENT_BYTES = 1 << 20; // a larger request is invalid_request; nothing is written
export const MAX_ID_BYTES = 1024; // source, target and desk id each

/** @param {string | Uint8Array} field */
const raw = (field) => (typeof field === "string" ? Buffer.from(field) : Buffer.from(field));
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes from a BYTEA column: a string when they are UTF-8, else the Buffer. @param {Buffer} data */
export function text(data) {
  try {
    return utf8.decode(data);
  } catch {
    return data;
  }
}

/** The request as thm_enqueue_once's parameters, in their order (u64s as decimal text).
 * @param {import("thm/conformance").SuiteRequest} request */
export const requestParameters = (request) => [
  raw(request.conversation.desk_id), request.conversation.thread_root?.toString() ?? null,
  request.key.trigger_sequence.toString(), raw(request.source_id), raw(request.target_id),
  raw(request.content), request.child_hop];

/** The request a row of thm_child_turn or thm_claim holds. @param {any} row */
export const requestOf = (row) => ({
  key: { trigger_sequence: BigInt(row.trigger_sequence) },
  source_id: text(row.source_id), target_id: text(row.target_id), content: text(row.content),
  conversation: { desk_id: text(row.desk_id),
                  thread_root: row.thread_root === null ? null : BigInt(row.thread_root) },
  child_hop: Number(row.child_hop),
});

const TRANSIENT = new Set(["40001", "40P01", "55P03"]);

/** `unavailable` when nothing was written and a retry may succeed, `indeterminate` when the
 * connection broke and the statement may have committed, `internal` otherwise.
 * @param {any} error @param {boolean} lost */
export function storeError(error, lost) {
  if (lost) return new thm.QueueError("indeterminate", `the connection was lost: ${error?.message}`);
  const code = typeof error?.code === "string" ? error.code : "";
  const transient = !/^[0-9A-Z]{5}$/.test(code) || /^(08|53|57)/.test(code) || TRANSIENT.has(code);
  return new thm.QueueError(transient ? "unavailable" : "internal",
                            `PostgreSQL error while enqueueing (SQLSTATE ${code}): ${error?.message}`);
}

/** thm_enqueue_once's answer as the port's: an outcome, or the QueueError it means.
 * @param {any} row @returns {import("thm").EnqueueOutcome} */
export function answer(row) {
  switch (row.outcome) {
    case "enqueued": return { status: "enqueued" };
    case "already": return { status: "already" };
    case "refused": return { status: "refused", reason: row.reason };
    case "trigger_missing": throw new thm.QueueError("trigger_missing", "no committed reply");
    case "trigger_mismatch":
      throw new thm.QueueError("trigger_mismatch", `the request's ${row.reason} differs from the reply`);
    default: throw new thm.QueueError("internal", `the store answered ${row.outcome} ${row.reason}`);
  }
}

/** thm's AsyncMentionTurnQueue on one pg.Client: `enqueueOnce` is thm_enqueue_once, one
 * statement in autocommit. */
export class PostgresTurnQueue {
  /** @param {import("pg").Client} client */
  constructor(client) {
    this.client = client;
    this.lost = false;
    client.on("error", () => { this.lost = true; });
    client.on("end", () => { this.lost = true; });
  }

  /** @param {import("thm/conformance").SuiteRequest} request @returns {Promise<import("thm").EnqueueOutcome>} */
  async enqueueOnce(request) {
    if (raw(request.content).length > MAX_CONTENT_BYTES) {
      throw new thm.QueueError("invalid_request", `content is longer than ${MAX_CONTENT_BYTES} bytes`);
    }
    const ids = [request.source_id, request.target_id, request.conversation.desk_id];
    if (ids.some((id) => raw(id).length > MAX_ID_BYTES)) {
      throw new thm.QueueError("invalid_request", `an id is longer than ${MAX_ID_BYTES} bytes`);
    }
    let rows;
    try {
      ({ rows } = await this.client.query(
        "SELECT outcome, reason FROM thm_enqueue_once($1, $2, $3, $4, $5, $6, $7)",
        requestParameters(request)));
    } catch (error) {
      throw storeError(error, this.lost);
    }
    return answer(rows[0]);
  }

  // ---- the worker's side: leases on the server's clock ----

  /** The next claimable child, leased for `durationMs`, or undefined. @param {bigint | number} durationMs */
  async claim(durationMs) {
    const { rows } = await this.client.query("SELECT * FROM thm_claim($1, $2)",
                                             [durationMs.toString(), MAX_ATTEMPTS]);
    return rows[0];
  }

  /** The lease's new expiry (decimal text), or null when the token no longer holds it.
   * @param {string} token @param {bigint | number} durationMs */
  async renew(token, durationMs) {
    const { rows } = await this.client.query("SELECT thm_renew($1, $2) AS expiry",
                                             [token, durationMs.toString()]);
    return rows[0].expiry;
  }

  /** The child's state afterwards, or null. @param {string} token */
  async complete(token) {
    return (await this.client.query("SELECT thm_complete($1) AS state", [token])).rows[0].state;
  }

  /** @param {string} token */
  async fail(token) {
    return (await this.client.query("SELECT thm_fail($1, $2) AS state", [token, MAX_ATTEMPTS]))
      .rows[0].state;
  }
}
