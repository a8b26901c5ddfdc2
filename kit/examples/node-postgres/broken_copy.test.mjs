// A broken copy of the queue fails the right tests: the suite, run from node --test against
// broken_turn_queue.mjs (an already answered as enqueued), fails exactly the checks that make
// a replay or a race, each for that reason, and passes the others.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

// Races (EQ-01, EQ-02, EQ-07), replays (EQ-05, EQ-06, EQ-10, EQ-22, EQ-23, EQ-31, EQ-34),
// the retry after an error (EQ-33), keys that must fold together (EQ-20), random sequences
// against the model (EQ-25) and sessions at once (EQ-35).
const CAUGHT = ["EQ-01", "EQ-02", "EQ-05", "EQ-06", "EQ-07", "EQ-10", "EQ-20", "EQ-22", "EQ-23",
                "EQ-25", "EQ-31", "EQ-33", "EQ-34", "EQ-35"];

test("the suite fails exactly the checks that catch the bug", () => {
  const suite = fileURLToPath(new URL("./broken_conformance.mjs", import.meta.url));
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;  // the inner run is a run of its own, reporting TAP here
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", suite],
                        { encoding: "utf8", env, maxBuffer: 1 << 26 });
  assert.equal(run.status, 1, run.stdout.slice(-3000) + run.stderr.slice(-3000));
  const failed = [...run.stdout.matchAll(/^not ok \d+ - (EQ-\d+)/gm)].map((match) => match[1]);
  assert.deepEqual(failed.sort(), CAUGHT, run.stdout.slice(-3000));
  const passed = [...run.stdout.matchAll(/^ok \d+ - (EQ-\d+)[^#\n]*$/gm)].map((match) => match[1]);
  for (const id of ["EQ-09", "EQ-11", "EQ-19", "EQ-26"]) assert.ok(passed.includes(id), id);
  assert.match(run.stdout, /EQ-05 a replay answers Already, also after the store reopens failed: replay 1 got Enqueued/);
  assert.match(run.stdout, /replay: npx thm conformance .*--seed 1 --check EQ-05/);
});
