// @ts-check
// dispatchMention with queues written in JavaScript, well and badly (SPEC §4, adr/0014): the
// request a queue sees, what its answers become, and that nothing it does (throw, return
// garbage or a promise, dispatch again from inside) crashes or escapes untyped.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as thm from "thm";
import { args, roster } from "./dispatch_fixture.mjs";


/**
 * A queue whose `enqueueOnce` is `answer`, counting its calls.
 * @param {(request: thm.MentionTurnRequest) => any} answer
 */
function queue(answer) {
  return {
    calls: /** @type {thm.MentionTurnRequest[]} */ ([]),
    /** @param {thm.MentionTurnRequest} request */
    enqueueOnce(request) {
      this.calls.push(request);
      return answer(request);
    },
  };
}

/**
 * Asserts that `run` throws a thm.QueueError of `kind` whose message matches `message`.
 * @param {() => unknown} run
 * @param {thm.QueueErrorKind} kind
 * @param {RegExp} message
 * @returns {thm.QueueError}
 */
function queueError(run, kind, message) {
  /** @type {thm.QueueError | undefined} */
  let thrown;
  assert.throws(run, (error) => {
    assert.ok(error instanceof thm.QueueError, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, message);
    thrown = error;
    return true;
  });
  return /** @type {thm.QueueError} */ (thrown);
}

test("the queue sees the request once, frozen, with its sequence as a bigint", () => {
  const q = queue(() => ({ status: "enqueued" }));
  assert.deepEqual(thm.dispatchMention(q, args), { status: "enqueued" });
  assert.equal(q.calls.length, 1);
  const [request] = q.calls;
  assert.ok(Object.isFrozen(request) && Object.isFrozen(request.key));
  assert.deepEqual(request, {
    key: { trigger_sequence: 18446744073709551615n },
    source_id: "ada",
    target_id: "bob",
    content: "@bob take it",
    conversation: { desk_id: "eng", thread_root: 7n },
    child_hop: 2,
  });
});

test("each outcome maps one to one; a declined dispatch makes no call", () => {
  for (const answer of [{ status: "already" }, { status: "refused", reason: "unauthorized" }]) {
    assert.deepEqual(thm.dispatchMention(queue(() => answer), args), answer);
  }
  const q = queue(() => ({ status: "enqueued" }));
  const declined = thm.dispatchMention(q, { ...args, policy: { enabled: true, max_hops: 1 } });
  assert.deepEqual(declined, { status: "not_dispatched", reason: "hop_limit_reached" });
  assert.equal(q.calls.length, 0);
});

test("a thm.QueueError the queue throws comes back as itself", () => {
  const mine = new thm.QueueError("indeterminate", "the commit was cut off");
  assert.throws(() => thm.dispatchMention(queue(() => { throw mine; }), args), (error) => error === mine);
});

test("anything else the queue throws is an internal QueueError, with it as the cause", () => {
  const boom = new RangeError("boom");
  const error = queueError(() => thm.dispatchMention(queue(() => { throw boom; }), args), "internal", /boom/);
  assert.equal(error.cause, boom);
  for (const thrown of [42, null, undefined, "text", Symbol("s")]) {
    const wrapped = queueError(() => thm.dispatchMention(queue(() => { throw thrown; }), args), "internal", /threw/);
    assert.equal(wrapped.cause, thrown);
  }
});

test("garbage returned is an internal QueueError saying what came back", () => {
  const garbage = [undefined, null, 5, "enqueued", [], {}, { status: "nope" }, { status: "refused" },
    { status: "refused", reason: "because" }, new Map(), { status: new Date(0) }];
  for (const answer of garbage) {
    queueError(() => thm.dispatchMention(queue(() => answer), args), "internal", /enqueueOnce returned .*not an EnqueueOutcome/);
  }
});

test("an outcome with unknown keys is the outcome; one whose getter throws keeps what it threw", () => {
  const noisy = { status: "enqueued", at: new Date(0), retry() {} };
  assert.deepEqual(thm.dispatchMention(queue(() => noisy), args), { status: "enqueued" });
  const boom = new Error("no status today");
  const answer = { get status() { throw boom; } };
  const error = queueError(() => thm.dispatchMention(queue(() => answer), args), "internal", /reading what enqueueOnce returned threw/);
  assert.equal(error.cause, boom);
});

test("something that only looks like a QueueError is not passed through as one", () => {
  const fake = Object.create(thm.QueueError.prototype);
  const error = queueError(() => thm.dispatchMention(queue(() => { throw fake; }), args), "internal", /without a valid kind/);
  assert.equal(error.cause, fake);
  assert.notEqual(error, fake);
});

test("a promise is refused, and its rejection does not crash the process later", async () => {
  let rejected = false;
  process.once("unhandledRejection", () => { rejected = true; });
  const later = () => Promise.reject(new Error("too late"));
  queueError(() => thm.dispatchMention(queue(later), args), "internal", /returned a promise.*synchronously/);
  const thenable = { then: (/** @type {any} */ resolve) => resolve({ status: "enqueued" }) };
  queueError(() => thm.dispatchMention(queue(() => thenable), args), "internal", /promise/);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(rejected, false);
});

test("a queue that is not one is a TypeError, before anything runs", () => {
  for (const bad of [null, undefined, 5, {}, { enqueueOnce: 1 }, { enqueue_once: () => ({ status: "enqueued" }) }]) {
    assert.throws(() => thm.dispatchMention(/** @type {any} */ (bad), args), /dispatchMention\(queue\): expected an object with enqueueOnce/);
  }
});

test("a roster the core refuses is a RosterError, and the queue is not called", () => {
  const q = queue(() => ({ status: "enqueued" }));
  const duplicate = { ...roster, members: [...roster.members, { id: "bob", name: null }] };
  assert.throws(() => thm.dispatchMention(q, /** @type {thm.DispatchArgs} */ ({ ...args, roster: duplicate })), thm.RosterError);
  assert.equal(q.calls.length, 0);
});

test("dispatching from inside enqueueOnce works, and nesting past 32 is a RangeError", () => {
  let depth = 0;
  /** @type {{ enqueueOnce(): any }} */
  const nesting = {
    enqueueOnce() {
      depth += 1;
      if (depth === 5) return { status: "enqueued" };
      return thm.dispatchMention(nesting, args);
    },
  };
  assert.deepEqual(thm.dispatchMention(nesting, args), { status: "enqueued" });
  depth = -1000;
  /** @type {unknown} */
  let innermost;
  /** @type {{ enqueueOnce(): any }} */
  const endless = {
    enqueueOnce() {
      try {
        return thm.dispatchMention(endless, args);
      } catch (error) {
        innermost ??= error;
        throw error;
      }
    },
  };
  const error = queueError(() => thm.dispatchMention(endless, args), "internal", /nested more than 32/);
  assert.ok(innermost instanceof RangeError);
  assert.ok(error.cause instanceof thm.QueueError || error.cause instanceof RangeError);
});

test("QueueError checks its kind, and its JSON is the wire form", () => {
  assert.throws(() => new thm.QueueError(/** @type {any} */ ("bad")), TypeError);
  const error = new thm.QueueError("unavailable", "down");
  assert.deepEqual(error.toJSON(), { kind: "unavailable", message: "down" });
  assert.equal(error.name, "QueueError");
  assert.deepEqual(thm.QUEUE_ERROR_KINDS, ["unavailable", "trigger_missing", "trigger_mismatch", "indeterminate", "invalid_request", "internal"]);
});

// ---- the canonical key of a child turn -------------------------------------------------------

/**
 * @param {string} desk_id
 * @param {number | null} thread_root
 * @param {bigint} sequence
 */
function requestIn(desk_id, thread_root, sequence) {
  return {
    key: { trigger_sequence: sequence }, source_id: "ada", target_id: "bob", content: "@bob",
    conversation: { desk_id, thread_root }, child_hop: 1,
  };
}

test("turnKey is the canonical key, General folded", () => {
  assert.equal(thm.turnKey(requestIn("eng", 42, 17n)), "v1/3:eng/t42/17");
  assert.equal(thm.turnKey(requestIn("main", null, 2n ** 64n - 1n)), "v1/7:General/c/18446744073709551615");
  assert.equal(thm.turnKey(requestIn("MAIN", 3, 9n)), thm.turnKey(requestIn("General", 3, 9n)));
  assert.notEqual(thm.turnKey(requestIn("a/t1", null, 5n)), thm.turnKey(requestIn("a", 1, 5n)));
  assert.equal(thm.turnKey(requestIn("é", null, 1n)), "v1/2:é/c/1"); // bytes, not characters
});
