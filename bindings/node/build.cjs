"use strict";
// `npm install`'s build of the addon, unless the tarball's prebuilt one loads: CMake, as the
// checkout builds every other artifact, configured for the addon alone (the core, its wire
// forms and thm.node) against the headers of the Node.js running this script and the
// node-addon-api npm installed. Nothing is downloaded. The result is copied to
// build/Release/thm.node, where lib/addon.cjs loads it.
// A second run for the same Node.js (npm runs it again when a project installs the package)
// builds only what changed.
const { spawnSync } = require("node:child_process");
const { copyFileSync, existsSync, mkdirSync } = require("node:fs");
const { dirname, join, resolve } = require("node:path");

// The tarball's prebuilt addon, when there is one for this platform and it loads: no build.
const prebuilt = join(__dirname, "prebuilds", `${process.platform}-${process.arch}`, "thm.node");
if (existsSync(prebuilt)) {
  try {
    require(prebuilt);
    process.exit(0);
  } catch (error) {
    console.error(`thm: the prebuilt addon does not load here (${error.message}); building it`);
  }
}

const nodedir = process.env.npm_config_nodedir || resolve(process.execPath, "..", "..");
const headers = join(nodedir, "include", "node");
if (!existsSync(join(headers, "node_api.h"))) {
  console.error(
    `thm: Node.js's headers are not in ${headers}.\n` +
      "Install them with Node.js (Debian: apt-get install nodejs, or libnode-dev for its own " +
      "node), or run npm with --nodedir=<the prefix that has include/node>.",
  );
  process.exit(1);
}
// The tarball's sources (repository/), or the checkout this folder is in.
const packed = join(__dirname, "repository");
const root = existsSync(packed) ? packed : resolve(__dirname, "..", "..");
if (!existsSync(join(root, "core", "CMakeLists.txt"))) {
  console.error(`thm: the sources this package builds from are not at ${root} (no core/).`);
  process.exit(1);
}
const run = (command, args) => {
  const done = spawnSync(command, args, { stdio: "inherit" });
  if (done.error) {
    console.error(`thm: could not run ${command}: ${done.error.message} (the build needs CMake ` +
                  "3.25 or later and a C++20 compiler; Debian: apt-get install cmake g++ " +
                  "libicu-dev nlohmann-json3-dev)");
    process.exit(1);
  }
  if (done.status !== 0) process.exit(done.status ?? 1);
};
const build = join(__dirname, "build", "cmake");
const ninja = spawnSync("ninja", ["--version"]).status === 0;
run("cmake", [
  "-S", root, "-B", build, ...(ninja ? ["-G", "Ninja"] : []), "-DCMAKE_BUILD_TYPE=Release",
  "-DTHM_WITH_NODE=ON", "-DTHM_BUILD_TESTS=OFF", "-DTHM_WITH_CLI=OFF", "-DTHM_WITH_PYTHON=OFF",
  "-DTHM_INSTALL=OFF", `-DTHM_NODE_EXECUTABLE=${process.execPath}`,
  `-DTHM_NODE_INCLUDE_DIR=${headers}`,
  `-DTHM_NODE_ADDON_API_DIR=${require("node-addon-api").include_dir}`,
]);
const jobs = process.env.JOBS ? ["-j", process.env.JOBS] : [];
run("cmake", ["--build", build, "--target", "thm_node", ...jobs]);
const built = join(build, "bindings", "node", "build", "Release", "thm.node");
const target = join(__dirname, "build", "Release", "thm.node");
mkdirSync(dirname(target), { recursive: true });
copyFileSync(built, target);
