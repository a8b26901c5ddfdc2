"use strict";
// dispatchMentionAsync: dispatchMention for a queue whose enqueueOnce returns a promise (pg,
// Prisma, any async store). dispatchMention itself runs twice: first with a probe for a queue,
// which learns the request of a `one` decision (and lets every other answer and every bad
// argument through as dispatchMention gives them); then, once the host's queue has been
// awaited, with its answer or its throw replayed. So both calls check arguments and map
// answers and errors in one place. The decision is pure: making it twice is safe.
const addon = require("./addon.cjs");

const PROBED = Symbol("probed");

/**
 * @param {any} queue an object with `enqueueOnce(request)`, returning an outcome or a promise
 * @param {any} args `{ policy, input, roster }` or `{ policy, input, team }`
 */
async function dispatchMentionAsync(queue, args) {
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
