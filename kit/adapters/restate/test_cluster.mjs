// kit/scripts/restate_cluster as the adapter calls it (through clusterScript), on the cluster of
// three nodes THM_RESTATE_CLUSTER names (the thm-safe compat run's, once that run is over).
// Run: THM_RESTATE_CLUSTER=DIR node --test kit/adapters/restate/test_cluster.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { clusterScript } from '../../protocol/node/cluster.mjs';

const cluster = clusterScript(fileURLToPath(new URL('../../scripts/restate_cluster', import.meta.url)),
  process.env.THM_RESTATE_CLUSTER);
const NODES = [0, 1, 2];

test('leader waits for a node that answers instead of failing at once', async () => {
  for (const node of NODES) await cluster('pause', node);
  const resumed = new Promise((resolve, reject) => {
    setTimeout(() => Promise.all(NODES.map((node) => cluster('resume', node))).then(resolve, reject),
      1500);
  });
  const started = Date.now();
  let leader;
  try {
    leader = Number(await cluster('leader'));
  } finally {
    await resumed;
  }
  assert.ok(NODES.includes(leader), `leader named node ${leader}`);
  assert.ok(Date.now() - started >= 1500, 'leader answered while every node was paused');
});
