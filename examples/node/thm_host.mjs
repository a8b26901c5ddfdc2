// A host in Node.js that asks the `thm` tool who answers and whether a reply dispatches.
//
// Usage: node thm_host.mjs [THM_BINARY] CASES_DIR   (or set THM=path/to/thm). Built-ins only.
// Every answer is asserted, so this file is a test as well as an example (examples/README.md).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

// `thm` refused the request (exit 2): stdin not JSON, an unknown op, an unreadable file.
class ThmError extends Error {}

// Run `thm eval OP` with `payload` on stdin; return the result object. A typed error or a
// refused input is a result too: {error: {variant: ...}}.
// Numbers in thm's output (trigger_sequence, thread_root are u64) can pass 2^53: a host that
// uses such values must parse them losslessly, not with a plain JSON.parse as here.
function evaluate(thm, op, payload) {
  const run = spawnSync(thm, ["eval", op], { input: JSON.stringify(payload), encoding: "utf8" });
  // thm checks the op before it reads stdin: refusing one, it may exit before the input is
  // written, and the write then fails with EPIPE. Its exit status is still the answer.
  if (run.error && !(run.error.code === "EPIPE" && run.status !== null)) throw run.error;
  if (run.status !== 0) {
    throw new ThmError(`thm eval ${op} exited ${run.status}: ${run.stderr.trim()}`);
  }
  return JSON.parse(run.stdout);
}

// Run `thm check`; return [passed, failed]. Failures are printed by thm on stdout.
function check(thm, caseFiles) {
  const run = spawnSync(thm, ["check", ...caseFiles], { encoding: "utf8" });
  if (run.error) throw run.error;
  if (run.status !== 0 && run.status !== 1) {
    throw new ThmError(`thm check exited ${run.status}: ${(run.stdout + run.stderr).trim()}`);
  }
  if (run.status === 1) process.stdout.write(run.stdout);
  const [, passed, failed] = run.stdout.match(/^(\d+) passed, (\d+) failed$/m);
  return [Number(passed), Number(failed)];
}

function main(args) {
  if (!(args.length === 2 || (args.length === 1 && process.env.THM))) {
    console.error("usage: thm_host.mjs [THM_BINARY] CASES_DIR  (or THM=... in the environment)");
    process.exit(2);
  }
  const [thm, casesDir] = args.length === 2 ? args : [process.env.THM, args[0]];

  // The host's own state, in the wire forms of SPEC §6: three agents and one desk.
  const roster = {
    members: [
      { id: "orch", name: null }, { id: "bob", name: "Bob" }, { id: "carol", name: "Carol" },
    ],
    people: [{ id: "ada", label: "Ada" }], retired: [], tombstoned: [],
  };
  const desks = {
    declared: [{ id: "eng", name: "Engineering", description: null, members: ["bob", "carol"] }],
    added: [], member_additions: [], orders: [], retired: [], tombstoned: [],
  };

  // 1. Ada posts in the eng desk; which mentions does the message hold?
  const body = "@Bob can you look at the flaky build?";
  const { mentions } = evaluate(thm, "resolve_mentions", {
    body, supplied: null, author: { kind: "person", id: "ada" }, roster, desks,
  });
  assert.deepEqual(mentions.map((m) => m.target), [{ kind: "agent", id: "bob" }]);

  // 2. Who answers it? An explicit mention outranks the desk's default.
  const { plan } = evaluate(thm, "responder_plan", {
    request: {
      message: body, chat: "eng", mentions, orchestrator_id: "orch", selection_policy: "allowed",
    },
    roster, desks, candidate_details: [],
  });
  assert.equal(plan.kind, "decided");
  assert.equal(plan.decision.responder_id, "bob");
  assert.equal(plan.decision.rung, "explicit_mention");
  console.log(`run agent ${plan.decision.responder_id} (${plan.decision.rung})`);

  // 3. Bob's reply mentions Carol: may it start one more turn?
  const policy = { enabled: true, max_hops: 1 };
  const reply = {
    key: { trigger_sequence: 41 }, conversation: { desk_id: "eng", thread_root: 7 },
    author_id: "bob",
    content: "@carol the test needs a second pair of eyes",
    mentions: [{ target: { kind: "agent", id: "carol" }, text: "@carol", offset: 0 }], hop: 0,
  };
  let { decision } = evaluate(thm, "mention_dispatch", { policy, input: reply, roster });
  assert.equal(decision.kind, "one");
  const turn = decision.request;
  assert.deepEqual([turn.target_id, turn.child_hop], ["carol", 1]);
  console.log(`enqueue a turn for ${turn.target_id} at hop ${turn.child_hop}`);

  // 4. Carol answers at hop 1 and mentions Bob back: the hop limit stops the ping-pong.
  const answer = {
    ...reply, key: { trigger_sequence: 42 }, author_id: "carol", hop: turn.child_hop,
    content: "@bob found it",
    mentions: [{ target: { kind: "agent", id: "bob" }, text: "@bob", offset: 0 }],
  };
  ({ decision } = evaluate(thm, "mention_dispatch", { policy, input: answer, roster }));
  assert.deepEqual(decision, { kind: "none", reason: "hop_limit_reached" });
  console.log(`no new turn: ${decision.reason}`);

  // 5. A refused input is a result, not a crash: the path points at the bad value ...
  const refused = evaluate(thm, "mention_dispatch",
                           { policy, input: { ...reply, hop: -1 }, roster });
  assert.equal(refused.error.variant, "Decode");
  assert.equal(refused.error.path, "/input/input/hop");
  // ... while an unknown op (or stdin that is not JSON) is exit 2, with the reason on stderr,
  // even when thm exits before it could be sent all of its input (more than a pipe holds).
  assert.throws(() => evaluate(thm, "mention_dispatch_v9", { pad: "x".repeat(1 << 20) }),
                (e) => e instanceof ThmError && /unknown op/.test(e.message));

  // 6. The shared case files, with thm as the reference runner.
  const files = readdirSync(casesDir).filter((f) => f.endsWith(".json")).sort()
    .map((f) => join(casesDir, f));
  const [passed, failed] = check(thm, files);
  assert.ok(failed === 0 && passed > 0, `${passed} passed, ${failed} failed`);
  console.log(`cases: ${passed} passed, ${failed} failed`);
}

main(process.argv.slice(2));
