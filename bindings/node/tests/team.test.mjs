// @ts-check
// thm.prepareTeam, the prepared form of a chat's snapshots (adr/0016): made once per roster
// change, it answers every decision as the snapshots do, and refuses what they refuse.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as thm from "thm";

/** @type {thm.RosterSnapshot} */
const roster = {
  members: [{ id: "ada", name: "Ada" }, { id: "bob", name: null }],
  people: [],
  retired: [],
  tombstoned: [],
};
/** @type {thm.DeskSnapshot} */
const desks = {
  declared: [
    { id: "eng", name: "Engineering", description: null, members: ["ada", "bob"], responder_mode: "auto" },
  ],
  added: [],
  member_additions: [],
  orders: [],
  retired: [],
  tombstoned: [],
};
const team = thm.prepareTeam({ roster, desks });
const body = "@ada and @#eng, then @bob";
/** @type {thm.MentionAuthor} */
const author = { kind: "person", id: "p1" };
const policy = { enabled: true, max_hops: 3 };

/** `value`, deliberately of a type the declarations refuse: what a bad caller passes.
 * @param {unknown} value
 * @returns {any} */
const untyped = (value) => value;

test("prepareTeam throws what the decisions would", () => {
  const twice = { ...roster, members: [roster.members[1], roster.members[1]] };
  assert.throws(() => thm.prepareTeam({ roster: twice, desks }), (error) =>
    error instanceof thm.RosterError && error.variant === "DuplicateRosterMemberId");
  const reserved = { ...desks, declared: [{ ...desks.declared[0], id: "main" }] };
  assert.throws(() => thm.prepareTeam({ roster, desks: reserved }), (error) =>
    error instanceof thm.DeskError && error.variant === "ReservedDeskIdentity");
  assert.throws(() => thm.prepareTeam(untyped({ roster })), TypeError);
});

test("a team is frozen and shows its snapshots", () => {
  assert.ok(Object.isFrozen(team));
  assert.deepEqual(Object.keys(team), ["roster", "desks"]);
  assert.deepEqual(team.roster, thm.fromJSON("RosterSnapshot", roster));
});

test("every decision answers on a team as on the snapshots", () => {
  const mentions = thm.resolveMentions(body, { supplied: null, author, roster, desks });
  assert.equal(mentions.length, 3);
  assert.deepEqual(thm.resolveMentions(body, { supplied: null, author, team }), mentions);
  assert.equal(thm.directResponder(mentions, { team }), "ada");
  assert.deepEqual(thm.mentionedMembers(mentions, { addressed_desk: "eng", responder: "ada", team }), ["bob"]);
  /** @type {thm.ResponderRequest} */
  const request = {
    message: "hi", chat: "eng", mentions: [], orchestrator_id: "ada", selection_policy: "allowed",
  };
  assert.deepEqual(
    thm.responderPlan(request, { candidate_details: [], team }),
    thm.responderPlan(request, { candidate_details: [], roster, desks }),
  );
  /** @type {thm.MentionDispatchInput} */
  const input = {
    key: { trigger_sequence: 2n },
    conversation: { desk_id: "eng", thread_root: null },
    author_id: "ada",
    content: "@bob",
    mentions: [{ target: { kind: "agent", id: "bob" }, text: "@bob", offset: 0 }],
    hop: 0,
  };
  assert.deepEqual(thm.mentionDispatch({ policy, input, team }), thm.mentionDispatch({ policy, input, roster }));
  let calls = 0;
  const queue = {
    /** @returns {thm.EnqueueOutcome} */
    enqueueOnce() {
      calls += 1;
      return { status: "enqueued" };
    },
  };
  assert.deepEqual(thm.dispatchMention(queue, { policy, input, team }), { status: "enqueued" });
  assert.equal(calls, 1);
  const conversation = { desk_id: "eng", desk_name: "Engineering", thread_root: null };
  assert.deepEqual(
    thm.teamBriefing({ viewer_id: "ada", conversation, team }),
    thm.teamBriefing({ viewer_id: "ada", conversation, roster, desks }),
  );
});

test("a team where one is expected, and not beside snapshots", () => {
  assert.throws(() => thm.resolveMentions(body, { author, team: untyped(roster) }),
    { name: "TypeError", message: /resolveMentions\(team\): expected a team made by thm\.prepareTeam/ });
  assert.throws(() => thm.directResponder([], untyped({ team, roster })),
    { name: "TypeError", message: /not both/ });
  assert.throws(() => thm.teamBriefing({
    viewer_id: "ada", conversation: { desk_id: "nowhere", desk_name: "x", thread_root: null }, team,
  }), thm.DeskError);
});
