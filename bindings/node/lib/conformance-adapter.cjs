"use strict";
// The adapter program the suite starts for a harness written in JavaScript:
//     node conformance-adapter.cjs 'path/to/harness.mjs#exportName'
// (thm/conformance's `run` builds this command). The export is a harness, a class of one, or
// a function that makes one (it may be async); a path is relative to the working directory,
// anything else is imported as a package. Logs go to stderr; stdout carries protocol lines.
const { load, serve } = require("./conformance.cjs");

const target = process.argv[2];
if (process.argv.length !== 3 || !target) {
  console.error("usage: node conformance-adapter.cjs 'path/to/harness.mjs#exportName'");
  process.exit(2);
}
console.log = console.error;  // before the harness is imported: stdout is the protocol's
load(target).then(serve).catch((error) => {
  console.error(`thm conformance adapter: cannot load ${target}: ${error?.name}: ${error?.message}`);
  console.error(error?.stack ?? "");
  process.exit(2);
});
