// The etcd queue's round trips on a real cluster (node --test, THM_ETCD_ENDPOINTS names its
// members): a step without a hook is one etcd call, admitted or replayed, and takes no etcd
// lease; a revocation made between two steps is seen by the second. What the answers must be
// under races, faults and hooks is the conformance suite's to prove (CTest `etcd.suite`).
// It empties the store's keys (thm/) before and after: never point it at a cluster in use.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { EtcdQueue, connect, encode, keys, storedReply, turnKey, under } from './queue.mjs';

const endpoints = (process.env.THM_ETCD_ENDPOINTS ?? '').split(',').filter(Boolean);
const store = endpoints.length > 0 ? connect(endpoints) : null;

const request = (sequence) => ({
  desk_id: Buffer.from('eng'), thread_root: 5n, sequence: BigInt(sequence),
  source_id: Buffer.from('alice'), target_id: Buffer.from('bob'),
  content: Buffer.from(`@bob step ${sequence}`), child_hop: 1,
});

const commitReply = (r) => store.kv.put({
  key: keys.reply(turnKey(r)),
  value: encode(storedReply({ author_id: r.source_id, content: r.content, hop: 0 })),
});

/** The etcd calls `session` makes while `work` runs, and what `work` resolved to. */
async function counted(session, work) {
  const calls = [];
  const kv = session.client.kv;
  const saved = {};
  for (const name of ['txn', 'range', 'put', 'deleteRange']) {
    saved[name] = kv[name];
    kv[name] = (...args) => { calls.push(name); return saved[name].apply(kv, args); };
  }
  try {
    return { answer: await work(), calls };
  } finally {
    Object.assign(kv, saved);
  }
}

before(async () => {
  if (!store) return;
  await store.kv.deleteRange(under(keys.prefix));
  await store.kv.put({ key: keys.policy, value: encode({ enabled: true, max_hops: 3 }) });
  await store.kv.put({ key: keys.avail(Buffer.from('bob')), value: Buffer.from('1') });
});

after(async () => {
  if (!store) return;
  await store.kv.deleteRange(under(keys.prefix));
  store.close();
});

test('a step without a hook is one etcd call, and a revocation between steps is seen',
  { skip: store ? false : 'THM_ETCD_ENDPOINTS is not set' }, async () => {
    const session = new EtcdQueue(endpoints);
    try {
      for (const sequence of [1, 2, 3]) await commitReply(request(sequence));
      // The session's first step reads the policy rows it has not seen yet.
      assert.deepEqual(await session.enqueueOnce(request(1), null), { status: 'enqueued' });
      const admitted = await counted(session, () => session.enqueueOnce(request(2), null));
      assert.deepEqual(admitted.answer, { status: 'enqueued' });
      assert.deepEqual(admitted.calls, ['txn']);
      const replayed = await counted(session, () => session.enqueueOnce(request(2), null));
      assert.deepEqual(replayed.answer, { status: 'already' });
      assert.deepEqual(replayed.calls, ['txn']);
      assert.equal(session.lease, null, 'no key lock, so no etcd lease');

      await store.kv.put({ key: keys.auth(Buffer.from('alice'), Buffer.from('bob')), value: Buffer.from('0') });
      assert.deepEqual(await session.enqueueOnce(request(3), null),
        { status: 'refused', reason: 'unauthorized' });
      await store.kv.deleteRange({ key: keys.auth(Buffer.from('alice'), Buffer.from('bob')) });
      assert.deepEqual(await session.enqueueOnce(request(3), null), { status: 'enqueued' });
      const children = await store.kv.range({ ...under(keys.children), keys_only: true });
      assert.equal(children.kvs.length, 3);
    } finally {
      await session.close();
    }
  });
