// The etcd queue's pure parts (node --test): turn keys, key ranges, and which client errors
// prove that a write never reached a member. The queue's behaviour on a cluster is the
// conformance suite's to prove (CTest `etcd.suite`).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BrokenCircuitError } from 'cockatiel';

import { keys, neverSent, prefixEnd, turnKey } from './queue.mjs';

const key = (desk, root, sequence) =>
  turnKey({ desk_id: Buffer.from(desk), thread_root: root, sequence }).toString('latin1');

test('a turn key is TurnKey::encoded(), the spec\'s example included', () => {
  assert.equal(key('eng', 42n, 17n), 'v1/3:eng/t42/17');
  assert.equal(key('eng', null, 17n), 'v1/3:eng/c/17');
  assert.equal(key('eng', 0n, 17n), 'v1/3:eng/t0/17');
  assert.equal(key('eng', null, 18446744073709551615n), 'v1/3:eng/c/18446744073709551615');
});

test('every General spelling is one key, and only those', () => {
  for (const spelling of ['', 'General', 'general', 'GENERAL', 'main', 'MAIN', 'Main']) {
    assert.equal(key(spelling, null, 1n), 'v1/7:General/c/1', spelling);
  }
  assert.equal(key('generals', null, 1n), 'v1/8:generals/c/1');
  assert.equal(key('QA', null, 1n), 'v1/2:QA/c/1');
  assert.notEqual(key('qa', null, 1n), key('QA', null, 1n));
});

test('a desk id is kept byte for byte and length-prefixed', () => {
  const odd = Buffer.from([0x61, 0x00, 0xff, 0x2f]);
  const encoded = turnKey({ desk_id: odd, thread_root: 7n, sequence: 3n });
  assert.deepEqual(encoded, Buffer.concat([Buffer.from('v1/4:'), odd, Buffer.from('/t7/3')]));
  // A delimiter inside the desk id does not run into the thread: `a/t1` in the channel is
  // not `a` in thread 1.
  assert.notEqual(key('a/t1', null, 5n), key('a', 1n, 5n));
});

test('a prefix range ends just past every key under it', () => {
  assert.deepEqual(prefixEnd(Buffer.from('thm/lock/')), Buffer.from('thm/lock0'));
  assert.deepEqual(prefixEnd(Buffer.from([0x61, 0xff])), Buffer.from([0x62]));
  assert.deepEqual(prefixEnd(Buffer.from([0xff, 0xff])), Buffer.from([0]));
  const locks = keys.locks(Buffer.from('v1/1:a/c/1'));
  assert.ok(Buffer.compare(Buffer.concat([locks, Buffer.from('ffff')]), prefixEnd(locks)) < 0);
  // One turn's locks never take in another's: `…/1/` is not a prefix of `…/12/`.
  assert.ok(!keys.locks(Buffer.from('v1/1:a/c/12')).subarray(0, locks.length).equals(locks));
});

test('only an error that proves the write was never sent is "never sent"', () => {
  const sent = [
    '14 UNAVAILABLE: read ECONNRESET',
    '14 UNAVAILABLE: Connection dropped',
    '14 UNAVAILABLE: etcdserver: request timed out, possibly due to previous leader failure',
    '4 DEADLINE_EXCEEDED: Deadline exceeded after 3.001s,remote_addr=127.0.0.1:52379',
    '4 DEADLINE_EXCEEDED: Waiting for LB pick remote_addr=127.0.0.1:52381',
    '1 CANCELLED: Call cancelled',
    '2 UNKNOWN: etcdserver: server stopped',
    'anything else',
  ];
  for (const message of sent) assert.equal(neverSent(new Error(message)), false, message);
  const never = [
    '14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:52379',
    '4 DEADLINE_EXCEEDED: Deadline exceeded after 2.000s,LB pick: 0.000s Waiting for LB pick',
    '8 RESOURCE_EXHAUSTED: etcdserver: too many requests',
  ];
  for (const message of never) assert.equal(neverSent(new Error(message)), true, message);
  assert.equal(neverSent(new BrokenCircuitError()), true);
});
