// The conformance harness of turn_queue.mjs: what the suite needs beside the queue to drive
// it (the host's writes, a look at the tables, a restart), for thm/conformance.
//
// The database is the one the PG* environment variables name (pg reads them); the suite
// empties the thm tables, so name a scratch database. THM_POSTGRES_RESTART is a shell
// command that restarts the server, for EQ-23.
import { exec } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import thm from "thm";
import { LeaseError } from "thm/conformance";
import {
  MAX_ATTEMPTS, MAX_CONTENT_BYTES, MAX_ID_BYTES, PostgresTurnQueue, requestOf, text,
} from "./turn_queue.mjs";

const MIGRATION = process.env.THM_QUEUE_SQL ||
  fileURLToPath(new URL("../../stores/postgres/thm_queue.sql", import.meta.url));
const SCHEMA_VERSION = 5;
const LOCK_TIMEOUT = "20s"; // below the suite's --exec-timeout: a lock wait ends with an answer
const HOOK_LOCKS = 7411270; // thm_hook_point's first lock: (backend pid, 7411270 + ordinal)
/** @type {Record<string, number>} */
const INNER_POINTS = {
  after_begin: 0, after_validate_reads: 1, after_idempotency_statement: 2, after_child_insert: 3,
  before_commit: 4,
};
const MAX_LEASE_MS = 2n ** 62n;
/** @param {bigint | number} ms */
const validDuration = (ms) => BigInt(ms) > 0n && BigInt(ms) < MAX_LEASE_MS;
/** @param {string | Uint8Array} field */
const raw = (field) => (typeof field === "string" ? Buffer.from(field) : Buffer.from(field));

/** A connected client, for a session or the harness's own statements. */
async function connect() {
  const client = new pg.Client();
  client.on("error", (error) => console.error("connection error:", error.message));
  await client.connect();
  return client;
}

/** Applies thm_queue.sql once, under the advisory lock every opener takes. @param {pg.Client} client */
async function migrate(client) {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(7411262)");
    const { rows: [{ present }] } = await client.query(
      "SELECT to_regclass('thm_schema') IS NOT NULL AS present");
    const version = present
      ? Number((await client.query("SELECT coalesce(max(version), 0) AS v FROM thm_schema")).rows[0].v) : 0;
    if (version < SCHEMA_VERSION) await client.query(readFileSync(MIGRATION, "utf8"));
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** One session of the suite: the host's queue on a connection of its own, and the hook seam
 * of thm_queue.sql around its step (kit/stores/postgres/README.md): with a hook, the
 * connection has thm.hooks = 'on' and a second connection holds the advisory locks the step
 * waits on at each point; each `thm hook <point>` notice is answered by taking the point's
 * go-ahead lock and releasing its lock, or by cancelling the step. */
class Session {
  /** @param {pg.Client} client */
  constructor(client) {
    this.client = client;
    this.queue = new PostgresTurnQueue(client);
    /** @type {pg.Client | null} */
    this.seam = null;
    this.seamOn = false;
  }

  async close() {
    await Promise.allSettled([this.client.end(), this.seam?.end()]);
  }

  /** @param {import("thm/conformance").SuiteRequest} request @param {import("thm/conformance").Hook} hook */
  async enqueueOnce(request, hook) {
    await this.arm(hook !== null);
    if (hook === null) return this.queue.enqueueOnce(request);
    const outcome = await this.hooked(request, hook);
    if (outcome.status === "enqueued" && !(await hook("after_commit_before_return"))) {
      throw new thm.QueueError("indeterminate", "the answer was lost after commit");
    }
    return outcome;
  }

  /** @param {boolean} on */
  async arm(on) {
    if (on && this.seam === null) this.seam = await connect();
    if (on !== this.seamOn) {
      await this.client.query(`SET thm.hooks = '${on ? "on" : "off"}'`);
      this.seamOn = on;
    }
  }

  /** @param {import("thm/conformance").SuiteRequest} request @param {(point: string) => Promise<boolean>} hook */
  async hooked(request, hook) {
    const seam = /** @type {pg.Client} */ (this.seam);
    const backend = /** @type {any} */ (this.client).processID;
    await seam.query("SELECT pg_advisory_lock($1, $2 + point) FROM generate_series(0, 4) point",
                     [backend, HOOK_LOCKS]);
    /** @type {string | null} */
    let refusedAt = null;
    let answered = Promise.resolve();
    /** @param {any} notice */
    const onNotice = (notice) => {
      const found = /^thm hook (\w+)$/.exec(notice.message ?? "");
      if (!found) return;
      const point = found[1];
      answered = answered.then(async () => {
        if ((await hook(point)) && point in INNER_POINTS) {
          await seam.query("SELECT pg_advisory_unlock($1, $2) FROM " +
                           "(SELECT pg_advisory_lock($1, $2 + 10)) go_ahead",
                           [backend, HOOK_LOCKS + INNER_POINTS[point]]);
          return;
        }
        refusedAt ??= point;
        await seam.query("SELECT pg_cancel_backend($1)", [backend]);
      }).catch((error) => console.error("answering a hook point:", error.message));
    };
    this.client.on("notice", onNotice);
    try {
      return await this.queue.enqueueOnce(request);
    } catch (error) {
      if (refusedAt !== null) throw new thm.QueueError("unavailable", `the step was rolled back at ${refusedAt}`);
      throw error;
    } finally {
      this.client.off("notice", onNotice);
      await answered;
      await seam.query("SELECT pg_advisory_unlock_all()");
    }
  }

  /** @param {() => Promise<any>} call */
  async lease(call) {
    try {
      return await call();
    } catch (error) {
      console.error("lease:", /** @type {any} */ (error).message);
      throw new LeaseError("unavailable");
    }
  }

  /** @param {bigint | number} durationMs */
  async claim(durationMs) {
    if (!validDuration(durationMs)) throw new LeaseError("invalid_duration");
    const row = await this.lease(() => this.queue.claim(durationMs));
    if (!row) return null;
    return { child_id: BigInt(row.child_id), token: row.lease_token,
             expires_at: BigInt(row.lease_expires_at), attempt: Number(row.attempt),
             request: requestOf(row) };
  }

  /** @param {string} token @param {bigint | number} durationMs */
  async renew(token, durationMs) {
    if (!validDuration(durationMs)) throw new LeaseError("invalid_duration");
    const expiry = await this.lease(() => this.queue.renew(token, durationMs));
    if (expiry === null) throw new LeaseError("stale_token");
    return BigInt(expiry);
  }

  /** @param {string} token */
  async complete(token) {
    return settled(await this.lease(() => this.queue.complete(token)));
  }

  /** @param {string} token */
  async fail(token) {
    return settled(await this.lease(() => this.queue.fail(token)));
  }
}

/** @param {string | null} state */
function settled(state) {
  if (state === null) throw new LeaseError("stale_token");
  return state;
}

/** The suite's harness over turn_queue.mjs: one connection for the host's writes (one
 * statement at a time), and one per session. */
export class Harness {
  name = "node-pg";
  capabilities = {
    // `persistent` (EQ-23, crash and restart) only with a way to restart the server: without
    // THM_POSTGRES_RESTART the check is skipped and named in "left unproven", never passed by
    // a restart that did nothing.
    hooks: true, leases: true, persistent: Boolean(process.env.THM_POSTGRES_RESTART),
    sql_schema: true, row_locking: true,
    skewable_client_clock: true, max_content_bytes: MAX_CONTENT_BYTES, max_id_bytes: MAX_ID_BYTES,
    max_attempts: MAX_ATTEMPTS, max_sessions: 48,
  };
  /** @type {Promise<pg.Client> | null} */
  store = null;
  /** @type {Promise<unknown>} */
  last = Promise.resolve();

  /** One statement's rows, after the one before it. @param {string} sql @param {unknown[]} parameters */
  query(sql, parameters = []) {
    const run = this.last.then(async () => {
      this.store ??= connect().then(async (client) => { await migrate(client); return client; });
      return (await (await this.store).query(sql, parameters)).rows;
    });
    this.last = run.catch(() => { this.store = null; });
    return run;
  }

  async openSession() {
    await this.query("SELECT 1"); // migrated before any session's step
    const client = await connect();
    await client.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
    return new Session(client);
  }

  async reset() {
    await this.query("TRUNCATE thm_reply, thm_policy, thm_forbidden_pair, thm_available_agent, " +
                     "thm_idempotency, thm_child_turn");
  }

  /** @param {import("thm/conformance").Reply} reply */
  async commitReply(reply) {
    await this.query("SELECT thm_commit_reply($1, $2, $3, $4, $5, $6)", [
      raw(reply.conversation.desk_id), reply.conversation.thread_root?.toString() ?? null,
      reply.sequence.toString(), raw(reply.author_id), raw(reply.content), reply.hop]);
  }

  /** @param {{ enabled: boolean, max_hops: number }} policy */
  async setPolicy(policy) {
    await this.query("INSERT INTO thm_policy (id, enabled, max_hops) VALUES (1, $1, $2) ON CONFLICT " +
                     "(id) DO UPDATE SET enabled = excluded.enabled, max_hops = excluded.max_hops",
                     [policy.enabled, policy.max_hops]);
  }

  /** @param {string | Uint8Array} sourceId @param {string | Uint8Array} targetId @param {boolean} authorized */
  async setAuthorized(sourceId, targetId, authorized) {
    await this.query(authorized
      ? "DELETE FROM thm_forbidden_pair WHERE source_id = $1 AND target_id = $2"
      : "INSERT INTO thm_forbidden_pair VALUES ($1, $2) ON CONFLICT DO NOTHING",
    [raw(sourceId), raw(targetId)]);
  }

  /** @param {string | Uint8Array} agentId @param {boolean} available */
  async setAvailable(agentId, available) {
    await this.query(available
      ? "INSERT INTO thm_available_agent VALUES ($1) ON CONFLICT DO NOTHING"
      : "DELETE FROM thm_available_agent WHERE agent_id = $1", [raw(agentId)]);
  }

  /** @param {bigint | number} childId @param {string} how */
  async settle(childId, how) {
    /** @type {Record<string, string>} */
    const states = { complete: "completed", fail: "failed", dead_letter: "dead" };
    const rows = how === "delete"
      ? await this.query("DELETE FROM thm_child_turn WHERE id = $1 RETURNING id", [childId.toString()])
      : await this.query("UPDATE thm_child_turn SET state = $2, lease_token = NULL WHERE id = $1 " +
                         "RETURNING id", [childId.toString(), states[how]]);
    if (rows.length === 0) throw new Error(`no child turn with id ${childId}`);
  }

  async runMaintenance() {
    await this.query("DELETE FROM thm_child_turn WHERE state <> 'pending'");
  }

  async records() {
    const rows = await this.query("SELECT turn_key, id FROM thm_idempotency ORDER BY id");
    return rows.map((row) => ({ key: text(row.turn_key), child_id: BigInt(row.id) }));
  }

  async children() {
    const rows = await this.query(
      "SELECT id, turn_key, state, attempts, lease_expires_at, desk_id, " +
      "thm_column_to_u64(thread_root) AS thread_root, " +
      "thm_column_to_u64(trigger_sequence) AS trigger_sequence, source_id, target_id, content, " +
      "child_hop FROM thm_child_turn ORDER BY id");
    return rows.map((row) => ({
      id: BigInt(row.id), key: text(row.turn_key), request: requestOf(row), state: row.state,
      attempts: Number(row.attempts),
      lease_expires_at: row.lease_expires_at === null ? null : BigInt(row.lease_expires_at),
    }));
  }

  async uniqueKeyIndex() {
    const rows = await this.query(
      "SELECT i.indpred IS NOT NULL AS partial, array(SELECT a.attname::text " +
      "FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord) " +
      "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.ord) " +
      "AS columns FROM pg_index i WHERE i.indrelid = 'thm_idempotency'::regclass " +
      "AND i.indisunique AND NOT i.indisprimary ORDER BY i.indexrelid LIMIT 1");
    return rows.length ? { columns: rows[0].columns, partial: rows[0].partial } : null;
  }

  async storeNow() {
    return BigInt((await this.query("SELECT thm_now() AS now"))[0].now);
  }

  async reopen() {
    const store = this.store;
    this.store = null;
    await store?.then((client) => client.end()).catch(() => {});
  }

  /** Runs THM_POSTGRES_RESTART without libfaketime, which the suite puts on this process. */
  async restartStore() {
    const command = /** @type {string} */ (process.env.THM_POSTGRES_RESTART); // persistent only with it
    const env = Object.fromEntries(Object.entries(process.env)
      .filter(([name]) => name !== "LD_PRELOAD" && !name.startsWith("FAKETIME")));
    await new Promise((resolve, reject) => {
      exec(command, { env, timeout: 25000 }, (error) => (error ? reject(error) : resolve(undefined)));
    });
  }
}
