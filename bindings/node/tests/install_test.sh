#!/usr/bin/env bash
# Installs the package the way README.md says, offline, into a new project, and runs every
# shared case and the package's own tests through the installed copy:
#     install_test.sh WORK_DIR
# README's commands build the addon in the checkout (bindings/node/build); to leave this
# checkout as it is, they run on a copy of the parts of it the package needs, in WORK_DIR
# (emptied first): under the build tree, so that a compiler cache keyed on paths relative to
# the checkout finds the build again.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
scratch="$1"
# WORK_DIR is emptied: only one this script made (it holds the marker) or none at all.
if [ -e "$scratch" ] && [ ! -f "$scratch/.thm-install-test" ]; then
  echo "install_test: $scratch exists and is not a work directory of this test; not deleting it" >&2
  exit 2
fi
rm -rf "$scratch"
mkdir -p "$scratch"
touch "$scratch/.thm-install-test"

checkout="$scratch/thm"
mkdir -p "$checkout/bindings/node" "$checkout/model"
cp -r "$root/CMakeLists.txt" "$root/cmake" "$root/core" "$root/json" "$checkout/"
cp -r "$root/model/cases" "$checkout/model/cases"
(cd "$root/bindings/node" && cp -r package.json package-lock.json build.cjs CMakeLists.txt lib src \
  tests "$checkout/bindings/node/")

# README.md, "Five minutes in TypeScript": the package's dependencies and its build, then
# the package into the host's project. --prefer-offline: from npm's cache, which
# scripts/setup filled.
cd "$checkout"
npm ci --prefix bindings/node --prefer-offline --no-audit --no-fund --loglevel=error
mkdir "$scratch/host"
cd "$scratch/host"
echo '{ "name": "host", "private": true, "type": "module" }' >package.json
npm install "$checkout/bindings/node" --prefer-offline --no-audit --no-fund --loglevel=error

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
node esm.mjs "$checkout/bindings/node"
node -e 'const thm = require("thm"); if (typeof thm.resolveMentions !== "function") process.exit(1)'

# Every test of the package, on the installed copy (which is the checkout's copy, linked).
cd "$checkout/bindings/node"
THM_CASES="$checkout/model/cases" npm test --silent
rm -rf "$scratch"
echo "install_test: installed and tested for node $(node --version)"
