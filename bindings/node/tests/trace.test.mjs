// @ts-check
// Decision traces from Node (SPEC §8): an array given as `trace` receives the steps, as the
// C++ overloads fill theirs; `operatorLine` is a step's line for operators, `agentSentences`
// what an agent may read.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as thm from "thm";

const roster = {
  members: [{ id: "ada", name: null }, { id: "bob", name: null }],
  people: [],
  retired: ["bob"],
  tombstoned: [],
};
const policy = { enabled: true, max_hops: 3 };

/**
 * @param {string[]} targets
 * @returns {thm.In<thm.MentionDispatchInput>}
 */
function reply(...targets) {
  return {
    key: { trigger_sequence: 1n },
    conversation: { desk_id: "General", thread_root: null },
    author_id: "ada",
    content: "over to you",
    mentions: targets.map((id, i) => ({ target: { kind: /** @type {const} */ ("agent"), id }, text: `@${id}`, offset: 10 * i })),
    hop: 0,
  };
}

test("an array given as trace receives the steps, and the decision is unchanged", () => {
  /** @type {thm.TraceStep[]} */
  const trace = [];
  const traced = thm.mentionDispatch({ policy, input: reply("bob"), roster, trace });
  assert.deepEqual(traced, thm.mentionDispatch({ policy, input: reply("bob"), roster }));
  assert.deepEqual(traced, { kind: "none", reason: "target_inactive" });
  assert.deepEqual(trace.map((step) => step.rule), [
    "enabled", "hop_budget", "validate", "source", "mention", "target", "self_mention", "target_active",
  ]);
  assert.deepEqual(trace.at(-1), {
    rule: "target_active", outcome: "stopped", why: "inactive", subject: "bob", offset: null, count: null,
  });
  assert.equal(thm.operatorLine(trace[4]), "mention @bob at byte 0: chosen");
});

test("the agent reads the same whoever the target was", () => {
  /** @type {thm.TraceStep[]} */
  const retired = [];
  /** @type {thm.TraceStep[]} */
  const nobody = [];
  thm.mentionDispatch({ policy, input: reply("bob"), roster, trace: retired });
  thm.mentionDispatch({ policy, input: reply(), roster, trace: nobody });
  assert.deepEqual(thm.agentSentences(retired), thm.agentSentences(nobody));
  assert.ok(thm.agentSentences(retired).every((sentence) => !sentence.includes("bob")));
});

test("steps are pushed even when the call throws", () => {
  /** @type {thm.TraceStep[]} */
  const trace = [];
  const broken = { ...roster, members: [{ id: "ada", name: null }, { id: "ada", name: null }] };
  assert.throws(() => thm.mentionDispatch({ policy, input: reply("bob"), roster: broken, trace }),
    thm.RosterError);
  assert.equal(trace.at(-1)?.rule, "validate");
  assert.equal(trace.at(-1)?.subject, "DuplicateRosterMemberId");
});

test("a plan and its settling fill one trace", () => {
  /** @type {thm.In<thm.DeskSnapshot>} */
  const desks = {
    declared: [{ id: "eng", name: "Eng", description: null, members: ["ada", "cy"], responder_mode: "auto" }],
    added: [], member_additions: [], orders: [], retired: [], tombstoned: [],
  };
  const team = thm.prepareTeam({
    roster: { ...roster, members: [...roster.members, { id: "cy", name: null }] },
    desks,
  });
  /** @type {thm.In<thm.ResponderRequest>} */
  const request = { message: "who?", chat: "eng", mentions: [], orchestrator_id: "ada", selection_policy: "allowed" };
  /** @type {thm.TraceStep[]} */
  const trace = [];
  const plan = thm.responderPlan(request, { team, candidate_details: [], trace });
  const decision = thm.settleSelection(plan, { selector: { kind: "failed" }, trace });
  assert.equal(decision.disposition, "unavailable");
  assert.deepEqual(trace.slice(-2).map(thm.operatorLine), ["selector: failed", "fallback: ada answers, unavailable"]);
  assert.deepEqual(thm.agentSentences(trace), [
    thm.display("ResponderRung", "desk_default"), thm.display("SelectionDisposition", "unavailable"),
  ]);
});

test("a frozen array is refused before anything is decided", () => {
  assert.throws(
    () => thm.mentionDispatch({ policy, input: reply("bob"), roster, trace: /** @type {any} */ (Object.freeze([])) }),
    /mentionDispatch\(trace\): expected an array steps can be pushed onto/,
  );
});

test("trace must be an array", () => {
  assert.throws(
    () => thm.mentionDispatch({ policy, input: reply(), roster, trace: /** @type {any} */ ("yes") }),
    /mentionDispatch\(trace\): expected an array/,
  );
});

test("a chain with a shape: no return, a turn budget and allowed hand-offs", () => {
  const team = { ...roster, retired: [], members: [...roster.members, { id: "cy", name: null }] };
  const shaped = {
    ...policy,
    no_return: true,
    max_turns_per_agent: 2,
    allowed_handoffs: [{ source_id: "ada", target_id: "cy" }],
  };
  /** @type {thm.TraceStep[]} */
  const trace = [];
  const back = { ...reply("bob"), hop: 1, chain: ["bob"] };
  assert.deepEqual(thm.mentionDispatch({ policy: shaped, input: back, roster: team, trace }), {
    kind: "none",
    reason: "immediate_return",
  });
  assert.equal(trace.at(-1)?.rule, "no_return");
  const elsewhere = { ...reply("bob"), hop: 1, chain: ["cy"] };
  assert.deepEqual(thm.mentionDispatch({ policy: shaped, input: elsewhere, roster: team }), {
    kind: "none",
    reason: "handoff_not_allowed",
  });
  const onward = thm.mentionDispatch({ policy: shaped, input: { ...reply("cy"), hop: 1, chain: ["bob"] }, roster: team });
  assert.equal(onward.kind === "one" && onward.request.target_id, "cy");
  assert.deepEqual(thm.fromJSON("MentionDispatchPolicy", shaped), shaped);
  // Off by default: the same reply straight back dispatches, as it always did.
  assert.equal(thm.mentionDispatch({ policy, input: back, roster: team }).kind, "one");
});

test("a thread keeps its agent", () => {
  const request = { message: "and then?", chat: null, mentions: [], orchestrator_id: "ada", selection_policy: /** @type {const} */ ("allowed"), thread_responder: "bob" };
  const desks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
  assert.deepEqual(thm.responderPlan(request, { candidate_details: [], roster: { ...roster, retired: [] }, desks }), {
    kind: "decided",
    decision: { responder_id: "bob", rung: "thread_responder", disposition: "not_applicable" },
  });
});
