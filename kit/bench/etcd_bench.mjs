// Enqueues per second on thm's etcd store (kit/stores/etcd/queue.mjs) against its
// floor, as ratios in one run (bench/README.md):
// - store_enqueue.etcd/thm/clients:N/real_time: N sessions at once (an `EtcdQueue` each,
//   each with its own etcd client), each enqueueing one request after another. Every
//   enqueue has a fresh turn key (conversations spread over 64 threads of #eng, as
//   store_bench.cpp's PostgreSQL rows), whose reply, like the policy and the target's
//   availability, is written beforehand, outside the timed part.
// - store_enqueue.etcd/floor/clients:N/real_time: N clients made by the store's own
//   `connect` (the same etcd3 client and options), each putting one value the size of the
//   child an enqueue writes under a fresh key, one after another: one raw etcd write.
// N is 1 and 8. A batch gives each client kPerClient keys; its time is the wall time from
// the common start to the last client's end. Repetitions run in a random order each round,
// as scripts/bench interleaves the C++ benches. Writes Google Benchmark's JSON shape, so
// report.py pairs `thm` with `floor`; a row that cannot run is written as an error.
//
//   node etcd_bench.mjs --endpoints URL,URL,URL --out FILE [--min-time S] [--repetitions N]
//
// --endpoints defaults to THM_ETCD_ENDPOINTS. The bench empties the store's keys (thm/) and
// its own (thm-bench/floor/) before and after: never point it at a cluster that holds data.
import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { parseArgs } from "node:util";

import {
  EtcdQueue, connect, encode, keys, storedReply, storedRequest, turnKey, under,
} from "../stores/etcd/queue.mjs";

const { values: options } = parseArgs({
  options: {
    endpoints: { type: "string" },
    out: { type: "string" },
    "min-time": { type: "string", default: "0.5" },
    repetitions: { type: "string", default: "5" },
  },
});
const endpoints = (options.endpoints ?? process.env.THM_ETCD_ENDPOINTS ?? "")
  .split(",").filter(Boolean);
if (endpoints.length === 0 || options.out === undefined) {
  console.error("usage: etcd_bench.mjs --endpoints URL,URL,URL --out FILE " +
    "[--min-time S] [--repetitions N]");
  process.exit(2);
}
const minTimeNs = Number(options["min-time"]) * 1e9;
const repetitions = Math.max(Number(options.repetitions), 1);

const kConversations = 64n;
const kPerClient = 32; // keys each client is given per batch
const kFloorPrefix = Buffer.from("thm-bench/floor/");

// ---- the requests ------------------------------------------------------------------------

let lastSequence = 0n;

// The next fresh request: `alice` hands step `sequence` to `bob` in thread
// 1 + sequence % 64 of #eng, at hop 1 (bench/turns.hpp's request, in its thread).
function nextRequest() {
  lastSequence += 1n;
  const sequence = lastSequence;
  return {
    desk_id: Buffer.from("eng"),
    thread_root: 1n + (sequence % kConversations),
    sequence,
    source_id: Buffer.from("alice"),
    target_id: Buffer.from("bob"),
    content: Buffer.from(`@bob please pick up step ${sequence} of the rollout`),
    child_hop: 1,
  };
}

// `count` fresh requests for each of `clients` clients.
const freshRequests = (clients, count) =>
  Array.from({ length: clients }, () => Array.from({ length: count }, nextRequest));

// The harness's own client: the host's writes, outside the timed part.
const store = connect(endpoints);

// Commits the reply of every request (hop 0, by its source, with its content), 64 to a
// transaction, as adapter.mjs's commit_reply writes one.
async function commitReplies(requests) {
  for (let i = 0; i < requests.length; i += 64) {
    await store.kv.txn({
      success: requests.slice(i, i + 64).map((request) => ({
        request_put: {
          key: keys.reply(turnKey(request)),
          value: encode(storedReply({ author_id: request.source_id, content: request.content, hop: 0 })),
        },
      })),
    });
  }
}

// Empties the store and the floor's keys, then turns dispatch on and `bob` available.
async function resetStore() {
  await store.kv.deleteRange(under(keys.prefix));
  await store.kv.deleteRange(under(kFloorPrefix));
  await store.kv.put({ key: keys.policy, value: encode({ enabled: true, max_hops: 10 }) });
  await store.kv.put({ key: keys.avail(Buffer.from("bob")), value: Buffer.from("1") });
}

// ---- the rows ------------------------------------------------------------------------------

// Runs `work(client, index)` for every client at once; resolves to the wall time in ns from
// the common start to the last one's end, and the process's CPU time meanwhile.
async function together(clients, work) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(clients.map(work));
  const wall = Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) * 1e3 };
}

// The enqueue: N sessions, each its own EtcdQueue. Each session's first enqueue, which
// grants the etcd lease its key locks hang on, happens while opening.
async function enqueueRow(clients) {
  const sessions = Array.from({ length: clients }, () => new EtcdQueue(endpoints));
  const warm = freshRequests(clients, 1);
  await commitReplies(warm.flat());
  await Promise.all(sessions.map((session, i) => session.enqueueOnce(warm[i][0], null)));
  return {
    name: `store_enqueue.etcd/thm/clients:${clients}/real_time`,
    async batch() {
      const requests = freshRequests(clients, kPerClient);
      await commitReplies(requests.flat());
      return together(sessions, async (session, i) => {
        for (const request of requests[i]) {
          const outcome = await session.enqueueOnce(request, null);
          if (outcome.status !== "enqueued") {
            throw new Error(`an enqueue was answered ${JSON.stringify(outcome)}, not enqueued`);
          }
        }
      });
    },
    close: () => Promise.allSettled(sessions.map((session) => session.close())),
  };
}

// The floor: N clients of the store's own making, each one put after another of the value
// an enqueue stores for its child, under a fresh key; keys and values made untimed.
async function floorRow(clients) {
  const puts = Array.from({ length: clients }, () => connect(endpoints));
  const value = (request) => encode({
    request: storedRequest(request), state: "pending", attempts: 0, lease_expires_at: null, token: null,
  });
  const warm = { key: Buffer.concat([kFloorPrefix, Buffer.from("warm")]), value: Buffer.alloc(0) };
  await Promise.all(puts.map((client) => client.kv.put(warm)));
  return {
    name: `store_enqueue.etcd/floor/clients:${clients}/real_time`,
    async batch() {
      const writes = freshRequests(clients, kPerClient).map((mine) => mine.map((request) => ({
        key: Buffer.concat([kFloorPrefix, turnKey(request)]), value: value(request),
      })));
      return together(puts, async (client, i) => {
        for (const write of writes[i]) await client.kv.put(write);
      });
    },
    close: async () => { for (const client of puts) client.close(); },
  };
}

// One repetition of `row`: batches until their wall time reaches the minimum.
async function repetition(row) {
  let wall = 0;
  let cpu = 0;
  let items = 0;
  do {
    const spent = await row.batch();
    wall += spent.wall;
    cpu += spent.cpu;
    items += row.clients * kPerClient;
  } while (wall < minTimeNs);
  return {
    real_time: wall / items, cpu_time: cpu / items, items_per_second: (items * 1e9) / wall,
    iterations: items,
  };
}

// ---- Google Benchmark's JSON ---------------------------------------------------------------

const median = (numbers) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const mean = (numbers) => numbers.reduce((sum, x) => sum + x, 0) / numbers.length;
const stddev = (numbers) => {
  const m = mean(numbers);
  return Math.sqrt(numbers.reduce((sum, x) => sum + (x - m) ** 2, 0) / Math.max(numbers.length - 1, 1));
};

// The rows of one benchmark's repetitions: the one run, or the median, mean, stddev and cv
// aggregates of several, as --benchmark_report_aggregates_only writes them.
function rowsOf(name, runs) {
  const base = { run_name: name, repetitions: runs.length, threads: 1, time_unit: "ns" };
  if (runs.length === 1) return [{ name, ...base, run_type: "iteration", ...runs[0] }];
  const statistics = { median, mean, stddev, cv: (xs) => stddev(xs) / mean(xs) };
  return Object.entries(statistics).map(([kind, statistic]) => ({
    name: `${name}_${kind}`, ...base, run_type: "aggregate", aggregate_name: kind,
    ...(kind === "cv" ? { aggregate_unit: "percentage" } : {}),
    iterations: runs.reduce((sum, run) => sum + run.iterations, 0),
    real_time: statistic(runs.map((run) => run.real_time)),
    cpu_time: statistic(runs.map((run) => run.cpu_time)),
    items_per_second: statistic(runs.map((run) => run.items_per_second)),
  }));
}

const shuffled = (items) => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};

const message = (error) => String(error?.message ?? error).split("\n")[0];

const rows = [];
const plans = [];
try {
  await resetStore();
} catch (error) {
  console.error(`etcd_bench: cannot reach the cluster at ${endpoints.join(",")}: ${message(error)}`);
}
for (const clients of [1, 8]) {
  for (const [make, impl] of [[enqueueRow, "thm"], [floorRow, "floor"]]) {
    const name = `store_enqueue.etcd/${impl}/clients:${clients}/real_time`;
    try {
      plans.push({ ...(await make(clients)), clients, runs: [] });
    } catch (error) {
      rows.push({ name, run_name: name, run_type: "iteration", error_occurred: true,
        error_message: `cannot set up: ${message(error)}` });
    }
  }
}
for (let round = 0; round < repetitions; round += 1) {
  for (const plan of shuffled(plans.filter((p) => !p.error))) {
    try {
      plan.runs.push(await repetition(plan));
    } catch (error) {
      plan.error = message(error);
    }
  }
}
for (const plan of plans) {
  if (plan.error) {
    rows.push({ name: plan.name, run_name: plan.name, run_type: "iteration", error_occurred: true,
      error_message: plan.error });
  } else {
    rows.push(...rowsOf(plan.name, plan.runs));
  }
  await plan.close();
}
await store.kv.deleteRange(under(keys.prefix)).catch(() => {});
await store.kv.deleteRange(under(kFloorPrefix)).catch(() => {});
store.close();

const cpu = cpus();
writeFileSync(options.out, JSON.stringify({
  context: {
    date: new Date().toISOString(), executable: "etcd_bench.mjs", num_cpus: cpu.length,
    mhz_per_cpu: cpu[0]?.speed, library: "thm etcd store", endpoints: endpoints.join(","),
  },
  benchmarks: rows,
}, null, 1));
for (const row of rows) {
  if (row.error_occurred) console.log(`${row.name.padEnd(48)} ERROR: ${row.error_message}`);
  else if (row.run_type === "iteration" || row.aggregate_name === "median") {
    console.log(`${row.name.padEnd(48)} ${row.real_time.toFixed(0).padStart(10)} ns/enqueue ` +
      `${row.items_per_second.toFixed(0).padStart(8)}/s`);
  }
}
