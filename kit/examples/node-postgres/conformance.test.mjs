// The host's queue (turn_queue.mjs) against the conformance suite, one test per check.
import { fileURLToPath } from "node:url";
import { conformanceTests } from "thm/conformance";

const harness = fileURLToPath(new URL("./conformance_harness.mjs", import.meta.url));
conformanceTests(`${harness}#Harness`, { short: true });
