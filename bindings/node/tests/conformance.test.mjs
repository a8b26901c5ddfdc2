// thm/conformance: the suite against a harness written in JavaScript, served by the package.
// Needs the thm tool: the tarball's (node.install, where THM_REQUIRE_TOOL makes its absence
// a failure) or THM_TOOL's; without one these tests are skipped.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    assert.match(check.replay ?? "", /^npx thm conformance .*--seed 7 --check EQ-05/);
    assert.match(check.replay ?? "", new RegExp(harness.replaceAll("/", "\\/")));  // absolute
  });

  test("every run's history is written for another checker", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "thm-history-")), "history.json");
    const report = await run(`${harness}#MemoryHarness`, { checks: ["EQ-05"], history: path });
    assert.ok(report.passed, report.table);
    /** @type {{ type: string, f: string, value: { answer?: string } }[]} */
    const history = JSON.parse(readFileSync(path, "utf8")).checks[0].runs[0].history;
    const enqueues = history.filter((entry) => entry.f === "enqueue");
    assert.deepEqual(enqueues.slice(0, 2).map((entry) => entry.type), ["invoke", "ok"]);
    const answers = enqueues.filter((entry) => entry.type === "ok").map((entry) => entry.value.answer);
    assert.deepEqual(new Set(answers), new Set(["enqueued", "already"]));
  });

  test("a class, named by a file: URL, is made with new, arrow-function fields and all", async () => {
    const report = await run(new URL("./memory_harness.mjs#ArrowFields", import.meta.url),
                             { checks: ["EQ-05"] });
    assert.ok(report.passed, report.stderr.slice(-2000));
  });

  test("a harness may print while it is imported", async () => {
    const noisy = join(mkdtempSync(join(tmpdir(), "thm-noisy-")), "noisy.mjs");
    writeFileSync(noisy, `console.log("hello from import");\nexport { MemoryHarness } from ${JSON.stringify(harness)};\n`);
    const report = await run(`${noisy}#MemoryHarness`, { checks: ["EQ-05"] });
    assert.ok(report.passed, report.stderr.slice(-2000));
  });

  test("a harness that cannot be loaded is an error that says why", async () => {
    await assert.rejects(run(`${harness}#NoSuchExport`, { checks: ["EQ-05"] }),
                         /could not run \(exit 2\): thm conformance adapter: cannot load .*has no export NoSuchExport/);
    await assert.rejects(run(`${harness}#MAX`, { checks: ["EQ-05"] }), /has no export|neither a harness/);
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
