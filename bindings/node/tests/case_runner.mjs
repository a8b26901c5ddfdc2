// @ts-check
// The shared case files (spec/cases.md), run through the Node.js package's own API.
//
// Each operation of a case is answered by calling thm's functions on the case's `input`,
// read as a JavaScript host holds JSON: a plain value from a JSON parser, with integers
// beyond 2^53 - 1 as `bigint` (lossless-json, so that no digit is lost). Every wire
// argument goes through `thm.fromJSON(type, value, { root: "/input/<key>" })`, so the case
// files prove the binding's conversion and its surface, not the C++ tool's operation table.
// What the C++ runner (cli/thm/cli/args.hpp) does at the JSON level before any value exists
// is done here the same way: a missing key, or a key that is not a string or an array, is a
// Decode error at /input/<key>. A key repeated within one object of a case file stops the
// loader (lossless-json refuses it): no shared case has one, and `thm.parse`'s refusal of
// repeated keys is tested on its own.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse as parseLossless } from "lossless-json";
import * as thm from "thm";

/** @typedef {any} Json */

/** The first decode error of an operation's input: the operation answers it. */
class Refused extends Error {
  /** @param {Record<string, Json>} error */
  constructor(error) {
    super(String(error.reason));
    this.error = error;
  }
}

/**
 * The case-file form of a decode error.
 * @param {string} path
 * @param {string} reason
 */
export function decodeError(path, reason) {
  return { variant: "Decode", path, reason };
}

/** @param {unknown} value */
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The keys of an operation's `input`, read as the C++ runner reads them. */
/** @type {thm.DeskSnapshot} */
const NO_DESKS = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };

class Args {
  /**
   * @param {Json} value
   * @param {string} root
   */
  constructor(value, root = "/input", prepared = false, awaited = false) {
    if (!isObject(value)) throw new Refused(decodeError(root, "expected an object"));
    /** @type {Record<string, Json>} */
    this.value = value;
    this.root = root;
    this.prepared = prepared;
    this.awaited = awaited;
  }

  /**
   * The call's snapshots: with `prepared`, a team made of them, unless no team holds them
   * (a malformed roster or desk set), which the operation then answers on the snapshots,
   * as `thm check --impl prepared` does.
   * @param {thm.RosterSnapshot} roster
   * @param {thm.DeskSnapshot} desks
   * @returns {thm.TeamOrSnapshots}
   */
  snapshots(roster, desks) {
    const team = this.team(roster, desks);
    return team === null ? { roster, desks } : { team };
  }

  /**
   * As `snapshots`, for a call that takes a roster alone (a team with no desks).
   * @param {thm.RosterSnapshot} roster
   * @returns {thm.TeamOrRoster}
   */
  roster(roster) {
    const team = this.team(roster, NO_DESKS);
    return team === null ? { roster } : { team };
  }

  /**
   * @param {thm.RosterSnapshot} roster
   * @param {thm.DeskSnapshot} desks
   * @returns {thm.Team | null}
   */
  team(roster, desks) {
    if (!this.prepared) return null;
    try {
      return thm.prepareTeam({ roster, desks });
    } catch (error) {
      if (error instanceof thm.RosterError || error instanceof thm.DeskError) return null;
      throw error;
    }
  }

  /** @param {string} key */
  path(key) {
    return `${this.root}/${key}`;
  }

  /** @param {string} key */
  field(key) {
    if (!Object.hasOwn(this.value, key)) {
      throw new Refused(decodeError(this.path(key), `required key "${key}" is missing`));
    }
    return this.value[key];
  }

  /** @param {string} key @returns {string} */
  text(key) {
    const value = this.field(key);
    if (typeof value !== "string") throw new Refused(decodeError(this.path(key), "expected a string"));
    return value;
  }

  /** @param {string} key @returns {string | null} */
  nullableText(key) {
    return this.field(key) === null ? null : this.text(key);
  }

  /**
   * @template {thm.WireType} K
   * @param {string} key
   * @param {K} type
   * @returns {thm.Wire[K]}
   */
  wire(key, type) {
    return decoded(() => thm.fromJSON(type, this.field(key), { root: this.path(key) }));
  }

  /**
   * @template {thm.WireType} K
   * @param {string} key
   * @param {K} type
   * @returns {thm.Wire[K] | null}
   */
  nullableWire(key, type) {
    return this.field(key) === null ? null : this.wire(key, type);
  }

  /**
   * @template {thm.WireType} K
   * @param {string} key
   * @param {K} type
   * @returns {thm.Wire[K][]}
   */
  array(key, type) {
    const value = this.field(key);
    if (!Array.isArray(value)) throw new Refused(decodeError(this.path(key), "expected an array"));
    return value.map((item, index) =>
      decoded(() => thm.fromJSON(type, item, { root: `${this.path(key)}/${index}` })),
    );
  }

  /**
   * @template {thm.WireType} K
   * @param {string} key
   * @param {K} type
   * @returns {thm.Wire[K][] | null}
   */
  nullableArray(key, type) {
    return this.field(key) === null ? null : this.array(key, type);
  }
}

/**
 * `decode()`, with a thm.DecodeError turned into the refusal the operation answers.
 * @template T
 * @param {() => T} decode
 * @returns {T}
 */
function decoded(decode) {
  try {
    return decode();
  } catch (error) {
    if (error instanceof thm.DecodeError) throw new Refused(error.toJSON());
    throw error;
  }
}

/**
 * `body()`'s answer, or `{ error }` for one of thm's errors of the listed classes.
 * @param {() => Json} body
 * @param {Function[]} classes
 */
function answering(body, ...classes) {
  try {
    return body();
  } catch (error) {
    if (classes.some((c) => error instanceof c)) return { error: /** @type {thm.ThmError} */ (error).toJSON() };
    throw error;
  }
}

// ---- the operations (cases.md, "Operations") ----------------------------------------------

/** @type {Record<string, (a: Args) => Json>} */
export const OPERATIONS = {
  is_general_chat: (a) => ({ result: thm.isGeneralChat(a.nullableText("chat")) }),

  same_conversation: (a) => {
    const first = a.nullableText("a");
    const second = a.nullableText("b");
    return { result: thm.sameConversation(first, second) };
  },

  dispatch_conversation: (a) => ({
    conversation: thm.dispatchConversation(a.wire("conversation", "Conversation")),
  }),

  resolve_mentions: (a) => {
    const body = a.text("body");
    const supplied = a.nullableArray("supplied", "Mention");
    const author = a.wire("author", "MentionAuthor");
    const roster = a.wire("roster", "RosterSnapshot");
    const desks = a.wire("desks", "DeskSnapshot");
    return { mentions: thm.resolveMentions(body, { supplied, author, ...a.snapshots(roster, desks) }) };
  },

  direct_responder: (a) => {
    const mentions = a.array("mentions", "Mention");
    const roster = a.wire("roster", "RosterSnapshot");
    return { responder_id: thm.directResponder(mentions, a.roster(roster)) };
  },

  mentioned_members: (a) => {
    const mentions = a.array("mentions", "Mention");
    const addressed_desk = a.nullableText("addressed_desk");
    const responder = a.nullableText("responder");
    const roster = a.wire("roster", "RosterSnapshot");
    const desks = a.wire("desks", "DeskSnapshot");
    return {
      members: thm.mentionedMembers(mentions, {
        addressed_desk, responder, ...a.snapshots(roster, desks),
      }),
    };
  },

  validate_desks: (a) => {
    const error = thm.validateDesks(a.wire("desks", "DeskSnapshot"));
    return error === null ? { valid: true } : { error: error.toJSON() };
  },

  desk_members: (a) => {
    const desks = a.wire("desks", "DeskSnapshot");
    const identity = a.text("identity");
    return answering(() => ({ ...thm.deskMembers(desks, { identity }) }), thm.DeskError);
  },

  responder_plan: (a) => {
    const request = a.wire("request", "ResponderRequest");
    const roster = a.wire("roster", "RosterSnapshot");
    const desks = a.wire("desks", "DeskSnapshot");
    const candidate_details = a.array("candidate_details", "SelectorCandidate");
    return answering(
      () => ({
        plan: thm.responderPlan(request, { candidate_details, ...a.snapshots(roster, desks) }),
      }),
      thm.RosterError,
      thm.DeskError,
      thm.ResponderError,
    );
  },

  briefing_text: (a) => ({ text: briefingText(a) }),

  briefing_offers_dispatch: (a) => ({ result: thm.offersDispatch(briefingText(a)) }),

  accept_selection: (a) => {
    const output = a.text("output");
    const candidates = a.array("candidates", "SelectorCandidate");
    return { accepted: thm.acceptSelection(output, { candidates }) };
  },

  accept_evaluation: (a) => {
    const evaluation = a.wire("evaluation", "SelectionEvaluation");
    const candidates = a.array("candidates", "SelectorCandidate");
    const minimum_confidence = a.wire("minimum_confidence", "Probability");
    return { accepted: thm.acceptEvaluation(evaluation, { candidates, minimum_confidence }) };
  },

  settle_selection: (a) => {
    const plan = a.wire("plan", "ResponderPlan");
    const selector = a.wire("selector", "SelectorResult");
    return { decision: thm.settleSelection(plan, { selector }) };
  },

  mention_dispatch: (a) => {
    const policy = a.wire("policy", "MentionDispatchPolicy");
    const input = a.wire("input", "MentionDispatchInput");
    const roster = a.wire("roster", "RosterSnapshot");
    return answering(
      () => ({ decision: thm.mentionDispatch({ policy, input, ...a.roster(roster) }) }),
      thm.RosterError,
    );
  },

  dispatch_mention: (a) => {
    /** @type {ScriptedQueue} */
    let queue;
    /** @type {thm.DispatchArgs} */
    let args;
    try {
      const policy = a.wire("policy", "MentionDispatchPolicy");
      const input = a.wire("input", "MentionDispatchInput");
      const roster = a.wire("roster", "RosterSnapshot");
      args = { policy, input, ...a.roster(roster) };
      queue = new ScriptedQueue(scriptedAnswer(a));
    } catch (refused) {
      if (refused instanceof Refused) return { error: refused.error, queue_calls: 0 };
      throw refused;
    }
    const counted = (/** @type {Record<string, Json>} */ result) => ({ ...result, queue_calls: queue.calls });
    if (a.awaited) {
      return thm.dispatchMentionAsync(queue.awaited(), args).then(
        (outcome) => counted({ outcome }),
        (error) => counted(dispatchError(error)),
      );
    }
    try {
      return counted({ outcome: thm.dispatchMention(queue, args) });
    } catch (error) {
      return counted(dispatchError(error));
    }
  },

  may_dispatch: (a) => ({ result: thm.mayDispatch(a.wire("context", "MentionDispatchContext")) }),

  display: (a) => {
    const [type, token] = rendering(a);
    return { display: thm.display(type, token), name: token };
  },

  display_equal: (a) => {
    const first = rendering(new Args(a.field("a"), "/input/a"));
    const second = rendering(new Args(a.field("b"), "/input/b"));
    return { equal: thm.display(...first) === thm.display(...second) };
  },

  decode: (a) => {
    const type = a.text("type");
    const value = a.field("json");
    if (!thm.WIRE_TYPES.includes(/** @type {thm.WireType} */ (type))) {
      throw new Refused(decodeError(a.path("type"), `unknown wire type "${type}"`));
    }
    return {
      value: decoded(() => thm.fromJSON(/** @type {thm.WireType} */ (type), value, { root: "/input/json" })),
    };
  },
};

/** @param {Args} a */
function briefingText(a) {
  const briefing = a.wire("briefing", "TeamBriefing");
  const context = a.nullableWire("context", "MentionDispatchContext");
  return thm.briefingText(briefing, context);
}

/** A queue written in JavaScript that answers what the case says: an EnqueueOutcome, or
 * `{ fail: message, kind: token }` thrown as a thm.QueueError. */
class ScriptedQueue {
  /** @param {thm.EnqueueOutcome | thm.QueueError} answer */
  constructor(answer) {
    this.answer = answer;
    this.calls = 0;
    /** @type {thm.MentionTurnRequest[]} */
    this.requests = [];
  }

  /** @param {thm.MentionTurnRequest} request */
  enqueueOnce(request) {
    this.calls += 1;
    this.requests.push(request);
    if (this.answer instanceof thm.QueueError) throw this.answer;
    return this.answer;
  }

  /** The same queue with an async `enqueueOnce`, for `dispatchMentionAsync`. */
  awaited() {
    return {
      /** @param {thm.MentionTurnRequest} request */
      enqueueOnce: async (request) => {
        await Promise.resolve();
        return this.enqueueOnce(request);
      },
    };
  }
}

/**
 * The result object of what `dispatchMention` threw, or the error again if the cases have no
 * form for it.
 * @param {unknown} error
 * @returns {Record<string, Json>}
 */
function dispatchError(error) {
  if (error instanceof thm.RosterError) return { error: { variant: "Core", core: error.toJSON() } };
  if (error instanceof thm.QueueError) return { error: { variant: "Enqueue", ...error.toJSON() } };
  throw error;
}

/** @param {Args} a @returns {thm.EnqueueOutcome | thm.QueueError} */
function scriptedAnswer(a) {
  const script = a.field("queue");
  if (!isObject(script) || !Object.hasOwn(script, "fail")) return a.wire("queue", "EnqueueOutcome");
  if (typeof script.fail !== "string") {
    throw new Refused(decodeError(a.path("queue"), '"fail" must be a string'));
  }
  /** @type {thm.QueueErrorKind} */
  let kind = "unavailable";
  if (Object.hasOwn(script, "kind")) {
    kind = decoded(() => thm.fromJSON("QueueErrorKind", script.kind, { root: "/input/queue/kind" }));
  }
  return new thm.QueueError(kind, script.fail);
}

const DISPLAYED = ["NoDispatchReason", "EnqueueRefusal", "ResponderRung", "SelectionDisposition"];

/**
 * The `[type, token]` the `{ type, variant }` object `a` names.
 * @param {Args} a
 * @returns {[keyof thm.Displayed, any]}
 */
function rendering(a) {
  const type = a.text("type");
  const variant = a.text("variant");
  if (!DISPLAYED.includes(type)) throw new Refused(decodeError(a.path("type"), `unknown type "${type}"`));
  try {
    thm.fromJSON(/** @type {thm.WireType} */ (type), variant);
  } catch (error) {
    if (!(error instanceof thm.DecodeError)) throw error;
    throw new Refused(decodeError(a.path("variant"), `unknown ${type} variant "${variant}"`));
  }
  return [/** @type {keyof thm.Displayed} */ (type), variant];
}

/**
 * The result object of `op` on `input`; with `prepared`, the operations that take snapshots
 * run on a team made of them; with `awaited`, `dispatch_mention` is `dispatchMentionAsync`
 * with an async queue, and its result a promise.
 * @param {string} op
 * @param {Json} input
 * @param {boolean} [prepared]
 * @param {boolean} [awaited]
 */
export function runOp(op, input, prepared = false, awaited = false) {
  const operation = OPERATIONS[op];
  if (operation === undefined) throw new Error(`unknown op ${op}`);
  try {
    return operation(new Args(input, "/input", prepared, awaited));
  } catch (refusal) {
    if (!(refusal instanceof Refused)) throw refusal;
    return op === "dispatch_mention" ? { error: refusal.error, queue_calls: 0 } : { error: refusal.error };
  }
}

// ---- matching (cases.md): exact, typed, and partial only inside a top-level error ---------

/** @param {Json} value */
function kind(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "bigint") return "integer";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "float";
  return typeof value;
}

/**
 * @param {Json} expected
 * @param {Json} actual
 * @param {boolean} subset
 * @returns {boolean}
 */
function equal(expected, actual, subset) {
  if (typeof actual?.toJSON === "function") actual = actual.toJSON();
  if (kind(expected) !== kind(actual)) return false;
  if (Array.isArray(expected)) {
    return expected.length === actual.length && expected.every((e, i) => equal(e, actual[i], subset));
  }
  if (isObject(expected)) {
    const keys = Object.keys(expected);
    if (!subset && keys.length !== Object.keys(actual).length) return false;
    return keys.every((key) => Object.hasOwn(actual, key) && equal(expected[key], actual[key], subset));
  }
  if (kind(expected) === "integer") return BigInt(expected) === BigInt(actual);
  return expected === actual;
}

/**
 * Whether `actual` is the case's `expected` (cases.md).
 * @param {Json} expected
 * @param {Json} actual
 */
export function matches(expected, actual) {
  if (!isObject(expected) || !isObject(actual)) return equal(expected, actual, false);
  const keys = Object.keys(expected);
  if (keys.length !== Object.keys(actual).length) return false;
  return keys.every((key) => Object.hasOwn(actual, key) && equal(expected[key], actual[key], key === "error"));
}

// ---- case files ----------------------------------------------------------------------------

/**
 * A JSON number as a JavaScript host keeps it: an integer beyond 2^53 - 1 as a bigint.
 * @param {string} text
 */
export function number(text) {
  if (/^-?(0|[1-9][0-9]*)$/.test(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : BigInt(text);
  }
  return Number(text);
}

/**
 * Every case of a case file, as `{ name, op, input, expected }`.
 * @param {string} path
 * @returns {{ name: string, op: string, input: Json, expected: Json }[]}
 */
export function loadCases(path) {
  const document = parseLossless(readFileSync(path, "utf8"), null, number);
  if (!Array.isArray(document) || document.length === 0) {
    throw new Error(`${path}: not a non-empty JSON array of cases`);
  }
  const file = path.split("/").at(-1);
  return document.map((c, index) => ({ ...c, name: `${file}#${index} ${c.name}` }));
}

/**
 * The case files under `directory`, sorted.
 * @param {string} directory
 */
export function caseFiles(directory) {
  return readdirSync(directory)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => join(directory, name));
}
