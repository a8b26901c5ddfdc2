// @ts-check
// A host in JavaScript on the native package (`import ... from "thm"`, bindings/node): who
// answers Ada's message, and whether each agent's reply may start one more agent turn.
//
// Usage: node host.mjs. Every answer is asserted, so this file is a test as well as an
// example (examples/README.md); tsc --strict checks it against the package's declarations.
import assert from "node:assert/strict";
import * as thm from "thm";

// The host's own state, made once and reused on every message: three agents, one desk.
// fromJSON checks them once, and every call reads them without converting them again.
const roster = thm.fromJSON("RosterSnapshot", {
  members: [{ id: "orch", name: null }, { id: "bob", name: "Bob" }, { id: "carol", name: "Carol" }],
  people: [{ id: "ada", label: "Ada" }],
  retired: [],
  tombstoned: [],
});
const desks = thm.fromJSON("DeskSnapshot", {
  declared: [{ id: "eng", name: "Engineering", description: null, members: ["bob", "carol"] }],
  added: [],
  member_additions: [],
  orders: [],
  retired: [],
  tombstoned: [],
});
const eng = { desk_id: "eng", thread_root: null };
const policy = { enabled: true, max_hops: 1 };

/** The host's queue (thm.MentionTurnQueue): one child turn per key, kept in memory here. A
 * real host does this in one database transaction (queue-conformance.md). */
class TurnQueue {
  /** @type {Map<string, thm.MentionTurnRequest>} */
  turns = new Map();

  /** @param {thm.MentionTurnRequest} request @returns {thm.EnqueueOutcome} */
  enqueueOnce(request) {
    // One key per (conversation, trigger sequence), the thread included (SPEC §3.3).
    const { desk_id, thread_root } = request.conversation;
    const key = JSON.stringify([desk_id, thread_root?.toString() ?? null, `${request.key.trigger_sequence}`]);
    if (this.turns.has(key)) return { status: "already" };
    this.turns.set(key, request);
    return { status: "enqueued" };
  }
}

/**
 * An agent's committed reply, with its mentions resolved by thm.
 * @param {bigint} sequence
 * @param {string} author
 * @param {string} content
 * @param {number} hop
 */
function reply(sequence, author, content, hop) {
  const mentions = thm.resolveMentions(content, { author: { kind: "agent", id: author }, roster, desks });
  return { key: { trigger_sequence: sequence }, conversation: eng, author_id: author, content, mentions, hop };
}

// 1. Ada posts in the eng desk: which mentions does the message hold?
const body = "@Bob can you look at the flaky build?";
const mentions = thm.resolveMentions(body, { author: { kind: "person", id: "ada" }, roster, desks });
assert.deepEqual(mentions.map((m) => m.target), [{ kind: "agent", id: "bob" }]);

// 2. Who answers it? Bob, named directly.
const plan = thm.responderPlan(
  { message: body, chat: "eng", mentions, orchestrator_id: "orch", selection_policy: "allowed" },
  { roster, desks, candidate_details: [] },
);
assert.equal(plan.kind, "decided");
if (plan.kind === "decided") {
  assert.equal(plan.decision.responder_id, "bob");
  assert.equal(plan.decision.rung, "explicit_mention");
}

// 3. Bob's reply hands the build to Carol: one child turn, enqueued exactly once.
const queue = new TurnQueue();
const bobs = reply(2n, "bob", "@carol the flaky test is yours", 0);
assert.deepEqual(thm.dispatchMention(queue, { policy, input: bobs, roster }), { status: "enqueued" });
const [turn] = queue.turns.values();
assert.deepEqual([turn.source_id, turn.target_id, turn.child_hop], ["bob", "carol", 1]);
// The same reply dispatched again (a retry after a crash) finds its turn already there.
assert.deepEqual(thm.dispatchMention(queue, { policy, input: bobs, roster }), { status: "already" });

// 4. Carol answers Bob at hop 1; with max_hops 1 the chain stops here, and the host can
//    tell Carol why in words that name nobody else.
const carols = reply(3n, "carol", "@bob fixed, please re-run", 1);
const outcome = thm.dispatchMention(queue, { policy, input: carols, roster });
assert.deepEqual(outcome, { status: "not_dispatched", reason: "hop_limit_reached" });
assert.equal(queue.turns.size, 1);
if (outcome.status === "not_dispatched") console.log("Carol is told:", thm.display("NoDispatchReason", outcome.reason));

// 5. Bad input is a typed error, never a decision.
assert.throws(
  () => thm.mentionDispatch({ policy, input: { ...carols, hop: -1 }, roster }),
  (error) => error instanceof thm.DecodeError && error.path === "/input/hop",
);
console.log("host.mjs: every answer as expected");
