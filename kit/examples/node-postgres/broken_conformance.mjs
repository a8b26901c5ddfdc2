// The suite against broken_turn_queue.mjs: run by broken_copy.test.mjs, which expects it to
// fail exactly the checks that catch the bug.
import { conformanceTests } from "thm/conformance";
import { BrokenTurnQueue } from "./broken_turn_queue.mjs";
import { Harness } from "./conformance_harness.mjs";

export class BrokenHarness extends Harness {
  name = "node-pg-broken";

  async openSession() {
    const session = await super.openSession();
    session.queue = new BrokenTurnQueue(session.client);
    return session;
  }
}

if (process.env.NODE_TEST_CONTEXT) {  // under node --test, not when the adapter imports it
  conformanceTests(new URL("#BrokenHarness", import.meta.url), { short: true });
}
