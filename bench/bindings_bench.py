#!/usr/bin/env python3
"""The Python package's per-call cost, as ratios in one run (bench/README.md).

Times `resolve_mentions` (a 256-byte message, 14 agents) and `mention_dispatch` (a reply
that dispatches) on the same inputs (bindings_fixture.json) three ways:
- `python.<op>/thm`: the call from Python through the package, on snapshots made once (as
  a host makes them once per roster change), as `<op>_team` on a team prepared once, and as
  `<op>_plain` on dicts decoded by `from_json` on every call;
- `python.<op>/cpp`: the same call in C++ (thm_bindings_bench, run by this script);
- `python.<op>/subprocess`: one `thm eval <op>` process per call, the path the package
  replaces.
Writes Google Benchmark's JSON shape, so report.py pairs `thm` with each baseline.

    bindings_bench.py --cpp-bench BIN --thm BIN --out FILE [--min-time S] [--repetitions N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import thm

FIXTURE = Path(__file__).resolve().parent / "bindings_fixture.json"


def calls() -> dict[str, Callable[[], object]]:
    """The two calls, their inputs decoded once, on snapshots and on prepared teams."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    resolve, dispatch = fixture["resolve_mentions"], fixture["mention_dispatch"]
    body = resolve["body"]
    author = thm.from_json("MentionAuthor", resolve["author"])
    roster = thm.RosterSnapshot.from_json(resolve["roster"])
    desks = thm.DeskSnapshot.from_json(resolve["desks"])
    policy = thm.MentionDispatchPolicy.from_json(dispatch["policy"])
    reply = thm.MentionDispatchInput.from_json(dispatch["input"])
    team = thm.RosterSnapshot.from_json(dispatch["roster"])
    # The same snapshots prepared once, as a host prepares them per roster change (adr/0016).
    prepared = thm.Team.prepare(roster=roster, desks=desks)
    no_desks = thm.DeskSnapshot(declared=[], added=[], member_additions=[], orders=[], retired=[],
                                tombstoned=[])
    dispatch_team = thm.Team.prepare(roster=team, desks=no_desks)
    return {
        "resolve_mentions": lambda: thm.resolve_mentions(body, supplied=None, author=author,
                                                         roster=roster, desks=desks),
        "resolve_mentions_team": lambda: thm.resolve_mentions(body, supplied=None, author=author,
                                                              team=prepared),
        "mention_dispatch": lambda: thm.mention_dispatch(policy=policy, input=reply,
                                                         roster=team),
        "mention_dispatch_team": lambda: thm.mention_dispatch(policy=policy, input=reply,
                                                              team=dispatch_team),
        # Every argument a dict, decoded on every call, as a host passes a message's own
        # values (a Python operation takes values: a dict is decoded by `from_json`).
        "resolve_mentions_plain": lambda: thm.resolve_mentions(
            body, supplied=None, author=thm.from_json("MentionAuthor", resolve["author"]),
            roster=thm.RosterSnapshot.from_json(resolve["roster"]),
            desks=thm.DeskSnapshot.from_json(resolve["desks"])),
        "mention_dispatch_plain": lambda: thm.mention_dispatch(
            policy=thm.MentionDispatchPolicy.from_json(dispatch["policy"]),
            input=thm.MentionDispatchInput.from_json(dispatch["input"]),
            roster=thm.RosterSnapshot.from_json(dispatch["roster"])),
    }


def per_call_ns(call: Callable[[], object], min_time: float) -> tuple[float, int]:
    """Nanoseconds per call of `call`, run in batches for at least `min_time` seconds."""
    batch, total, spent = 64, 0, 0
    while spent < min_time * 1e9:
        start = time.perf_counter_ns()
        for _ in range(batch):
            call()
        spent += time.perf_counter_ns() - start
        total += batch
        batch = min(batch * 2, 1 << 16)
    return spent / total, total


def row(name: str, ns: float, iterations: int) -> dict[str, Any]:
    return {"name": name, "run_name": name, "run_type": "iteration", "iterations": iterations,
            "real_time": ns, "cpu_time": ns, "time_unit": "ns", "items_per_second": 1e9 / ns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp-bench", required=True)
    parser.add_argument("--thm", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--subprocess-calls", type=int, default=20)
    args = parser.parse_args()

    rows = []
    for op, call in calls().items():
        runs = [per_call_ns(call, args.min_time) for _ in range(args.repetitions)]
        ns = statistics.median(run[0] for run in runs)
        rows.append(row(f"python.{op}/thm", ns, sum(run[1] for run in runs)))

    cpp = subprocess.run([args.cpp_bench, "--benchmark_format=json",
                          f"--benchmark_min_time={args.min_time}",
                          f"--benchmark_repetitions={args.repetitions}",
                          "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True)
    for bench in json.loads(cpp.stdout)["benchmarks"]:
        # The median of the repetitions, or the one run when there was one (the smoke test).
        if bench.get("aggregate_name") == "median" or (
                args.repetitions == 1 and bench.get("run_type") == "iteration"):
            op = bench["run_name"].split("/")[0]
            for name in [op] if op.endswith("_team") else [op, f"{op}_plain"]:
                rows.append(row(f"python.{name}/cpp", bench["real_time"], bench["iterations"]))

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for op in ("resolve_mentions", "mention_dispatch"):
        payload = json.dumps(fixture[op])
        times = []
        for _ in range(max(args.subprocess_calls, 1)):
            start = time.perf_counter_ns()
            subprocess.run([args.thm, "eval", op], input=payload, check=True,
                           capture_output=True, text=True)
            times.append(time.perf_counter_ns() - start)
        for name in (op, f"{op}_plain"):
            rows.append(row(f"python.{name}/subprocess", statistics.median(times), len(times)))

    Path(args.out).write_text(json.dumps({"context": {"library": "thm python package"},
                                          "benchmarks": rows}, indent=1), encoding="utf-8")
    for entry in rows:
        print(f"{entry['name']:40} {entry['real_time']:12.1f} ns")


if __name__ == "__main__":
    main()
