"use strict";
// thm/conformance: the host queue conformance suite, run against a queue written in
// JavaScript (adr/0022). The host hands over a harness, an object made by a module's export,
// whose methods may return promises; the package serves it over the adapter protocol
// (kit/protocol/PROTOCOL.md, multiplexed) in a process of its own and runs the thm tool it
// carries against it. `run` resolves to the report; `conformanceTests` makes one test per
// check for node:test (or Vitest's and Jest's `test`).
const { spawn, spawnSync } = require("node:child_process");
const { mkdtempSync, readFileSync, rmSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { isAbsolute, join, resolve } = require("node:path");
const { fileURLToPath, pathToFileURL } = require("node:url");
const { parse, stringify } = require("lossless-json");
const { QueueError } = require("./errors.cjs");
const { toolPath } = require("./tool.cjs");

const PROTOCOL = 1;
const ADAPTER = join(__dirname, "conformance-adapter.cjs");

/** What a lease operation answers when it cannot: stale_token, invalid_duration, unavailable. */
class LeaseError extends Error {
  constructor(kind) {
    if (!["stale_token", "invalid_duration", "unavailable"].includes(kind)) {
      throw new TypeError(`LeaseError(kind): stale_token, invalid_duration or unavailable, not ${String(kind)}`);
    }
    super(kind);
    this.name = "LeaseError";
    this.kind = kind;
  }
}

// ---- wire forms: u64s exact, bytes as strings or {base64} ----

const number = (text) => (Number.isSafeInteger(Number(text)) || /[.eE]/.test(text)
  ? Number(text) : BigInt(text));
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A bytes field: a string, or a Buffer when its bytes are not UTF-8. */
function bytesOf(wire) {
  if (typeof wire === "string") return wire;
  if (wire && typeof wire.base64 === "string") {
    const data = Buffer.from(wire.base64, "base64");
    try {
      return decoder.decode(data);
    } catch {
      return data;
    }
  }
  throw new TypeError(`not a bytes field: ${String(wire).slice(0, 80)}`);
}

/** A string or bytes (Buffer, Uint8Array) on the wire. */
function wireBytes(value) {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) {
    try {
      return decoder.decode(value);
    } catch {
      return { base64: Buffer.from(value).toString("base64") };
    }
  }
  throw new TypeError(`expected a string or bytes, got ${typeof value}`);
}

const bigint = (value) => (value === null || value === undefined ? null : BigInt(value));

function requestOf(wire) {
  return Object.freeze({
    key: Object.freeze({ trigger_sequence: BigInt(wire.key.trigger_sequence) }),
    source_id: bytesOf(wire.source_id), target_id: bytesOf(wire.target_id),
    content: bytesOf(wire.content),
    conversation: Object.freeze({ desk_id: bytesOf(wire.conversation.desk_id),
                                  thread_root: bigint(wire.conversation.thread_root) }),
    child_hop: Number(wire.child_hop),
  });
}

const wireRequest = (request) => ({
  key: { trigger_sequence: request.key.trigger_sequence },
  source_id: wireBytes(request.source_id), target_id: wireBytes(request.target_id),
  content: wireBytes(request.content),
  conversation: { desk_id: wireBytes(request.conversation.desk_id),
                  thread_root: request.conversation.thread_root },
  child_hop: request.child_hop,
});

const replyOf = (wire) => Object.freeze({
  conversation: Object.freeze({ desk_id: bytesOf(wire.conversation.desk_id),
                                thread_root: bigint(wire.conversation.thread_root) }),
  sequence: BigInt(wire.sequence), author_id: bytesOf(wire.author_id),
  content: bytesOf(wire.content), hop: Number(wire.hop),
});

function outcomeOf(answer) {
  const status = answer?.status;
  if (status === "enqueued" || status === "already") return { status };
  if (status === "refused" && typeof answer.reason === "string") return { status, reason: answer.reason };
  throw new TypeError("enqueueOnce must answer {status: 'enqueued' | 'already'} or {status: " +
                      `'refused', reason}, or throw a QueueError; it answered ${stringify(answer)}`);
}

const leaseOf = (lease) => (lease === null || lease === undefined ? null : {
  child_id: lease.child_id, token: String(lease.token), expires_at: lease.expires_at,
  attempt: lease.attempt, request: wireRequest(lease.request),
});

// ---- the server ----

/** `value`, which `method` must answer as an array. */
function list(method, value) {
  if (!Array.isArray(value)) {
    throw new TypeError(`${method}() must answer an array, not ${value === null ? "null" : typeof value}`);
  }
  return value;
}

// Operations that exist only with a capability; undeclared, they answer `unsupported`.
const NEEDS = {
  claim: "leases", renew: "leases", complete: "leases", fail: "leases", store_now: "leases",
  unique_key_index: "sql_schema", reopen: "persistent", restart_store: "persistent",
  advance_store_clock: "injected_store_clock", node_count: "nodes", leader: "nodes",
  kill_node: "nodes", restart_node: "nodes", pause_node: "nodes", resume_node: "nodes",
  recover: "nodes",
};

class Unsupported extends Error {}

class Server {
  constructor(harness, write) {
    this.harness = harness;
    this.write = write;
    this.capabilities = harness.capabilities ?? {};
    this.sessions = new Map();
    this.opened = 0;
    this.hooked = false;
    this.hooks = 0;
    this.waiting = new Map();
  }

  method(name, owner = this.harness) {
    if (typeof owner?.[name] !== "function") throw new Unsupported(`the harness has no ${name}()`);
    return (...args) => owner[name](...args);
  }

  session({ session }) {
    const found = this.sessions.get(Number(session));
    if (!found) throw new Error(`no open session ${session}`);
    return found;
  }

  send(message) {
    this.write(`${stringify(message)}\n`);
  }

  hookFor(session) {
    if (!this.hooked) return null;
    return (point) => new Promise((resolveReply) => {
      const number = ++this.hooks;
      this.waiting.set(number, resolveReply);
      this.send({ hook: number, session, point });
    });
  }

  async operation(message) {
    const op = message.op;
    switch (op) {
      case "hello":
        if (Number(message.protocol) !== PROTOCOL) throw new Error(`this adapter speaks protocol ${PROTOCOL} only`);
        return { protocol: PROTOCOL, name: String(this.harness.name ?? "node"),
                 sessions: "multiplexed", capabilities: this.capabilities };
      case "open_session": {
        const session = await this.method("openSession")();
        this.sessions.set(++this.opened, session);
        return { session: this.opened };
      }
      case "close_session": {
        const session = this.session(message);
        this.sessions.delete(Number(message.session));
        if (typeof session.close === "function") await session.close();
        return {};
      }
      case "enqueue_once": {
        const session = this.session(message);
        const enqueue = this.method("enqueueOnce", session);
        try {
          return { outcome: outcomeOf(await enqueue(requestOf(message.request),
                                                   this.hookFor(Number(message.session)))) };
        } catch (error) {
          if (error instanceof QueueError) return { queue_error: error.toJSON() };
          throw error;
        }
      }
      case "claim": return { lease: leaseOf(await this.method("claim", this.session(message))(message.duration)) };
      case "renew": return { expires_at: await this.method("renew", this.session(message))(message.token, message.duration) };
      case "complete": return { state: await this.method("complete", this.session(message))(message.token) };
      case "fail": return { state: await this.method("fail", this.session(message))(message.token) };
      case "reset": this.hooked = false; await this.method("reset")(); return {};
      case "commit_reply": await this.method("commitReply")(replyOf(message.reply)); return {};
      case "set_policy":
        await this.method("setPolicy")(Object.freeze({ enabled: message.policy.enabled === true,
                                                       max_hops: Number(message.policy.max_hops) }));
        return {};
      case "set_authorized":
        await this.method("setAuthorized")(bytesOf(message.source_id), bytesOf(message.target_id),
                                           message.authorized === true);
        return {};
      case "set_available":
        await this.method("setAvailable")(bytesOf(message.agent_id), message.available === true);
        return {};
      case "set_hook": this.hooked = message.installed === true; return {};
      case "settle": await this.method("settle")(message.child_id, message.how); return {};
      case "run_maintenance": await this.method("runMaintenance")(); return {};
      case "records":
        return { records: list("records", await this.method("records")()).map((record) => ({
          key: wireBytes(record.key), child_id: record.child_id })) };
      case "children":
        return { children: list("children", await this.method("children")()).map((child) => ({
          id: child.id, key: wireBytes(child.key), request: wireRequest(child.request),
          state: child.state, attempts: child.attempts, lease_expires_at: child.lease_expires_at ?? null })) };
      case "unique_key_index": return { index: (await this.method("uniqueKeyIndex")()) ?? null };
      case "store_now": return { now: await this.method("storeNow")() };
      case "advance_store_clock": await this.method("advanceStoreClock")(message.by); return {};
      case "reopen": await this.method("reopen")(); return {};
      case "restart_store": await this.method("restartStore")(); return {};
      default: throw new Unsupported(`unknown operation ${JSON.stringify(op)}`);
    }
  }

  async answer(message) {
    const op = message.op;
    try {
      const needed = NEEDS[op];
      if (needed && !this.capabilities[needed]) {
        throw new Unsupported(`${op} needs ${needed}, which the harness does not declare`);
      }
      if (op === "set_hook" && message.installed === true && !this.capabilities.hooks) {
        throw new Unsupported("set_hook needs hooks, which the harness does not declare");
      }
      return { result: await this.operation(message) };
    } catch (error) {
      if (error instanceof LeaseError) return { result: { lease_error: error.kind } };
      if (error instanceof QueueError) return { result: { queue_error: error.toJSON() } };
      if (error instanceof Unsupported) return { unsupported: error.message };
      console.error(error);
      return { failure: `${op}: ${error?.name ?? "Error"}: ${error?.message ?? String(error)}` };
    }
  }

  receive(line) {
    let message;
    try {
      message = parse(line, null, number);
    } catch (error) {
      console.error(`ignoring a line that is not JSON (${error.message}): ${line.slice(0, 200)}`);
      return;
    }
    if (message && typeof message === "object" && "hook_reply" in message) {
      const resolveReply = this.waiting.get(Number(message.hook_reply));
      this.waiting.delete(Number(message.hook_reply));
      resolveReply?.(message.proceed === true);
      return;
    }
    if (!message || typeof message !== "object" || !("id" in message)) {
      console.error(`ignoring a message without an id: ${line.slice(0, 200)}`);
      return;
    }
    this.answer(message).then((answer) => this.send({ id: message.id, ...answer }));
  }
}

/** Serves the harness `factory()` makes (it may be async) on stdin and stdout until stdin
 * ends. console.log goes to stderr while serving: stdout carries protocol lines only. */
async function serve(factory) {
  const out = process.stdout;
  console.log = console.error;
  const harness = await factory();
  const server = new Server(harness, (text) => out.write(text));
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    pending += chunk;
    let end;
    while ((end = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line.trim()) server.receive(line);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

// ---- running the suite ----

/** `module#export` for a harness, with an absolute path (so that the replay command works
 * from anywhere): a `file:` URL (`new URL("./harness.mjs#Harness", import.meta.url)`), a
 * path (absolute, or relative to the working directory) or a package name, and the export
 * that is the harness or makes it (default: `default`). */
function targetName(target) {
  let text = target instanceof URL ? target.href : target;
  if (text && typeof text === "object" && typeof text.module === "string") {
    text = `${text.module}#${text.export ?? "default"}`;
  }
  if (typeof text !== "string" || text === "") {
    throw new TypeError("a harness is named as 'path/to/module.mjs#exportName', a file: URL, or " +
                        "{module, export}");
  }
  const at = text.lastIndexOf("#");
  const [specifier, name] = at < 0 ? [text, "default"] : [text.slice(0, at), text.slice(at + 1)];
  if (specifier.startsWith("file:")) return `${fileURLToPath(specifier)}#${name}`;
  const local = specifier.startsWith(".") || isAbsolute(specifier);
  return `${local ? resolve(specifier) : specifier}#${name}`;
}

/** Whether `value` is a class (made with `new`), not a function that makes a harness. */
const isClass = (value) => typeof value === "function" &&
  /^class[\s{]/.test(Function.prototype.toString.call(value));

/** The `exec:` command that serves `target` with this Node.js. */
function adapterCommand(target) {
  const quote = (text) => `'${String(text).replaceAll("'", "'\\''")}'`;
  return `${quote(process.execPath)} ${quote(ADAPTER)} ${quote(targetName(target))}`;
}

/** Every check of the suite, in order: [id, title]. */
function checkIds() {
  const listing = spawnSync(tool(), ["conformance", "--list-checks"], { encoding: "utf8" });
  if (listing.status !== 0) throw new Error(`thm conformance --list-checks: ${listing.stderr}`);
  return listing.stdout.trim().split("\n").map((line) => line.split("\t"));
}

function tool() {
  const path = toolPath();
  if (path === null) {
    throw new Error("this install of thm has no thm tool (prebuilds/ carries one for linux-x64): " +
                    "build it from the repository (cmake -S kit) and name it in THM_TOOL");
  }
  return path;
}

function options(settings) {
  const out = ["--seed", String(settings.seed ?? 1), "--runs", String(settings.runs ?? 1)];
  for (const check of settings.checks ?? []) out.push("--check", check);
  if (settings.short) out.push("--short");
  if (settings.repeat !== undefined) out.push("--repeat", String(settings.repeat));
  if (settings.require?.length) out.push("--require", settings.require.join(","));
  if (settings.execTimeout !== undefined) out.push("--exec-timeout", String(settings.execTimeout));
  if (settings.junit) out.push("--junit", settings.junit);
  if (settings.html) out.push("--html", settings.html);
  if (settings.history) out.push("--history", settings.history);
  return out;
}

/** Runs the suite against `harness` with `thm conformance`'s options; resolves to the report:
 * {passed, exitCode, checks: [{id, title, result, reason, left_unproven, seed, replay}],
 * table, stderr, json}. Rejects when the suite could not run (exit code 2). */
function run(harness, settings = {}) {
  const scratch = mkdtempSync(join(tmpdir(), "thm-conformance-"));
  const report = join(scratch, "report.json");
  const args = ["conformance", "--queue", `exec:${adapterCommand(harness)}`, ...options(settings),
                "--report", report];
  return new Promise((resolveRun, reject) => {
    // The adapter process is no test: node --test's marker would make a module it imports
    // register tests there.
    // The tool stops by itself, and ends its adapter, if this process dies.
    const env = { ...process.env, ...settings.env, THM_STOP_WITH_PARENT: "1" };
    delete env.NODE_TEST_CONTEXT;
    const child = spawn(tool(), args, { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => { stdout += chunk; });
    child.stderr.on("data", (chunk) => { stderr = (stderr + chunk).slice(-20000); });
    child.on("error", reject);
    child.on("close", (code) => {
      let json = null;
      try {
        json = JSON.parse(readFileSync(report, "utf8"));
      } catch {
        json = null;
      }
      rmSync(scratch, { recursive: true, force: true });
      if (code === 2 || (json === null && code !== 0)) {
        // The adapter's own account first: a harness that cannot be loaded says why.
        const loading = /thm conformance adapter: cannot load[^\n]*/.exec(stderr);
        reject(new Error(`thm conformance could not run (exit ${code}): ` +
                         `${loading ? `${loading[0]}\n` : ""}${stderr.trim().slice(-4000)}`));
        return;
      }
      // A failure's replay as a host runs it in its project: `npx thm conformance ...`.
      const checks = (json?.checks ?? []).map((check) => ({
        ...check, replay: check.replay?.replace(/^thm conformance /, "npx thm conformance ") ?? null }));
      resolveRun({ passed: code === 0, exitCode: code, checks, table: stdout, stderr, json });
    });
  });
}

/** One test per check (EQ-01 … EQ-30), registered with `test` (node:test's by default; pass
 * Vitest's or Jest's). A failed check fails its test with the reason, seed and replay
 * command; a skipped one is skipped with the capability it needs (with node:test). */
function conformanceTests(harness, settings = {}, { test = require("node:test").test } = {}) {
  const target = targetName(harness);
  for (const [id, title] of checkIds()) {
    test(`${id} ${title}`, async (context) => {
      const report = await run(target, { ...settings, checks: [id] });
      const check = report.checks.find((found) => found.id === id);
      if (!check) throw new Error(`${id} did not run: ${report.stderr.slice(-2000)}`);
      if (check.result === "skip") {
        context?.skip?.(check.reason);
        return;
      }
      if (check.result !== "pass") {
        throw new Error(`${id} ${title} failed: ${check.reason}\nseed: ${check.seed}\n` +
                        `replay: ${check.replay}\nthe end of the suite's stderr:\n${report.stderr.slice(-3000)}`);
      }
      if (check.left_unproven) context?.diagnostic?.(`left unproven: ${check.reason}`);
    });
  }
}

/** The export `target` names, as the adapter process loads it. */
async function load(target) {
  const at = target.lastIndexOf("#");
  const specifier = at < 0 ? target : target.slice(0, at);
  const name = at < 0 ? "default" : target.slice(at + 1);
  const local = specifier.startsWith(".") || isAbsolute(specifier);
  const module = await import(local ? pathToFileURL(resolve(specifier)).href : specifier);
  const found = module[name];
  if (found === undefined) throw new Error(`${specifier} has no export ${name}`);
  if (isClass(found)) return () => new found();
  if (typeof found === "function") return found;
  if (found && typeof found === "object") return () => found;
  throw new TypeError(`${specifier}#${name} is neither a harness nor a class or function that ` +
                      `makes one: ${typeof found}`);
}

module.exports = { LeaseError, run, checkIds, conformanceTests, serve, load, adapterCommand };
