// @ts-check
// Every case of every shared case file and of the project's own (cli/cases), through the
// Node.js package (spec/cases.md).
import assert from "node:assert/strict";
import { test } from "node:test";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OPERATIONS, caseFiles, loadCases, matches, runOp } from "./case_runner.mjs";

// THM_CASES: the case folders, separated as PATH is.
const directory =
  process.env.THM_CASES ??
  ["../../../model/cases", "../../../cli/cases"]
    .map((folder) => fileURLToPath(new URL(folder, import.meta.url)))
    .join(path.delimiter);
const files = directory.split(path.delimiter).flatMap(caseFiles);
const cases = files.flatMap(loadCases);

test("the case files are there", () => {
  // A runner that found no cases would pass every case it ran: refuse that.
  assert.ok(files.length >= 9, `no case files under ${directory}`);
  assert.ok(cases.length >= 200, `only ${cases.length} cases under ${directory}`);
});

test("every operation of the cases is answered here", () => {
  const missing = [...new Set(cases.map((c) => c.op))].filter((op) => !(op in OPERATIONS));
  assert.deepEqual(missing, []);
});

for (const prepared of [false, true]) {
  for (const c of cases) {
    test(`${c.name} [${prepared ? "team" : "snapshots"}]`, () => {
      const actual = runOp(c.op, c.input, prepared);
      assert.ok(
        matches(c.expected, actual),
        `${c.name}\n  op: ${c.op}\n  expected: ${show(c.expected)}\n  actual: ${show(actual)}`,
      );
    });
  }
}

const dispatches = cases.filter((c) => c.op === "dispatch_mention");

test("the async port has cases", () => {
  assert.ok(dispatches.length >= 5, `only ${dispatches.length} dispatch_mention cases`);
});

for (const prepared of [false, true]) {
  for (const c of dispatches) {
    test(`${c.name} [${prepared ? "team" : "snapshots"}, dispatchMentionAsync]`, async () => {
      const actual = await runOp(c.op, c.input, prepared, true);
      assert.ok(
        matches(c.expected, actual),
        `${c.name}\n  expected: ${show(c.expected)}\n  actual: ${show(actual)}`,
      );
    });
  }
}

/** @param {unknown} value */
function show(value) {
  return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
}
