// @ts-check
// The declarations (lib/index.d.ts) name exactly what the package exports at run time, so
// neither can gain or lose a name unnoticed; tsc --strict (CTest node.tsc) checks the rest.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(import.meta.url);

test("index.d.ts declares every export, and nothing else", () => {
  const declarations = readFileSync(require.resolve("../lib/index.d.ts"), "utf8");
  const declared = [...declarations.matchAll(/^export declare (?:function|const|class) (\w+)/gm)].map((m) => m[1]);
  assert.ok(declared.length > 20, "found no declarations");
  assert.deepEqual([...new Set(declared)].sort(), Object.keys(require("thm")).sort());
});

test("the ES module exports the same names as the CommonJS one", async () => {
  const esm = await import("thm");
  assert.deepEqual(Object.keys(esm).filter((name) => name !== "default").sort(), Object.keys(require("thm")).sort());
});
