"use strict";
// `npm install`'s build of the addon: the node-gyp bundled with npm, pointed at the headers
// of the Node.js that runs it (Debian's nodejs keeps them in /usr/include/node; an official
// tarball or a version manager in <prefix>/include/node), so it never downloads them.
// Without them it stops and says which package to install.
const { spawnSync } = require("node:child_process");
const { existsSync } = require("node:fs");
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
const [command, args] = gyp ? [process.execPath, [gyp]] : ["node-gyp", []];
const jobs = process.env.JOBS || "max";
const built = spawnSync(command, [...args, "rebuild", `--nodedir=${nodedir}`, `--jobs=${jobs}`], {
  cwd: __dirname,
  stdio: "inherit",
});
process.exit(built.status ?? 1);
