// @ts-check
// Every function, called right and then with each argument wrong (a malformed-input
// test per operation): the right call answers; each wrong one throws a TypeError naming the
// function and the argument, or, for a wire argument, a thm.DecodeError whose path starts at
// the argument's name (an async function rejects with it). The table must name every function the package exports.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as thm from "thm";

const roster = {
  members: [{ id: "ada", name: null }, { id: "bob", name: null }],
  people: [],
  retired: [],
  tombstoned: [],
};
const desks = {
  declared: [{ id: "eng", name: "Eng", description: null, members: ["ada", "bob"] }],
  added: [],
  member_additions: [],
  orders: [],
  retired: [],
  tombstoned: [],
};
const mention = { target: { kind: "agent", id: "bob" }, text: "@bob", offset: 0 };
const conversation = { desk_id: "eng", desk_name: "Eng", thread_root: null };
const policy = { enabled: true, max_hops: 3 };
const input = {
  key: { trigger_sequence: 1n },
  conversation: { desk_id: "eng", thread_root: null },
  author_id: "ada",
  content: "@bob go",
  mentions: [mention],
  hop: 0,
};
const candidate = { id: "bob", label: "Bob", role: "dev", description: null };
const evaluation = {
  choice: "bob",
  confidence: 900000,
  probabilities: [{ candidate_id: "bob", probability: 1 }],
};
const request = {
  message: "@bob hi",
  chat: "eng",
  mentions: [mention],
  orchestrator_id: "ada",
  selection_policy: "allowed",
};
const turnRequest = {
  key: { trigger_sequence: 1 },
  source_id: "ada",
  target_id: "bob",
  content: "@bob",
  conversation: { desk_id: "eng", thread_root: null },
  child_hop: 1,
};
const decided = {
  kind: "decided",
  decision: { responder_id: "ada", rung: "orchestrator", disposition: "not_applicable" },
};
const briefing = { viewer_id: "ada", desk_id: "eng", desk_name: "Eng", teammates: [] };
const context = { policy, hop: 0 };
const queue = { enqueueOnce: () => ({ status: "enqueued" }) };
const step = { rule: "enabled", outcome: "stopped", why: null, subject: "", offset: null, count: null };

/**
 * Each function: its positional arguments for a right call, the last of which may be the
 * object of named arguments (`named`), and which arguments are wire values (their name, the
 * root of a DecodeError's path).
 * @typedef {{ args: unknown[], named?: Record<string, unknown>, wire: string[] }} Call
 * @type {Record<string, Call>}
 */
const CALLS = {
  isGeneralChat: { args: ["eng"], wire: [] },
  sameConversation: { args: ["eng", "main"], wire: [] },
  dispatchConversation: { args: [conversation], wire: ["conversation"] },
  prepareTeam: { args: [], named: { roster, desks }, wire: ["roster", "desks"] },
  resolveMentions: {
    args: ["@bob"],
    named: { supplied: null, author: { kind: "other" }, roster, desks },
    wire: ["author", "roster", "desks"],
  },
  directResponder: { args: [[mention]], named: { roster }, wire: ["roster"] },
  mentionedMembers: {
    args: [[mention]],
    named: { addressed_desk: null, responder: null, roster, desks },
    wire: ["roster", "desks"],
  },
  validateDesks: { args: [desks], wire: ["desks"] },
  deskMembers: { args: [desks], named: { identity: "eng" }, wire: ["desks"] },
  responderPlan: {
    args: [request],
    named: { roster, desks, candidate_details: [], trace: [] },
    wire: ["request", "roster", "desks"],
  },
  teamBriefing: { args: [], named: { viewer_id: "ada", conversation, desks, roster }, wire: ["conversation", "desks", "roster"] },
  briefingText: { args: [briefing, context], wire: ["briefing", "context"] },
  offersDispatch: { args: ["text"], wire: [] },
  acceptSelection: { args: ["bob"], named: { candidates: [candidate] }, wire: [] },
  acceptEvaluation: {
    args: [evaluation],
    named: { candidates: [candidate], minimum_confidence: 1 },
    wire: ["evaluation", "minimum_confidence"],
  },
  settleSelection: {
    args: [decided],
    named: { selector: { kind: "absent" }, trace: [] },
    wire: ["plan", "selector"],
  },
  mentionDispatch: {
    args: [],
    named: { policy, input, roster, trace: [] },
    wire: ["policy", "input", "roster"],
  },
  dispatchMention: { args: [queue], named: { policy, input, roster }, wire: ["policy", "input", "roster"] },
  dispatchMentionAsync: { args: [queue], named: { policy, input, roster }, wire: ["policy", "input", "roster"] },
  mayDispatch: { args: [context], wire: ["context"] },
  turnKey: { args: [turnRequest], wire: ["request"] },
  display: { args: ["NoDispatchReason", "disabled"], wire: [] },
  agentSentences: { args: [[step]], wire: ["trace"] },
  operatorLine: { args: [step], wire: ["step"] },
  fromJSON: { args: ["Probability", 3], wire: [] },
  parse: { args: ["Probability", "3"], wire: [] },
  stringify: { args: ["Probability", 3], wire: [] },
};
// The names of each function's positional arguments.
/** @type {Record<string, string[]>} */
const POSITIONAL = {
  isGeneralChat: ["chat"],
  sameConversation: ["a", "b"],
  dispatchConversation: ["conversation"],
  prepareTeam: [],
  resolveMentions: ["body"],
  directResponder: ["mentions"],
  mentionedMembers: ["mentions"],
  validateDesks: ["desks"],
  deskMembers: ["desks"],
  responderPlan: ["request"],
  teamBriefing: [],
  briefingText: ["briefing", "context"],
  offersDispatch: ["text"],
  acceptSelection: ["output"],
  acceptEvaluation: ["evaluation"],
  settleSelection: ["plan"],
  mentionDispatch: [],
  dispatchMention: ["queue"],
  dispatchMentionAsync: ["queue"],
  mayDispatch: ["context"],
  turnKey: ["request"],
  display: ["type", "token"],
  agentSentences: ["trace"],
  operatorLine: ["step"],
  fromJSON: ["type", "value"],
  parse: ["type", "text"],
  stringify: ["type", "value"],
};
// Arguments that take any value: what fromJSON decodes, and a queue (any object with the
// method; dispatch.test.mjs tries the others).
const UNTYPED = new Set(["fromJSON(value)", "dispatchMention(queue)", "dispatchMentionAsync(queue)"]);

/** @param {string} name */
function fn(name) {
  return /** @type {(...args: unknown[]) => unknown} */ (/** @type {any} */ (thm)[name]);
}

/** @param {Call} call */
function argsOf(call) {
  return call.named === undefined ? call.args : [...call.args, call.named];
}

test("the table has every function, and names its arguments", () => {
  const functions = Object.entries(thm)
    .filter(([name, value]) => typeof value === "function" && !/Error$/.test(name))
    .map(([name]) => name);
  assert.deepEqual(functions.filter((name) => !(name in CALLS)), []);
  for (const [name, call] of Object.entries(CALLS)) {
    assert.equal(POSITIONAL[name].length, call.args.length, name);
  }
});

for (const [name, call] of Object.entries(CALLS)) {
  test(`${name}: the right call answers`, async () => {
    await fn(name)(...argsOf(call));
  });
}

// Values no argument takes: not JSON at all, or the wrong JSON type for every argument here.
const WRONG = [new Map(), Symbol("x"), () => 1, 2 ** 64];

/**
 * Whether `error` is what a wrong argument `argument` of `name` must throw.
 * @param {string} name
 * @param {string} argument
 * @param {boolean} wire
 * @param {unknown} error
 */
function refusal(name, argument, wire, error) {
  if (wire && error instanceof thm.DecodeError) {
    return error.path.startsWith(argument === "value" ? "" : `/${argument}`);
  }
  // An async call rejects with its sync call's own error, which names the sync call.
  const named = name.replace(/Async$/, "");
  return error instanceof TypeError && error.message.includes(named) && error.message.includes(argument);
}

for (const [name, call] of Object.entries(CALLS)) {
  call.args.forEach((_, index) => {
    const argument = POSITIONAL[name][index];
    if (UNTYPED.has(`${name}(${argument})`)) return;
    const wire = call.wire.includes(argument) || name === "stringify" && argument === "value";
    for (const wrong of WRONG) {
      test(`${name}(${argument} = ${describe(wrong)}) is refused`, async () => {
        const args = argsOf(call).slice();
        args[index] = wrong;
        await assert.rejects(async () => fn(name)(...args), (error) => refusal(name, argument, wire, error));
      });
    }
  });
  for (const key of Object.keys(call.named ?? {})) {
    for (const wrong of [...WRONG, undefined]) {
      if (wrong === undefined && ["supplied", "addressed_desk", "responder", "trace"].includes(key)) continue;
      test(`${name}({ ${key}: ${describe(wrong)} }) is refused`, async () => {
        const args = [...call.args, { ...call.named, [key]: wrong }];
        await assert.rejects(
          async () => fn(name)(...args),
          (error) => refusal(name, key, call.wire.includes(key), error),
        );
      });
    }
  }
  if (call.named !== undefined) {
    test(`${name} without its named arguments is refused`, async () => {
      await assert.rejects(async () => fn(name)(...call.args), TypeError);
    });
  }
}

/** @param {unknown} value */
function describe(value) {
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (value instanceof Map) return "a Map";
  return String(value);
}
