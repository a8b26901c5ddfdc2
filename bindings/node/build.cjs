"use strict";
// `npm install`'s build of the addon: the node-gyp bundled with npm, pointed at the headers
// of the Node.js that runs it (Debian's nodejs keeps them in /usr/include/node; an official
// tarball or a version manager in <prefix>/include/node), so it never downloads them.
// Without them it stops and says which package to install. A second run for the same
// Node.js (npm runs it again when a project installs the package) builds only what changed.
const { spawnSync } = require("node:child_process");
const { existsSync, readFileSync, writeFileSync } = require("node:fs");
const { join, resolve } = require("node:path");

const nodedir = process.env.npm_config_nodedir || resolve(process.execPath, "..", "..");
const header = join(nodedir, "include", "node", "node_api.h");
if (!existsSync(header)) {
  console.error(
    `thm: Node.js's headers are not at ${header}.\n` +
      "Install them with Node.js (Debian: apt-get install nodejs, or libnode-dev for its own " +
      "node), or run npm with --nodedir=<the prefix that has include/node>.",
  );
  process.exit(1);
}
// npm runs install scripts with its own node-gyp first on PATH, and names it here.
const gyp = process.env.npm_config_node_gyp;
const [command, prefix] = gyp ? [process.execPath, [gyp]] : ["node-gyp", []];
const stamp = join(__dirname, "build", "thm-build.json");
const configured = JSON.stringify({ node: process.version, nodedir });
const same = existsSync(stamp) && readFileSync(stamp, "utf8") === configured;
const run = (...args) => {
  const done = spawnSync(command, [...prefix, ...args], { cwd: __dirname, stdio: "inherit" });
  if (done.error) {
    console.error(`thm: could not run ${command}: ${done.error.message} (npm runs this script with its own node-gyp)`);
    process.exit(1);
  }
  if (done.status !== 0) process.exit(done.status ?? 1);
};
const jobs = `--jobs=${process.env.JOBS || "max"}`;
if (same) {
  run("build", jobs);
} else {
  run("rebuild", `--nodedir=${nodedir}`, jobs);
  writeFileSync(stamp, configured);
}
