#!/usr/bin/env node
// `npx thm ARGS` (the package's bin): the thm tool this package carries beside its prebuilt
// addon (prebuilds/<platform>-<arch>/thm, with the libraries it needs), or the one named by
// THM_TOOL. `npx thm conformance ...` is the conformance suite with its options, reports and
// exit codes; a signal this process gets is passed on, and ends it as the tool's exit did.
"use strict";

const { spawn } = require("node:child_process");
const { existsSync } = require("node:fs");
const { join } = require("node:path");

/** The tool to run, or null when this install has none (a build from the sources). */
function toolPath() {
  if (process.env.THM_TOOL) return process.env.THM_TOOL;
  const bundled = join(__dirname, "..", "prebuilds", `${process.platform}-${process.arch}`, "thm");
  return existsSync(bundled) ? bundled : null;
}

function main() {
  const tool = toolPath();
  if (tool === null) {
    console.error("thm: this install of thm has no thm tool: the npm package carries one for " +
                  "linux-x64 (prebuilds/), a build from its sources does not. Build it from the " +
                  "repository (cmake -S kit) and name it in THM_TOOL");
    process.exit(2);
  }
  const child = spawn(tool, process.argv.slice(2), { stdio: "inherit" });
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (error) => {
    console.error(`thm: cannot run ${tool}: ${error.message}`);
    process.exit(2);
  });
  child.on("exit", (code, signal) => {
    process.exit(code ?? 128 + (signal ? require("node:os").constants.signals[signal] : 0));
  });
}

if (require.main === module) main();
module.exports = { toolPath };
