"use strict";
// The compiled addon: the one `npm install` built from the sources (build.cjs, which runs
// CMake; the checkout's CMake build lays the package out the same way in its build tree), or
// else the tarball's prebuilt one for this platform, which needs no install script.
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const built = join(__dirname, "..", "build", "Release", "thm.node");
const platform = `${process.platform}-${process.arch}`;
const prebuilt = join(__dirname, "..", "prebuilds", platform, "thm.node");
module.exports = require(existsSync(built) ? built : prebuilt);
