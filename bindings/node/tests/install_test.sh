#!/usr/bin/env bash
# Builds the npm tarball as scripts/package does (package.mjs) and installs it the way a host
# would: offline, into a new project, with only node, npm, npx and sh on PATH (no compiler, CMake
# or make). Checks with ldd that the addon loads nothing from outside the package but the C
# runtime, and runs the package's tests (every shared case among them) on the installed copy.
# Runs the LangGraph.js example on it, installed with npm alone. Then removes the prebuilt
# addon and builds it from the tarball's own sources (build.cjs),
# as a platform without a prebuilt would, and runs the cases again. The tarball carries the
# thm tool named by THM_PACKAGE_TOOL (scripts/package_tool): `npx thm` runs it, with the
# same ldd check.
#     install_test.sh WORK_DIR
# Everything is made under WORK_DIR (emptied first), the fallback's build included, so that
# a compiler cache keyed on paths relative to it finds that build again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
scratch="$1"
: "${THM_PACKAGE_TOOL:?names the thm tool the tarball carries: scripts/package_tool DIR prints it}"
# WORK_DIR is emptied: only one this script made (it holds the marker) or none at all.
if [ -e "$scratch" ] && [ ! -f "$scratch/.thm-install-test" ]; then
  echo "install_test: $scratch exists and is not a work directory of this test; not deleting it" >&2
  exit 2
fi
rm -rf "$scratch"
mkdir -p "$scratch/bin" "$scratch/host"
touch "$scratch/.thm-install-test"

node "$here/../package.mjs" "$scratch/dist"
tarball=("$scratch"/dist/thm-*.tgz)
for tool in node npm npx sh; do ln -s "$(command -v "$tool")" "$scratch/bin/$tool"; done
bare=(env PATH="$scratch/bin")

cd "$scratch/host"
echo '{ "name": "host", "private": true, "type": "module" }' >package.json
"${bare[@]}" npm install --offline --no-audit --no-fund --loglevel=error "${tarball[0]}"
installed="$scratch/host/node_modules/thm"
[ ! -L "$installed" ] || { echo "install_test: $installed is a link, not a copy" >&2; exit 1; }
[ ! -e "$installed/build" ] || { echo "install_test: the install built the addon" >&2; exit 1; }

# Nothing from outside the package but the C runtime, for the addon and the tool.
for binary in thm.node thm; do
  ldd "$installed/prebuilds/linux-x64/$binary" | tee "$scratch/ldd.txt"
  if grep -v -E "^\s*(linux-vdso|/lib64/ld-linux|lib(c|m)\.so\.6 => /lib)|=> $installed/prebuilds/" "$scratch/ldd.txt"; then
    echo "install_test: $binary loads the libraries above from outside the package" >&2
    exit 1
  fi
done
# The tool, as `npx thm`: its version, the suite with its exit codes, and a store this
# build does not carry refused as bad usage.
"${bare[@]}" npx --offline thm --version | grep -qx "thm $(node -p 'require("./node_modules/thm/package.json").version')"
"${bare[@]}" npx --offline thm conformance --short --queue memory >/dev/null 2>&1
status=0
"${bare[@]}" npx --offline thm conformance --queue sqlite:q.db 2>"$scratch/sqlite.txt" || status=$?
[ "$status" = 2 ] && grep -q "built without the SQLite store" "$scratch/sqlite.txt"

cat >esm.mjs <<'JS'
import thm, { mentionDispatch, version } from "thm";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const where = realpathSync(require.resolve("thm"));
assert.ok(where.startsWith(process.argv[2]), where);
assert.equal(thm.mentionDispatch, mentionDispatch);
assert.equal(require("thm").QueueError, thm.QueueError);  // one module for both ways in
console.log("thm", version, "for node", process.version, "at", where);
JS
"${bare[@]}" node esm.mjs "$installed"

# The package's tests, beside the installed copy (lossless-json, which they use too, came
# with it); with the tool, the suite's tests must run, not skip.
cp -r "$here" "$installed/tests"
THM_REQUIRE_TOOL=1 THM_CASES="$root/model/cases:$root/cli/cases" "${bare[@]}" node --test "$installed/tests/"

# The LangGraph.js example, as its README runs it with npm alone: its own locked
# dependencies, then the tarball.
example="$scratch/langgraph"
mkdir "$example"
cp "$root"/examples/node/langgraph/{package.json,package-lock.json,team.mjs,team.test.mjs} "$example/"
(cd "$example" &&
  "${bare[@]}" npm ci --offline --no-audit --no-fund --loglevel=error &&
  "${bare[@]}" npm install --offline --no-save --no-audit --no-fund --loglevel=error "${tarball[0]}" &&
  "${bare[@]}" node --test team.test.mjs | tail -8)

# No prebuilt for this platform: npm's install script builds from the tarball's sources.
rm -rf "$installed/prebuilds"
(cd "$installed" && node build.cjs >/dev/null)
THM_CASES="$root/model/cases:$root/cli/cases" "${bare[@]}" node --test "$installed/tests/cases.test.mjs" | tail -8
rm -rf "$scratch"
echo "install_test: $(basename "${tarball[0]}") installed without a compiler, built from its sources, and tested for node $(node --version)"
