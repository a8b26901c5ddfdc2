"use strict";
// dispatchMentionAsync: dispatchMention for a queue whose enqueueOnce returns a promise (pg,
// Prisma, any async store). dispatchMention itself runs twice: first with a probe for a queue,
// which learns the request of a `one` decision (and lets every other answer and every bad
// argument through as dispatchMention gives them); then, once the host's queue has been
// awaited, with its answer or its throw replayed. So both calls check arguments and map
// answers and errors in one place. The decision is pure: making it twice is safe, and both
// calls make it from the same values: plain arguments are read once, into held values,
// before the first, so that a queue that changes them while it is awaited (retiring the
// target, rewriting the reply) is answered for the turn it enqueued.
const addon = require("./addon.cjs");

/** The wire type of each named argument that is a value. */
const VALUES = { policy: "MentionDispatchPolicy", input: "MentionDispatchInput", roster: "RosterSnapshot" };

/**
 * `args` with its values read once: each own value argument held as `fromJSON` holds it
 * (paths as `dispatchMention` names them), every other own argument as it is. When a value
 * does not decode, `args` itself, so that `dispatchMention` refuses it as it does.
 * @param {any} args
 * @returns {any}
 */
function readOnce(args) {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  /** @type {Record<string, unknown>} */
  const read = {};
  try {
    for (const key of Object.getOwnPropertyNames(args)) {
      const type = /** @type {Record<string, string>} */ (VALUES)[key];
      read[key] = type === undefined ? args[key] : addon.fromJSON(type, args[key], { root: `/${key}` });
    }
  } catch {
    return args;
  }
  return read;
}

const PROBED = Symbol("probed");

/**
 * @param {any} queue an object with `enqueueOnce(request)`, returning an outcome or a promise
 * @param {any} givenArgs `{ policy, input, roster }` or `{ policy, input, team }`
 */
async function dispatchMentionAsync(queue, givenArgs) {
  const args = readOnce(givenArgs);
  /** @type {unknown} */
  let request = PROBED;
  const probe = {
    /** @param {unknown} admitted */
    enqueueOnce(admitted) {
      request = admitted;
      throw PROBED;
    },
  };
  const enqueueOnce = typeof queue === "object" && queue !== null ? queue.enqueueOnce : undefined;
  try {
    return addon.dispatchMention(typeof enqueueOnce === "function" ? probe : queue, args);
  } catch (error) {
    if (request === PROBED) throw error; // a bad argument or roster: the queue was not asked
  }
  let threw = false;
  /** @type {unknown} */
  let answer;
  try {
    answer = await enqueueOnce.call(queue, request);
  } catch (error) {
    threw = true;
    answer = error;
  }
  const replay = {
    enqueueOnce() {
      if (threw) throw answer;
      return answer;
    },
  };
  return addon.dispatchMention(replay, args);
}

module.exports = { dispatchMentionAsync };
