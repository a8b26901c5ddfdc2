// Writes the npm package's tarball into DIST: thm-VERSION.tgz, with a prebuilt addon for this
// platform that loads without an install script, and the sources to build it elsewhere.
//
//   node bindings/node/package.mjs DIST
//
// The tarball holds lib/, build.cjs, README.md, package.json (with a `files` list), the
// headers of node-addon-api (a bundled dependency: installing asks no registry), the
// prebuilt addon in prebuilds/<platform>-<arch>/ with every shared library it needs beyond
// the C runtime (ICU, the C++ runtime; found through its RPATH, $ORIGIN), and under
// repository/ the sources build.cjs builds from where no prebuilt fits. Prints its path and
// size. Compiles go through ccache when CMAKE_CXX_COMPILER_LAUNCHER says so.
import { spawnSync } from "node:child_process";
import {
  chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const require = createRequire(import.meta.url);
// The C runtime every Linux has, and the loader: never bundled.
const SYSTEM_LIBRARIES = /^(linux-vdso|ld-linux[-\w]*|libc|libm|libpthread|libdl|librt)\.so/;
// What the fallback build reads of the repository: what configuring the addon alone reads.
const REPOSITORY = ["CMakeLists.txt", "cmake", "core", "json"];
// The package itself; and of it, what the fallback build configures.
const PACKAGE = ["build.cjs", "README.md", "lib"];
const ADDON = ["CMakeLists.txt", "package.json", "lib", "src"];

/** Runs `command`, failing the script with its output if it fails; its stdout. */
function run(command, args, options = {}) {
  const done = spawnSync(command, args,
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], ...options });
  if (done.status !== 0) {
    const why = done.error?.message ?? done.status;
    throw new Error(`package: ${command} ${args.join(" ")} failed (${why})\n${done.stdout ?? ""}`);
  }
  return done.stdout;
}

/** The addon built for this Node.js, with an RPATH of $ORIGIN; its path. */
function buildAddon() {
  const build = join(root, "build", "package-node");
  const ninja = spawnSync("ninja", ["--version"]).status === 0;
  run("cmake", [
    "-S", root, "-B", build, ...(ninja ? ["-G", "Ninja"] : []), "-DCMAKE_BUILD_TYPE=Release",
    "-DTHM_WITH_NODE=ON", "-DTHM_BUILD_TESTS=OFF", "-DTHM_WITH_CLI=OFF", "-DTHM_WITH_PYTHON=OFF",
    "-DTHM_INSTALL=OFF", `-DTHM_NODE_EXECUTABLE=${process.execPath}`, "-DTHM_NODE_RPATH=$ORIGIN",
    `-DTHM_NODE_ADDON_API_DIR=${require("node-addon-api").include_dir}`,
  ], { stdio: ["ignore", "ignore", "inherit"] });
  run("cmake", ["--build", build, "--target", "thm_node"],
    { stdio: ["ignore", "ignore", "inherit"] });
  return join(build, "bindings", "node", "build", "Release", "thm.node");
}

/** The shared libraries `binary` loads beyond the C runtime, as the loader finds them. */
function bundled(binary) {
  const found = [];
  for (const line of run("ldd", [binary]).split("\n")) {
    const [name, where] = line.trim().split(" => ");
    if (where === undefined || SYSTEM_LIBRARIES.test(name)) continue;
    if (where.startsWith("not found")) {
      throw new Error(`package: ${basename(binary)} needs ${name}, which the loader cannot find`);
    }
    found.push(where.split(" (")[0]);
  }
  return found;
}

/** Copies `from` to `to`, test sources left out. */
function copy(from, to) {
  cpSync(from, to, {
    recursive: true,
    filter: (path) => !/(_test\.cpp|\/tests|\/node_modules|\/build)$/.test(path),
  });
}

function main(dist) {
  const stage = join(mkdtempSync(join(tmpdir(), "thm-npm-")), "thm");
  try {
    for (const file of PACKAGE) copy(join(here, file), join(stage, file));
    for (const file of REPOSITORY) copy(join(root, file), join(stage, "repository", file));
    const addonSources = join(stage, "repository", "bindings", "node");
    for (const file of ADDON) copy(join(here, file), join(addonSources, file));
    const prebuilds = join(stage, "prebuilds", `${process.platform}-${process.arch}`);
    mkdirSync(prebuilds, { recursive: true });
    const addon = buildAddon();
    copyFileSync(addon, join(prebuilds, "thm.node"));
    const binaries = [addon];
    if (process.env.THM_PACKAGE_TOOL) {
      // The thm tool (adr/0022), built once by scripts/package for both packages.
      copyFileSync(process.env.THM_PACKAGE_TOOL, join(prebuilds, "thm"));
      chmodSync(join(prebuilds, "thm"), 0o755);
      binaries.push(process.env.THM_PACKAGE_TOOL);
    }
    const libraries = new Set(binaries.flatMap((binary) => bundled(binary)));
    for (const library of libraries) copyFileSync(library, join(prebuilds, basename(library)));

    // The dependencies travel inside the tarball, so that installing it asks no registry for
    // anything: node-addon-api (headers, for the fallback build) and lossless-json (the
    // conformance harness reads u64s exactly).
    const manifest = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
    manifest.bundleDependencies = Object.keys(manifest.dependencies);
    for (const dependency of manifest.bundleDependencies) {
      const folder = join("node_modules", dependency);
      cpSync(join(here, folder), join(stage, folder), { recursive: true });
    }
    delete manifest.private;
    delete manifest.devDependencies;
    delete manifest.scripts.test;
    manifest.files = ["lib/", "prebuilds/", "repository/", "build.cjs"];
    writeFileSync(join(stage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

    mkdirSync(dist, { recursive: true });
    const packed = run("npm", ["pack", stage, "--pack-destination", dist, "--silent"]);
    const name = packed.trim().split("\n").pop();
    const tarball = join(dist, name);
    console.log(`package: ${tarball} (${(statSync(tarball).size / 1e6).toFixed(1)} MB)`);
  } finally {
    rmSync(dirname(stage), { recursive: true, force: true });
  }
}

if (process.argv.length !== 3) {
  console.error("usage: node bindings/node/package.mjs DIST");
  process.exit(2);
}
main(resolve(process.argv[2]));
