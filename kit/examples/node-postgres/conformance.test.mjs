// The host's queue (turn_queue.mjs) against the conformance suite, one test per check.
import { conformanceTests } from "thm/conformance";

conformanceTests(new URL("./conformance_harness.mjs#Harness", import.meta.url), { short: true });
