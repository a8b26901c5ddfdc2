// The Node.js package's per-call cost, as ratios in one run (bench/README.md).
//
// Times resolveMentions (a 256-byte message, 14 agents) and mentionDispatch (a reply that
// dispatches) on the inputs of bindings_fixture.json, as bindings_bench.py does for Python:
// - node.<op>/thm: the call from JavaScript on arguments made once by thm.fromJSON, as the
//   Python bench makes its values once (a host makes its snapshots once per roster change);
// - node.<op>_plain/thm: every argument a plain object, converted on every call, as a host
//   passes a message's own values;
// - /cpp: the same call in C++ (thm_bindings_bench, run by this script), under both names;
// - /subprocess: one `thm eval <op>` process per call, the path the package replaces.
// Writes Google Benchmark's JSON shape, so report.py pairs `thm` with each baseline.
//
//   node bindings_bench.mjs --package DIR --cpp-bench BIN --thm BIN --out FILE
//                           [--min-time S] [--repetitions N] [--subprocess-calls N]
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: options } = parseArgs({
  options: {
    package: { type: "string" },
    "cpp-bench": { type: "string" },
    thm: { type: "string" },
    out: { type: "string" },
    "min-time": { type: "string", default: "0.5" },
    repetitions: { type: "string", default: "5" },
    "subprocess-calls": { type: "string", default: "20" },
  },
});
for (const required of ["package", "cpp-bench", "thm", "out"]) {
  if (options[required] === undefined) throw new Error(`bindings_bench.mjs: --${required} is required`);
}
const thm = createRequire(import.meta.url)(resolve(options.package, "lib", "index.cjs"));
const fixtureText = readFileSync(new URL("bindings_fixture.json", import.meta.url), "utf8");
const fixture = JSON.parse(fixtureText);
const minTime = Number(options["min-time"]);
const repetitions = Number(options.repetitions);

// The calls, by the name of the operation each times.
function calls() {
  const resolve = fixture.resolve_mentions;
  const dispatch = fixture.mention_dispatch;
  const author = thm.fromJSON("MentionAuthor", resolve.author);
  const roster = thm.fromJSON("RosterSnapshot", resolve.roster);
  const desks = thm.fromJSON("DeskSnapshot", resolve.desks);
  const policy = thm.fromJSON("MentionDispatchPolicy", dispatch.policy);
  const input = thm.fromJSON("MentionDispatchInput", dispatch.input);
  const team = thm.fromJSON("RosterSnapshot", dispatch.roster);
  // The same snapshots prepared once, as a host prepares them per roster change (adr/0016).
  const prepared = thm.prepareTeam({ roster, desks });
  const noDesks = { declared: [], added: [], member_additions: [], orders: [], retired: [], tombstoned: [] };
  const dispatchTeam = thm.prepareTeam({ roster: team, desks: noDesks });
  return {
    resolve_mentions: () => thm.resolveMentions(resolve.body, { supplied: null, author, roster, desks }),
    resolve_mentions_team: () => thm.resolveMentions(resolve.body, { supplied: null, author, team: prepared }),
    mention_dispatch: () => thm.mentionDispatch({ policy, input, roster: team }),
    mention_dispatch_team: () => thm.mentionDispatch({ policy, input, team: dispatchTeam }),
    resolve_mentions_plain: () => thm.resolveMentions(resolve.body, resolve),
    mention_dispatch_plain: () => thm.mentionDispatch(dispatch),
  };
}

// Nanoseconds per call of `call`, run in batches for at least `minTime` seconds.
function perCallNs(call) {
  let batch = 64;
  let total = 0;
  let spent = 0n;
  while (spent < BigInt(Math.round(minTime * 1e9))) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i += 1) call();
    spent += process.hrtime.bigint() - start;
    total += batch;
    batch = Math.min(batch * 2, 1 << 16);
  }
  return [Number(spent) / total, total];
}

const median = (numbers) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const row = (name, ns, iterations) => ({
  name, run_name: name, run_type: "iteration", iterations,
  real_time: ns, cpu_time: ns, time_unit: "ns", items_per_second: 1e9 / ns,
});

const rows = [];
for (const [op, call] of Object.entries(calls())) {
  call();  // the first call loads what it needs
  const runs = Array.from({ length: repetitions }, () => perCallNs(call));
  rows.push(row(`node.${op}/thm`, median(runs.map((r) => r[0])), runs.reduce((n, r) => n + r[1], 0)));
}

const cpp = JSON.parse(execFileSync(options["cpp-bench"], [
  "--benchmark_format=json", `--benchmark_min_time=${minTime}`,
  `--benchmark_repetitions=${repetitions}`, "--benchmark_report_aggregates_only=true",
], { encoding: "utf8" }));
for (const bench of cpp.benchmarks) {
  // The median of the repetitions, or the one run when there was one (the smoke test).
  const single = repetitions === 1 && bench.run_type === "iteration";
  if (bench.aggregate_name !== "median" && !single) continue;
  const op = bench.run_name.split("/")[0];
  const names = op.endsWith("_team") ? [op] : [op, `${op}_plain`];
  for (const name of names) rows.push(row(`node.${name}/cpp`, bench.real_time, bench.iterations));
}

for (const op of ["resolve_mentions", "mention_dispatch"]) {
  const payload = JSON.stringify(fixture[op]);
  const times = [];
  for (let i = 0; i < Math.max(Number(options["subprocess-calls"]), 1); i += 1) {
    const start = process.hrtime.bigint();
    execFileSync(options.thm, ["eval", op], { input: payload });
    times.push(Number(process.hrtime.bigint() - start));
  }
  for (const name of [op, `${op}_plain`]) rows.push(row(`node.${name}/subprocess`, median(times), times.length));
}

writeFileSync(options.out, JSON.stringify({ context: { library: "thm node package" }, benchmarks: rows }, null, 1));
for (const entry of rows) console.log(`${entry.name.padEnd(44)} ${entry.real_time.toFixed(1).padStart(12)} ns`);
