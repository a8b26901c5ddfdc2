// @ts-check
// Values as a JavaScript host holds them: what converts, exactly, and what is refused, with
// which error and where (adr/0014, SPEC §0.5, §6).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { createContext, runInContext, runInNewContext } from "node:vm";
import * as thm from "thm";

const require = createRequire(import.meta.url);
const roster = { members: [{ id: "ada", name: "Ada" }], people: [], retired: [], tombstoned: [] };

/**
 * Asserts that `run` throws a thm.DecodeError at `path` whose reason matches `reason`.
 * @param {() => unknown} run
 * @param {string} path
 * @param {RegExp} reason
 */
function refusedAt(run, path, reason) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof thm.DecodeError, String(error));
    assert.equal(error.path, path);
    assert.match(error.reason, reason);
    return true;
  });
}

test("fromJSON answers the wire form, frozen all the way down", () => {
  const value = thm.fromJSON("RosterSnapshot", roster);
  assert.deepEqual(value, roster);
  assert.ok(Object.isFrozen(value) && Object.isFrozen(value.members) && Object.isFrozen(value.members[0]));
  assert.notEqual(value, roster);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
});

test("the encoder's form: a false quiet is dropped, brevity is filled in", () => {
  const mention = { target: { kind: "agent", id: "ada" }, text: "@ada", offset: 2, quiet: false };
  assert.deepEqual(thm.fromJSON("Mention", mention), { target: mention.target, text: "@ada", offset: 2 });
  const briefing = thm.fromJSON("TeamBriefing", { viewer_id: "v", desk_id: "d", desk_name: "D", teammates: [] });
  assert.deepEqual(briefing.brevity, { message_chars: 600, window: 30 });
});

test("u64: a bigint, a decimal string or a safe integer in; always a bigint out", () => {
  const max = 18446744073709551615n;
  for (const given of [max, "18446744073709551615"]) {
    assert.equal(thm.fromJSON("DispatchKey", { trigger_sequence: given }).trigger_sequence, max);
  }
  assert.equal(thm.fromJSON("DispatchKey", { trigger_sequence: 7 }).trigger_sequence, 7n);
  assert.equal(thm.fromJSON("Conversation", { desk_id: "d", desk_name: "D", thread_root: "9" }).thread_root, 9n);
  assert.equal(thm.stringify("DispatchKey", { trigger_sequence: max }), '{"trigger_sequence":18446744073709551615}');
  assert.equal(thm.parse("DispatchKey", '{"trigger_sequence":18446744073709551615}').trigger_sequence, max);
});

test("an unsafe number is refused, saying what to pass instead", () => {
  refusedAt(
    () => thm.fromJSON("DispatchKey", { trigger_sequence: 2 ** 60 }),
    "/trigger_sequence",
    /1152921504606846976 is not a safe integer.*pass a BigInt or a decimal string/,
  );
  // Where no BigInt or string is taken, neither is advised.
  refusedAt(() => thm.fromJSON("Mention", { target: { kind: "everyone" }, text: "@everyone", offset: 2 ** 60 }),
            "/offset", /1152921504606846976 is not a safe integer.*pass a BigInt$/);
  refusedAt(() => thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 2 ** 53 }), "/max_hops",
            /9007199254740992 is not a safe integer.*only a Sequence \(trigger_sequence, thread_root\) or a byte offset/);
  refusedAt(() => thm.fromJSON("DispatchKey", { trigger_sequence: -(2 ** 60) }), "/trigger_sequence",
            /-1152921504606846976 is not a safe integer \(it may have lost digits\)$/);
});

test("integers out of range, and strings that are not decimal u64s, are refused", () => {
  refusedAt(() => thm.fromJSON("DispatchKey", { trigger_sequence: 2n ** 64n }), "/trigger_sequence", /BigInt outside/);
  refusedAt(() => thm.fromJSON("DispatchKey", { trigger_sequence: -1n }), "/trigger_sequence", /minus sign/);
  for (const text of ["18446744073709551616", "-1", "+1", "01", "1e3", " 1", ""]) {
    refusedAt(() => thm.fromJSON("DispatchKey", { trigger_sequence: text }), "/trigger_sequence", /decimal string/);
  }
  refusedAt(() => thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 2 ** 32 }), "/max_hops", /out of range/);
  refusedAt(() => thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 2.5 }), "/max_hops", /fraction/);
  refusedAt(() => thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: NaN }), "/max_hops", /not finite/);
});

test("text is bytes: a Uint8Array is its bytes, and bytes that are not UTF-8 come back as a Buffer", () => {
  const member = (/** @type {unknown} */ id) => ({ members: [{ id, name: null }], people: [], retired: [], tombstoned: [] });
  assert.equal(thm.fromJSON("RosterSnapshot", member(Buffer.from("ada"))).members[0]?.id, "ada");
  assert.equal(thm.fromJSON("RosterSnapshot", member(new TextEncoder().encode("bé"))).members[0]?.id, "bé");
  const raw = Buffer.from([0x61, 0xff, 0x00, 0x62]);
  assert.deepEqual(thm.fromJSON("RosterSnapshot", member(raw)).members[0]?.id, raw);
  // The suite's requests: one queue keys both them and dispatchMention's.
  const request = {
    key: { trigger_sequence: 7n }, source_id: "ann", target_id: "bob", content: Buffer.from([0xc3]),
    conversation: { desk_id: Buffer.from([0x80]), thread_root: null }, child_hop: 1,
  };
  assert.deepEqual(thm.turnKey(request), Buffer.concat([Buffer.from("v1/1:"), Buffer.from([0x80]), Buffer.from("/c/7")]));
  assert.equal(thm.turnKey({ ...request, conversation: { desk_id: Buffer.from("MAIN"), thread_root: 3n } }),
               "v1/7:General/t3/7");
});

test("what JSON cannot say is refused where it is", () => {
  const member = (/** @type {unknown} */ id) => ({ members: [{ id, name: null }], people: [], retired: [], tombstoned: [] });
  refusedAt(() => thm.fromJSON("RosterSnapshot", member(new Map())), "/members/0/id", /a Map, not a plain object/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", member(new Date(0))), "/members/0/id", /a Date/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", member(new Float32Array(2))), "/members/0/id", /not a plain object/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", member(Symbol("ada"))), "/members/0/id", /a symbol/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", member(() => "ada")), "/members/0/id", /a function/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", member("ad\ud800a")), "/members/0/id", /lone surrogate at index 2/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", { ...roster, retired: [undefined] }), "/retired/0", /undefined/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", { ...roster, people: new Set() }), "/people", /a Set, not a plain object/);
});

test("a property that is undefined is absent, as JSON.stringify has it", () => {
  refusedAt(() => thm.fromJSON("RosterMember", { id: "ada", name: undefined }), "/name", /required key "name" is missing/);
  assert.deepEqual(thm.fromJSON("Mention", { target: { kind: "everyone" }, text: "@everyone", offset: 0, quiet: undefined }),
    { target: { kind: "everyone" }, text: "@everyone", offset: 0 });
});

test("a valid pair of surrogates is text, and so is U+FFFD itself", () => {
  const id = "\ud83d\ude00\ufffd";
  assert.equal(thm.fromJSON("RosterMember", { id, name: null }).id, id);
});

test("a cycle, or nesting past 256 levels, is refused instead of exhausting the stack", () => {
  /** @type {any[]} */
  const cyclic = [];
  cyclic.push(cyclic);
  assert.throws(() => thm.fromJSON("RosterSnapshot", { ...roster, members: cyclic }), (error) => {
    assert.ok(error instanceof thm.DecodeError);
    assert.equal(error.path, `/members${"/0".repeat(255)}`);
    assert.match(error.reason, /nested deeper than 256/);
    return true;
  });
  // The same limit as the text parser's: 256 levels of arrays and objects, the root's included.
  const nested = (/** @type {number} */ n) => "[".repeat(n) + "]".repeat(n);
  for (const levels of [255, 256]) {
    const extra = JSON.parse(nested(levels));
    const text = `{"id":"ada","name":null,"extra":${nested(levels)}}`;
    const fromText = () => thm.parse("RosterMember", text);
    const fromObject = () => thm.fromJSON("RosterMember", { id: "ada", name: null, extra });
    if (levels === 255) {
      assert.deepEqual(fromObject(), fromText());
    } else {
      // Text too deep is refused as text; an object reads it as a placeholder, which an
      // unknown key may hold.
      assert.throws(fromText, thm.DecodeError);
      assert.deepEqual(fromObject(), { id: "ada", name: null });
    }
  }
  let deep = /** @type {unknown} */ ([]);
  for (let i = 0; i < 10000; i += 1) deep = [deep];
  assert.throws(() => thm.fromJSON("RosterSnapshot", { ...roster, people: deep }), thm.DecodeError);
});

test("what a getter or a proxy throws comes through as it was", () => {
  const boom = new Error("boom");
  const getter = { get id() { throw boom; }, name: null };
  assert.throws(() => thm.fromJSON("RosterMember", getter), (error) => error === boom);
  const proxy = new Proxy({}, { get() { throw boom; } });
  assert.throws(() => thm.fromJSON("RosterMember", proxy), (error) => error === boom);
  // Only the keys the decoder knows are looked up: an object's keys are never listed, so a
  // getter or a trap behind any other key is never run.
  const listed = new Proxy({ id: "a", name: null }, { ownKeys() { throw boom; } });
  assert.deepEqual(thm.fromJSON("RosterMember", listed), { id: "a", name: null });
  const guarded = { id: "a", name: null, get extra() { throw boom; } };
  assert.deepEqual(thm.fromJSON("RosterMember", guarded), { id: "a", name: null });
});

test("a Proxy around an array, as reactive state libraries hand out, reads as the array", () => {
  /** @type {<T extends object>(value: T) => T} */
  const reactive = (value) => new Proxy(value, {});
  const members = [{ id: "ada", name: "Ada" }, { id: "bob", name: null }];
  const plain = { ...roster, members };
  const proxied = { ...roster, members: reactive(members.map(reactive)) };
  assert.deepEqual(thm.fromJSON("RosterSnapshot", proxied), thm.fromJSON("RosterSnapshot", plain));
  // An array argument, and the trace steps are pushed onto.
  const mentions = [{ target: { kind: /** @type {const} */ ("agent"), id: "bob" }, text: "@bob", offset: 0 }];
  assert.equal(thm.directResponder(reactive(mentions), { roster: plain }), "bob");
  const input = { key: { trigger_sequence: 1n }, conversation: { desk_id: "General", thread_root: null },
                  author_id: "ada", content: "@bob", mentions: reactive(mentions), hop: 0 };
  const policy = { enabled: true, max_hops: 3 };
  const trace = reactive(/** @type {thm.TraceStep[]} */ ([]));
  assert.deepEqual(thm.mentionDispatch({ policy, input, roster: plain, trace }),
                   thm.mentionDispatch({ policy, input: { ...input, mentions }, roster: plain }));
  assert.ok(trace.length > 0);
  // What is refused inside one is refused where it is, as inside the array itself.
  refusedAt(() => thm.fromJSON("RosterSnapshot", { ...roster, people: reactive([1]) }), "/people/0",
            /expected an object/);
  refusedAt(() => thm.fromJSON("RosterSnapshot", { ...roster, people: reactive([[undefined]]) }),
            "/people/0/0", /undefined/);
  assert.throws(() => thm.directResponder(/** @type {any} */ (reactive({ 0: mentions[0], length: 1 })), { roster: plain }),
                /expected an array, got an Object/);
  const lying = new Proxy(/** @type {thm.Mention[]} */ ([]), { get: (target, key) => (key === "length" ? 1.5 : Reflect.get(target, key)) });
  assert.throws(() => thm.directResponder(lying, { roster: plain }), /a Proxy around an array whose length is 1.5/);
});

test("an object's own properties only: what Object.prototype holds is not the object's", () => {
  const prototype = /** @type {any} */ (Object.prototype);
  prototype.name = "lent";
  prototype.allowed_handoffs = [];
  try {
    refusedAt(() => thm.fromJSON("RosterMember", { id: "a" }), "/name", /required key "name" is missing/);
    assert.deepEqual(thm.fromJSON("RosterMember", { id: "a", name: "own" }), { id: "a", name: "own" });
    assert.deepEqual(thm.fromJSON("MentionDispatchPolicy", { enabled: true, max_hops: 1 }), { enabled: true, max_hops: 1 });
    const realm = createContext({});
    runInContext("Object.prototype.name = 'lent'", realm);
    refusedAt(() => thm.fromJSON("RosterMember", runInContext("({ id: 'a' })", realm)), "/name",
              /required key "name" is missing/);
  } finally {
    delete prototype.name;
    delete prototype.allowed_handoffs;
  }
  // A getter there is not the object's either, and does not run.
  let ran = 0;
  Object.defineProperty(prototype, "name", { configurable: true, get() { ran += 1; throw new Error("lent getter"); } });
  try {
    refusedAt(() => thm.fromJSON("RosterMember", { id: "a" }), "/name", /required key "name" is missing/);
    assert.deepEqual(thm.fromJSON("RosterMember", { id: "a", name: "own" }), { id: "a", name: "own" });
  } finally {
    delete prototype.name;
  }
  assert.equal(ran, 0);
});

test("unknown keys are ignored, whatever they hold; a repeated key in text is refused (SPEC §0.5)", () => {
  /** @type {any} */
  const shared = { kind: "agent" };
  shared.self = shared;
  const row = {
    id: "ada", name: null, createdAt: new Date(0), save() {}, tags: [undefined], n: 2 ** 60,
    big: 2n ** 60n, meta: new Map(), self: shared, "\ud800": 1, thread_root_note: "x",
  };
  assert.deepEqual(thm.fromJSON("RosterMember", row), { id: "ada", name: null });
  refusedAt(() => thm.fromJSON("RosterMember", { ...row, name: new Date(0) }), "/name", /a Date, not a plain object/);
  refusedAt(() => thm.parse("DispatchKey", '{"trigger_sequence":1,"trigger_sequence":1}'), "/trigger_sequence", /repeated/);
  refusedAt(() => thm.parse("DispatchKey", "{"), "", /not valid json/);
});

test("a bigint beyond 2^53 - 1 is a Sequence's or an offset's only; elsewhere a bigint is its number", () => {
  // SPEC §6: an offset is a size_t, as the core and Python take it; beyond 2^53 - 1 it stays
  // a bigint both ways, and never loses a digit.
  const mention = { target: { kind: "everyone" }, text: "@everyone", offset: 2n ** 60n + 1n };
  assert.equal(thm.fromJSON("Mention", mention).offset, 2n ** 60n + 1n);
  assert.equal(thm.fromJSON("Mention", { ...mention, offset: 2n ** 64n - 1n }).offset, 2n ** 64n - 1n);
  assert.equal(thm.parse("Mention", JSON.stringify({ ...mention, offset: 0 }).replace(":0", ":18446744073709551615")).offset,
               2n ** 64n - 1n);
  refusedAt(() => thm.fromJSON("Mention", { ...mention, offset: 2n ** 64n }), "/offset", /outside/);
  assert.equal(thm.fromJSON("Mention", { ...mention, offset: 3n }).offset, 3);
  const [resolved] = thm.resolveMentions("hi @ada", { author: { kind: "other" }, roster, desks: thm.fromJSON(
    "DeskSnapshot", { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] }) });
  assert.equal(resolved?.offset, 3);  // a body's offsets are numbers: no body is 2^53 bytes long
  refusedAt(() => thm.fromJSON("MentionDispatchContext", { policy: { enabled: true, max_hops: 1 }, hop: 2n ** 60n }),
            "/hop", /1152921504606846976n is beyond 2\^53 - 1/);
  assert.equal(thm.fromJSON("MentionDispatchContext", { policy: { enabled: true, max_hops: 2n }, hop: 1n }).hop, 1);
});

test("decode errors carry the case-file form and say where", () => {
  try {
    thm.fromJSON("RosterSnapshot", { members: [{ id: 5 }] }, { root: "/input/roster" });
    assert.fail("no error");
  } catch (error) {
    assert.ok(error instanceof thm.DecodeError && error instanceof thm.ThmError && error instanceof Error);
    assert.equal(error.name, "DecodeError");
    assert.equal(error.message, "expected a string (at /input/roster/members/0/id)");
    assert.deepEqual(error.toJSON(), { variant: "Decode", path: "/input/roster/members/0/id", reason: "expected a string" });
  }
});

test("core errors are their family's class, with the C++ error's fields", () => {
  const duplicate = { members: [{ id: "ada", name: null }, { id: "ada", name: null }], people: [], retired: [], tombstoned: [] };
  const author = /** @type {const} */ ({ kind: "other" });
  const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
  assert.throws(() => thm.responderPlan(
    { message: "hi", chat: null, mentions: [], orchestrator_id: "ada", selection_policy: "allowed" },
    { roster: duplicate, desks, candidate_details: [] }), (error) => {
    assert.ok(error instanceof thm.RosterError);
    assert.equal(error.variant, "DuplicateRosterMemberId");
    assert.equal(error.member_id, "ada");
    assert.deepEqual(Object.keys(error.toJSON()), ["variant", "member_id", "message"]);
    return true;
  });
  assert.ok(thm.resolveMentions("hi @ada", { author, roster, desks }).length === 1);
});

test("a held value is read in place, and a plain object gives the same answer", () => {
  const desks = thm.fromJSON("DeskSnapshot", { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] });
  const held = thm.fromJSON("RosterSnapshot", roster);
  const author = thm.fromJSON("MentionAuthor", { kind: "other" });
  assert.deepEqual(
    thm.resolveMentions("@ada, `@ada`", { author, roster: held, desks }),
    thm.resolveMentions("@ada, `@ada`", { author: { kind: "other" }, roster, desks: { ...desks } }),
  );
  // A held value of another type is read as the wire object it is.
  refusedAt(() => thm.resolveMentions("x", { author, roster: /** @type {any} */ (desks), desks }), "/roster/members", /missing/);
});

test("held values are freed when they are collected", async () => {
  setFlagsFromString("--expose-gc");
  const gc = /** @type {() => void} */ (runInNewContext("gc"));
  const addon = require("../lib/addon.cjs");
  // Collects until the count stops falling: finalizers run after the collection that found
  // their objects, so one gc() is not enough.
  const settle = async () => {
    for (let round = 0, last = -1; round < 20 && addon.heldValues() !== last; round += 1) {
      last = addon.heldValues();
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    return addon.heldValues();
  };
  const before = await settle();
  (() => {
    for (let i = 0; i < 10000; i += 1) thm.fromJSON("RosterSnapshot", roster);
  })();
  assert.ok(addon.heldValues() > before);
  assert.ok((await settle()) <= before);
});

test("CommonJS and ESM share one module", async () => {
  const cjs = require("thm");
  const esm = await import("thm");
  assert.equal(cjs.DecodeError, esm.DecodeError);
  assert.equal(cjs.fromJSON, esm.default.fromJSON);
  assert.ok(Object.isFrozen(cjs));
  assert.equal(cjs.version, require("../package.json").version);
  assert.deepEqual([...thm.WIRE_TYPES].length, 42);
});
