#!/usr/bin/env node
// The host's Restate services for the suite's child turns, served over HTTP/2 on
// 127.0.0.1:PORT as a deployment the Restate server calls (register it with the admin API:
// kit/scripts/restate_cluster does):
// - the workflow `thm_child_turn`, keyed by the turn: its `run` waits on a durable promise
//   that the host resolves through `settle`;
// - the object `thm_child_turn_call`, keyed by the turn and called with the turn as its
//   idempotency key: its `run` waits on an awakeable whose id it keeps in its state
//   (`awakeable`), which the host resolves through the ingress.
// Either way a child stays pending until the host ends it. Both are kept RETENTION_SECONDS
// after they end (`workflowRetention`, `idempotencyRetention`: a day by default), so that a
// test sees the end of their life.
//
//   node service.mjs PORT
import http2 from 'node:http2';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as restate from '@restatedev/restate-sdk';

// The SDK 1.17.2 calls Promise.withResolvers, which Node.js 20 does not have.
Promise.withResolvers ??= function withResolvers() {
  let resolve;
  let reject;
  const promise = new this((yes, no) => { resolve = yes; reject = no; });
  return { promise, resolve, reject };
};

export const SERVICE = 'thm_child_turn';
export const CALL_SERVICE = 'thm_child_turn_call';
export const RETENTION_SECONDS = 1;

const ended = (how) => {
  if (how !== 'complete') throw new restate.TerminalError(`settled by the host: ${how}`);
  return 'completed';
};

const childTurn = restate.workflow({
  name: SERVICE,
  handlers: {
    run: async (ctx) => ended(await ctx.promise('settled').get()),
    settle: async (ctx, how) => {
      await ctx.promise('settled').resolve(how);
    },
  },
  options: { workflowRetention: { seconds: RETENTION_SECONDS } },
});

const childTurnCall = restate.object({
  name: CALL_SERVICE,
  handlers: {
    run: async (ctx) => {
      const { id, promise } = ctx.awakeable();
      ctx.set('awakeable', id);
      const how = await promise;
      ctx.clear('awakeable');
      return ended(how);
    },
  },
  options: { idempotencyRetention: { seconds: RETENTION_SECONDS } },
});

// The SDK's log: warnings and errors, on stderr.
const logger = (meta, message, ...more) => {
  if (meta.level === 'warn' || meta.level === 'error') console.error('restate service:', message, ...more);
};

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const port = Number(process.argv[2]);
  if (!port) {
    console.error('usage: service.mjs PORT');
    process.exit(2);
  }
  http2.createServer(restate.createEndpointHandler({ services: [childTurn, childTurnCall], logger }))
    .listen(port, '127.0.0.1');
}
