// @ts-check
// Ways a host's process could be hurt by the addon, each shown not to (found by a
// fresh pair of eyes): workers terminated inside a call, arrays that claim a huge length,
// objects from another realm, two copies of the addon in one process, a process that may
// not compile code from strings, and calls missing their arguments.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { runInNewContext } from "node:vm";
import * as thm from "thm";

const require = createRequire(import.meta.url);
const roster = { members: [{ id: "ada", name: null }], people: [], retired: [], tombstoned: [] };

/**
 * Runs `source` (CommonJS) in a new node with `flags`, where `require("thm")` is this package;
 * answers its exit status and output.
 * @param {string} source
 * @param {string[]} [flags]
 */
function run(source, flags = []) {
  const folder = mkdtempSync(join(tmpdir(), "thm-misuse-"));
  try {
    const file = join(folder, "script.cjs");
    writeFileSync(file, `const thm = require(${JSON.stringify(require.resolve("thm"))});\n${source}`);
    const done = spawnSync(process.execPath, [...flags, file], { encoding: "utf8", timeout: 60_000 });
    return { status: done.status, output: `${done.stdout}${done.stderr}` };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

test("terminating a worker inside thm ends the worker, not the process", () => {
  const { status, output } = run(`
    const { Worker } = require("node:worker_threads");
    const body = ${JSON.stringify(`
      const thm = require(${JSON.stringify(require.resolve("thm"))});
      const roster = ${JSON.stringify(roster)};
      require("node:worker_threads").parentPort.postMessage("ready");
      for (;;) {
        thm.fromJSON("RosterSnapshot", roster);
        try { thm.fromJSON("Mention", {}); } catch {}
      }`)};
    (async () => {
      for (let i = 0; i < 20; i += 1) {
        const worker = new Worker(body, { eval: true });
        await new Promise((resolve) => worker.once("message", resolve));
        await new Promise((resolve) => setTimeout(resolve, 5));
        await worker.terminate();
      }
      console.log("survived");
    })();`);
  assert.equal(status, 0, output);
  assert.match(output, /survived/);
});

test("an array that claims 2^32 - 1 elements is refused at its first hole, at once", () => {
  const claims = /** @type {any[]} */ ([]);
  claims.length = 2 ** 32 - 1;
  assert.throws(() => thm.directResponder(claims, { roster }), thm.DecodeError);
  assert.throws(() => thm.fromJSON("RosterSnapshot", { ...roster, members: claims }),
    (error) => error instanceof thm.DecodeError && error.path === "/members/0" && /undefined/.test(error.reason));
  assert.deepEqual(thm.fromJSON("RosterMember", { id: "a", name: null, junk: claims }), { id: "a", name: null });
});

test("plain objects from another realm (a vm context, a test runner's) are plain", () => {
  const member = runInNewContext('thm.fromJSON("RosterMember", { id: "a", name: null })', { thm });
  assert.deepEqual(member, { id: "a", name: null });
  assert.throws(() => runInNewContext('thm.fromJSON("RosterMember", new Map())', { thm }), /a Map, not a plain object/);
});

test("a second copy of the addon reads the first's held values as the plain objects they are", () => {
  const folder = mkdtempSync(join(tmpdir(), "thm-copy-"));
  try {
    // The addon lib/addon.cjs loads: the one built here, or the tarball's prebuilt one, with
    // the libraries it carries beside it.
    const lib = join(require.resolve("thm"), "..");
    const built = join(lib, "..", "build", "Release", "thm.node");
    const original = existsSync(built) ? built : join(lib, "..", "prebuilds", `${process.platform}-${process.arch}`, "thm.node");
    for (const file of readdirSync(dirname(original))) {
      if (/\.so(\.|$)/.test(file)) copyFileSync(join(dirname(original), file), join(folder, file));
    }
    const copy = join(folder, "thm.node");
    copyFileSync(original, copy);
    const other = /** @type {any} */ ({ exports: {} });
    process.dlopen(other, copy);
    // The package's own parts, as lib/index.cjs hands them to the addon it loads.
    const errors = require(join(lib, "errors.cjs"));
    const make = require(join(lib, "make.cjs"));
    other.exports.setup(errors.fromCase, errors.QueueError, make.compileObjectMaker, make.freezeArray);
    const held = thm.fromJSON("RosterSnapshot", roster);
    assert.equal(other.exports.stringify("RosterSnapshot", held), thm.stringify("RosterSnapshot", held));
    assert.throws(() => other.exports.stringify("Person", held), (error) => error instanceof thm.DecodeError && error.path === "/id");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("where code cannot be made from strings, answers and errors are made all the same", () => {
  const { status, output } = run(`
    const member = thm.fromJSON("RosterMember", { id: "a", name: null });
    if (!Object.isFrozen(member) || member.id !== "a") throw new Error("wrong answer");
    try { thm.fromJSON("RosterMember", { id: 5 }); } catch (error) {
      if (!(error instanceof thm.DecodeError) || error.path !== "/id") throw error;
      console.log("made");
    }`, ["--disallow-code-generation-from-strings"]);
  assert.equal(status, 0, output);
  assert.match(output, /made/);
});

test("a missing positional argument is a TypeError naming the function and the argument", () => {
  const missing = /** @type {Record<string, () => unknown>} */ ({
    "validateDesks: the argument desks": () => /** @type {any} */ (thm.validateDesks)(),
    "mayDispatch: the argument context": () => /** @type {any} */ (thm.mayDispatch)(),
    "settleSelection: the argument plan": () => /** @type {any} */ (thm.settleSelection)(undefined, { selector: { kind: "absent" } }),
  });
  for (const [message, call] of Object.entries(missing)) {
    assert.throws(call, (error) => error instanceof TypeError && error.message.startsWith(message));
  }
});

test("errors: their names can be set, their stacks start at the caller, their base needs a form", () => {
  /** @type {any} */
  let caught;
  try {
    thm.fromJSON("RosterMember", { id: 5 });
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof thm.DecodeError);
  assert.equal(caught.name, "DecodeError");
  caught.name = "Renamed";
  assert.equal(caught.name, "Renamed");
  assert.doesNotMatch(String(caught.stack).split("\n")[1], /errors\.cjs/);
  assert.match(String(caught.stack).split("\n")[1], /misuse\.test\.mjs/);
  assert.throws(() => new thm.ThmError(/** @type {any} */ ("boom")), TypeError);
});

test("a roster past 1,000 agents, left unprepared, is warned of once per process", () => {
  const calls = `
    const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
    const members = Array.from({ length: 1001 }, (_, i) => ({ id: "a" + i, name: null }));
    const large = { members, people: [], retired: [], tombstoned: [] };
    const author = { kind: "other" };
    thm.resolveMentions("hi", { author, roster: { ...large, members: members.slice(0, 1000) }, desks });
    for (let i = 0; i < 3; i += 1) thm.resolveMentions("hi", { author, roster: large, desks });
    thm.directResponder([], { team: thm.prepareTeam({ roster: large, desks }) });`;
  const shown = run(`process.on("warning", (w) => console.log("seen", w.name, w.code));${calls}`);
  assert.equal(shown.status, 0, shown.output);
  assert.equal(shown.output.match(/LargeRosterWarning: resolveMentions: a roster of 1001 agents/g)?.length, 1, shown.output);
  assert.match(shown.output, /thm\.prepareTeam/);
  assert.equal(shown.output.match(/seen LargeRosterWarning THM_LARGE_ROSTER/g)?.length, 1, shown.output);
  const silenced = run(calls, ["--disable-warning=THM_LARGE_ROSTER"]);
  assert.deepEqual(silenced, { status: 0, output: "" });
  // A test suite that wants it to fail throws from a warning listener.
  const failed = run(`process.on("warning", (w) => { if (w.code === "THM_LARGE_ROSTER") throw w; });${calls}`);
  assert.notEqual(failed.status, 0);
  assert.match(failed.output, /LargeRosterWarning: resolveMentions/);
  // The briefing on snapshots reads them as views too.
  const briefing = run(`
    const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
    const members = Array.from({ length: 1001 }, (_, i) => ({ id: "a" + i, name: null }));
    const conversation = { desk_id: "General", desk_name: "General", thread_root: null };
    thm.teamBriefing({ viewer_id: "a1", conversation, roster: { members, people: [], retired: [], tombstoned: [] }, desks });`);
  assert.equal(briefing.output.match(/LargeRosterWarning: teamBriefing: a roster of 1001 agents/g)?.length, 1, briefing.output);
});

test("named arguments are own properties: a key on Object.prototype is no argument", () => {
  const body = "@alice";
  const roster = { members: [{ id: "alice", name: null }], people: [], retired: [], tombstoned: [] };
  const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
  const clean = thm.resolveMentions(body, { author: { kind: "other" }, roster, desks });
  assert.equal(clean.length, 1);
  const polluted = /** @type {any} */ (Object.prototype);
  for (const [key, value] of /** @type {[string, unknown][]} */ ([
    ["supplied", []],
    ["team", thm.prepareTeam({ roster: { ...roster, members: [{ id: "mallory", name: null }] }, desks })],
    ["trace", []],
  ])) {
    polluted[key] = value;
    try {
      assert.deepEqual(thm.resolveMentions(body, { author: { kind: "other" }, roster, desks }), clean, key);
    } finally {
      delete polluted[key];
    }
  }
  polluted.responder = "alice";
  try {
    assert.deepEqual(thm.mentionedMembers(clean, { roster, desks }), ["alice"]);
  } finally {
    delete polluted.responder;
  }
});

test("a body may be bytes, as every text argument: a Uint8Array or a Buffer is its bytes", () => {
  const roster = { members: [{ id: "alice", name: null }], people: [], retired: [], tombstoned: [] };
  const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
  const named = { author: /** @type {const} */ ({ kind: "other" }), roster, desks };
  const text = thm.resolveMentions("hi @alice", named);
  assert.deepEqual(thm.resolveMentions(Buffer.from("hi @alice"), named), text);
  assert.deepEqual(thm.resolveMentions(new TextEncoder().encode("hi @alice"), named), text);
  // Bytes that are not UTF-8 before the mention: offsets count bytes.
  const found = thm.resolveMentions(Uint8Array.from([0xff, 0x20, ...Buffer.from("@alice")]), named);
  assert.deepEqual(found.map((m) => [m.text, m.offset]), [["@alice", 2]]);
  assert.equal(thm.offersDispatch(Buffer.from("no")), thm.offersDispatch("no"));
});
