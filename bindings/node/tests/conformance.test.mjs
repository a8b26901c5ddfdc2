// thm/conformance: the suite against a harness written in JavaScript, served by the package.
// Needs the thm tool: the tarball's (node.install, where THM_REQUIRE_TOOL makes its absence
// a failure) or THM_TOOL's; without one these tests are skipped.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { checkIds, conformanceTests, run } from "thm/conformance";

const require = createRequire(import.meta.url);
const { toolPath } = require("../lib/tool.cjs");
const harness = fileURLToPath(new URL("./memory_harness.mjs", import.meta.url));
const hasTool = toolPath() !== null;
if (!hasTool && process.env.THM_REQUIRE_TOOL) throw new Error("THM_REQUIRE_TOOL: no thm tool");

describe("thm/conformance", { skip: hasTool ? false : "no thm tool: set THM_TOOL" }, () => {
  test("a plain JavaScript queue passes, every undeclared capability skipped", async () => {
    const report = await run(`${harness}#MemoryHarness`, { short: true });
    assert.ok(report.passed, report.table);
    const results = Object.fromEntries(report.checks.map((check) => [check.id, check]));
    for (const id of ["EQ-01", "EQ-05", "EQ-09", "EQ-11", "EQ-20", "EQ-21", "EQ-22", "EQ-24"]) {
      assert.equal(results[id].result, "pass", id);
    }
    assert.equal(results["EQ-02"].result, "skip");
    assert.match(results["EQ-16"].reason, /leases/);
    assert.equal(report.json?.harness, "node-memory");
  });

  test("a broken copy fails with the reason, the seed and the replay", async () => {
    const report = await run(`${harness}#ReplayAnsweredEnqueued`, { checks: ["EQ-05"], seed: 7 });
    assert.equal(report.exitCode, 1);
    const [check] = report.checks;
    assert.equal(check.result, "fail");
    assert.equal(check.seed, 7);
    assert.match(check.reason, /got Enqueued/);
    assert.match(check.replay ?? "", /--seed 7 --check EQ-05/);
  });

  test("a harness that cannot be loaded is an error, not a pass", async () => {
    await assert.rejects(run(`${harness}#NoSuchExport`, { checks: ["EQ-05"] }), /could not run/);
  });

  test("npx thm conformance is the tool, with its exit codes", () => {
    const bin = fileURLToPath(new URL("../lib/tool.cjs", import.meta.url));
    const listing = spawnSync(process.execPath, [bin, "conformance", "--list-checks"], { encoding: "utf8" });
    assert.equal(listing.status, 0);
    assert.deepEqual(checkIds().map(([id]) => id), listing.stdout.trim().split("\n").map((line) => line.split("\t")[0]));
    const bad = spawnSync(process.execPath, [bin, "conformance", "--check", "EQ-99"], { encoding: "utf8" });
    assert.equal(bad.status, 2);
  });
});

if (hasTool) describe("conformanceTests", () => conformanceTests(`${harness}#MemoryHarness`, { short: true }));
