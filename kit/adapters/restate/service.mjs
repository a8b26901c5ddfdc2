#!/usr/bin/env node
// The host's Restate service for the suite's child turns: the workflow `thm_child_turn`, served
// over HTTP/2 on 127.0.0.1:PORT, as a deployment the Restate server calls (register it with
// the admin API: kit/scripts/restate_cluster does). Each run waits on a durable promise
// that the host resolves through `settle`, so a child stays pending until the host ends it.
// Workflows are kept RETENTION_SECONDS after they end (Restate's `workflowRetention`, a day
// by default), so that a test sees the end of their life.
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
export const RETENTION_SECONDS = 1;

const childTurn = restate.workflow({
  name: SERVICE,
  handlers: {
    run: async (ctx) => {
      const how = await ctx.promise('settled').get();
      if (how !== 'complete') throw new restate.TerminalError(`settled by the host: ${how}`);
      return 'completed';
    },
    settle: async (ctx, how) => {
      await ctx.promise('settled').resolve(how);
    },
  },
  options: { workflowRetention: { seconds: RETENTION_SECONDS } },
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
  http2.createServer(restate.createEndpointHandler({ services: [childTurn], logger }))
    .listen(port, '127.0.0.1');
}
