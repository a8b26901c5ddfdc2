// @ts-check
// The reply the dispatch tests send through their queues (dispatch.test.mjs, async.test.mjs):
// ada mentions bob in a thread of eng, at the last u64 sequence, one hop in.
import * as thm from "thm";

export const roster = {
  members: [{ id: "ada", name: null }, { id: "bob", name: null }],
  people: [],
  retired: [],
  tombstoned: [],
};
/** @type {thm.DispatchArgs} */
export const args = {
  policy: { enabled: true, max_hops: 3 },
  input: {
    key: { trigger_sequence: 18446744073709551615n },
    conversation: { desk_id: "eng", thread_root: 7 },
    author_id: "ada",
    content: "@bob take it",
    mentions: [{ target: { kind: "agent", id: "bob" }, text: "@bob", offset: 0 }],
    hop: 1,
  },
  roster,
};
