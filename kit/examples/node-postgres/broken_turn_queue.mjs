// turn_queue.mjs with one bug a host could well write: a replay answers enqueued, because
// "the turn is in the queue either way". dispatchMention then tells the agent it started a
// turn it did not start, and the host counts one turn twice.
import { PostgresTurnQueue } from "./turn_queue.mjs";

export class BrokenTurnQueue extends PostgresTurnQueue {
  /** @param {import("thm/conformance").SuiteRequest} request */
  async enqueueOnce(request) {
    const outcome = await super.enqueueOnce(request);
    return outcome.status === "already" ? { status: "enqueued" } : outcome;
  }
}
