// @ts-check
// dispatchMentionAsync: the queue's enqueueOnce is awaited, and what it resolves to or rejects
// with becomes exactly what dispatchMention makes of the same answer or throw. (The case
// files run through both: cases.test.mjs.)
import assert from "node:assert/strict";
import { test } from "node:test";
import * as thm from "thm";
import { args, roster } from "./dispatch_fixture.mjs";


/**
 * A queue whose `enqueueOnce` awaits, then answers `answer(request)`, counting its calls.
 * @param {(request: thm.MentionTurnRequest) => any} answer
 */
function asyncQueue(answer) {
  return {
    calls: /** @type {thm.MentionTurnRequest[]} */ ([]),
    /** @param {thm.MentionTurnRequest} request */
    async enqueueOnce(request) {
      this.calls.push(request);
      await new Promise((resolve) => setImmediate(resolve)); // a real turn of the event loop
      return answer(request);
    },
  };
}

test("the queue is awaited once with the request, and its answer is the outcome", async () => {
  const queue = asyncQueue(() => ({ status: "enqueued" }));
  assert.deepEqual(await thm.dispatchMentionAsync(queue, args), { status: "enqueued" });
  assert.deepEqual(queue.calls.map((r) => r.target_id), ["bob"]);
  const refused = asyncQueue(() => ({ status: "refused", reason: "unauthorized" }));
  assert.deepEqual(await thm.dispatchMentionAsync(refused, args), { status: "refused", reason: "unauthorized" });
});

test("on a prepared team too", async () => {
  const team = thm.prepareTeam({ roster, desks: { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] } });
  const queue = asyncQueue(() => ({ status: "already" }));
  const { roster: _, ...rest } = args;
  assert.deepEqual(await thm.dispatchMentionAsync(queue, { ...rest, team }), { status: "already" });
  assert.equal(queue.calls.length, 1);
});

test("a declined dispatch never calls the queue", async () => {
  const queue = asyncQueue(() => ({ status: "enqueued" }));
  const closed = { ...args, policy: { enabled: false, max_hops: 3 } };
  assert.deepEqual(await thm.dispatchMentionAsync(queue, closed), { status: "not_dispatched", reason: "disabled" });
  assert.equal(queue.calls.length, 0);
});

test("a queue that answers synchronously serves too", async () => {
  const queue = { enqueueOnce: () => /** @type {const} */ ({ status: "already" }) };
  assert.deepEqual(await thm.dispatchMentionAsync(queue, args), { status: "already" });
});

test("the queue's own QueueError comes back as it was", async () => {
  const failure = new thm.QueueError("indeterminate", "the commit's answer was lost");
  await assert.rejects(thm.dispatchMentionAsync(asyncQueue(() => { throw failure; }), args), (error) => error === failure);
});

for (const [what, answer] of /** @type {[string, () => any][]} */ ([
  ["throws a TypeError", () => { throw new TypeError("no such column"); }],
  ["throws a string", () => { throw "down"; }],
  ["answers 42", () => 42],
  ["answers an unknown status", () => ({ status: "done" })],
])) {
  test(`a queue that ${what} is the QueueError dispatchMention makes of it`, async () => {
    /** @type {any} */
    let called;
    try {
      thm.dispatchMention({ enqueueOnce: answer }, args);
    } catch (error) {
      called = error;
    }
    /** @type {any} */
    let awaited;
    try {
      await thm.dispatchMentionAsync(asyncQueue(answer), args);
    } catch (error) {
      awaited = error;
    }
    assert.ok(awaited instanceof thm.QueueError && called instanceof thm.QueueError);
    assert.equal(awaited.kind, "internal");
    assert.deepEqual(awaited.toJSON(), called.toJSON());
    assert.deepEqual(awaited.cause, called.cause);
  });
}

test("bad arguments are the errors dispatchMention throws, as a rejection", async () => {
  const ok = asyncQueue(() => ({ status: "enqueued" }));
  await assert.rejects(thm.dispatchMentionAsync(/** @type {any} */ ({}), args), /expected an object with enqueueOnce/);
  await assert.rejects(thm.dispatchMentionAsync(ok, /** @type {any} */ ({ policy: args.policy })), TypeError);
  const twice = { ...roster, members: [roster.members[1], roster.members[1]] };
  await assert.rejects(thm.dispatchMentionAsync(ok, /** @type {thm.DispatchArgs} */ ({ ...args, roster: twice })), thm.RosterError);
  assert.equal(ok.calls.length, 0);
});

test("the sync call refuses a promise and names the async one", () => {
  const queue = /** @type {any} */ (asyncQueue(() => ({ status: "enqueued" })));
  assert.throws(() => thm.dispatchMention(queue, args),
    (error) => error instanceof thm.QueueError && error.kind === "internal" && /dispatchMentionAsync/.test(error.message));
});

// ---- one queue for dispatchMention and the suite: the canonical key ---------------------------

test("turnKey of what dispatchMentionAsync hands the queue", async () => {
  /** @type {string[]} */
  const keys = [];
  const queue = {
    /** @param {thm.MentionTurnRequest} request */
    async enqueueOnce(request) {
      keys.push(thm.turnKey(request));
      return /** @type {const} */ ({ status: "enqueued" });
    },
  };
  assert.deepEqual(await thm.dispatchMentionAsync(queue, args), { status: "enqueued" });
  assert.deepEqual(keys, ["v1/3:eng/t7/18446744073709551615"]);
});

test("plain arguments changed while the queue is awaited do not change the outcome", async () => {
  // The decision is made once, from the arguments as they were when the call began: a
  // queue that retires the target, or rewrites the reply, before it answers is answered
  // for the turn it enqueued.
  /** @type {any} */
  const plainRoster = structuredClone(roster);
  /** @type {any} */
  const plain = { ...args, roster: plainRoster, input: structuredClone(args.input) };
  const retiring = asyncQueue(() => {
    plainRoster.retired.push("bob");
    plain.input.mentions = [];
    return { status: "enqueued" };
  });
  assert.deepEqual(await thm.dispatchMentionAsync(retiring, plain), { status: "enqueued" });
  assert.deepEqual(retiring.calls.map((r) => r.target_id), ["bob"]);
});
