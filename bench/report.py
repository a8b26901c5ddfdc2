#!/usr/bin/env python3
"""Ratios of thm's benchmarks to their baselines, from Google Benchmark JSON output.

Benchmark names follow bench/README.md: `<operation>[.<case>]/<impl>[/<suffix>...]`, where
impl is `thm` for the code under test and anything else (`floor`, `model`, `global_mutex`)
for a baseline measured in the same run. Each thm benchmark is paired with every baseline
of the same `<operation>[.<case>]` and the same suffix. Writes a Markdown report (stdout,
or --markdown FILE): the ratios grouped by operation, then the complexity fits. With
--charts DIR it also draws two SVG charts with gnuplot.

  bench/report.py build/bench/results/*.json --markdown ratios.md --charts bench/

Input files come from `--benchmark_out=FILE --benchmark_out_format=json`, with or without
repetitions. A benchmark found in several files is taken from the last one. Exit status: 0,
or 2 for an unreadable input file or a failing gnuplot (1 when gnuplot is missing), or 3
when --check finds a run that errored or has no partner.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

NS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
MIB = 1024.0 * 1024.0


def fail(message, status=2):
    print(f"report.py: {message}", file=sys.stderr)
    sys.exit(status)


def load(paths):
    """Reads the files. Returns (runs, fits, contexts): runs maps a run name (the benchmark's
    name without an aggregate suffix) to the row that stands for it: its `median` aggregate
    when the run had repetitions, else its one run; fits maps a family to its BigO and RMS
    rows; contexts are the files' `context` objects."""
    runs, fits, contexts = {}, {}, []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as file:
                document = json.load(file)
            rows = document["benchmarks"]
            contexts.append(document.get("context", {}))
        except OSError as error:
            fail(f"cannot read {path}: {error.strerror}")
        except (ValueError, KeyError, TypeError) as error:
            fail(f"{path}: not Google Benchmark JSON output ({error!r})")
        # Registration order, also when the run interleaved its benchmarks at random.
        rows = sorted(rows, key=lambda row: (row.get("family_index", 0),
                                             row.get("per_family_instance_index", 0)))
        medians, singles = {}, {}
        for row in rows:
            name = row.get("run_name", row["name"])
            kind = row.get("aggregate_name") if row.get("run_type") == "aggregate" else None
            if kind in ("BigO", "RMS"):
                fits.setdefault(name, {})[kind] = row
            elif kind == "median":
                medians[name] = row
            elif kind is None:
                singles.setdefault(name, []).append(row)
        # Repetitions without aggregates (unusual): take the middle one by throughput.
        for name, repeated in singles.items():
            repeated.sort(key=lambda row: row.get("items_per_second", 0.0))
            runs[name] = repeated[len(repeated) // 2]
        runs.update(medians)
    return runs, fits, contexts


def split_name(name):
    """`op.case/impl/a/b` -> ("op.case", "impl", "/a/b"); None outside the convention."""
    parts = name.split("/")
    if len(parts) < 2:
        return None
    return parts[0], parts[1], "".join("/" + part for part in parts[2:])


def time_ns(row):
    """The row's time per iteration in ns: real time for `/real_time` runs (and the time a
    `/manual_time` run reported, which Google Benchmark stores there), else CPU time."""
    wall = "/real_time" in row["name"] or "/manual_time" in row["name"]
    key = "real_time" if wall else "cpu_time"
    return row[key] * NS_PER_UNIT[row.get("time_unit", "ns")]


def time_ratio(thm, baseline):
    """thm's time per item over the baseline's: baseline items/s / thm items/s, or the
    ratio of times per iteration when either does not count items."""
    if thm.get("items_per_second") and baseline.get("items_per_second"):
        return baseline["items_per_second"] / thm["items_per_second"]
    return time_ns(thm) / time_ns(baseline)


def si(value):
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:.3g}"


def throughput(row):
    cells = []
    if "items_per_second" in row:
        cells.append(f"{si(row['items_per_second'])} items/s")
    if "bytes_per_second" in row:
        cells.append(f"{row['bytes_per_second'] / MIB:.3g} MiB/s")
    return " · ".join(cells) or "–"


def allocs(row):
    count = row.get("allocs")
    if count is None:
        return "–"
    return f"{count:.0f}" if count == int(count) else f"{count:.2f}"


def in_words(ratio):
    if 0.995 <= ratio < 1.005:
        return "as fast"
    return f"{ratio:.3g}× slower" if ratio > 1 else f"{1 / ratio:.3g}× faster"


def markdown(runs, fits, contexts, paths):
    """The report: a header stating the convention, a table per operation, the fits."""
    out = ["# thm against its baselines", ""]
    context = contexts[0] if contexts else {}
    if context:
        out.append(
            f"Run {context.get('date', '?')} on {context.get('num_cpus', '?')} CPUs at "
            f"{context.get('mhz_per_cpu', '?')} MHz; files: "
            + ", ".join(f"`{os.path.basename(path)}`" for path in paths) + ".")
        out.append("")
    out += [
        "**Ratio = thm's time per item ÷ the baseline's** (computed as baseline items/s ÷ "
        "thm items/s): below 1 thm is faster, above 1 it is slower; *thm is* says the same in "
        "words. Each figure is the median of the repetitions when the bench ran repeated, "
        "else its single run. Throughput is thm's; allocs are heap blocks per call "
        "(thm / baseline).",
        "",
    ]

    parsed = {name: split_name(name) for name in runs}
    baselines = {}  # (operation, suffix) -> baseline run names, in file order
    for name, parts in parsed.items():
        if parts and parts[1] != "thm":
            baselines.setdefault((parts[0], parts[2]), []).append(name)

    groups, paired = {}, set()  # operation -> table rows; names in some pair
    for name, parts in parsed.items():
        if not parts or parts[1] != "thm":
            continue
        thm = runs[name]
        for baseline_name in baselines.get((parts[0], parts[2]), []):
            paired.update((name, baseline_name))
            baseline = runs[baseline_name]
            if thm.get("error_occurred") or baseline.get("error_occurred"):
                message = thm.get("error_message") or baseline.get("error_message") or "error"
                cells = ["–", f"skipped: {message}", "–", "–"]
            else:
                ratio = time_ratio(thm, baseline)
                cells = [f"{ratio:.3g}", in_words(ratio), throughput(thm),
                         f"{allocs(thm)} / {allocs(baseline)}"]
            row = [f"`{name}`", f"`{parsed[baseline_name][1]}`"] + cells
            groups.setdefault(parts[0].split(".")[0], []).append(row)
    unpaired = [name for name in runs if name not in paired]

    if not groups:
        out += ["No thm benchmark has a baseline in these files.", ""]
    for operation, rows in groups.items():
        out += [f"## {operation}", "",
                "| benchmark | baseline | thm ÷ baseline | thm is | thm throughput | allocs |",
                "| --- | --- | ---: | --- | ---: | ---: |"]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        out.append("")

    if fits:
        out += ["## Complexity fits", "",
                "Google Benchmark's least-squares fit (`Complexity()`) of time per iteration "
                "against N; RMS is the fit's normalized root-mean-square error.", "",
                "| family | big-O | time ≈ | RMS |", "| --- | --- | ---: | ---: |"]
        for family, fit in fits.items():
            big_o, rms = fit.get("BigO", {}), fit.get("RMS", {})
            term = big_o.get("big_o", "?")
            clock = "real_coefficient" if "/real_time" in family else "cpu_coefficient"
            coefficient = f"{big_o.get(clock, float('nan')):.3g} {big_o.get('time_unit', '')}"
            formula = coefficient if term == "(1)" else f"{coefficient} × {term}"
            shown = term if term.startswith("(") else f"({term})"
            rms_text = f"{100 * rms['rms']:.1f} %" if "rms" in rms else "–"
            out.append(f"| `{family}` | O{shown} | {formula} | {rms_text} |")
        out.append("")

    if unpaired:
        out += ["## Without a pair", "",
                "Not in the naming convention, or no thm/baseline counterpart with the same "
                "suffix: " + ", ".join(f"`{name}`" for name in unpaired) + ".", ""]
    return "\n".join(out).rstrip("\n") + "\n"


# ---- charts ----------------------------------------------------------------------------------

SVG_TERMINAL = 'set terminal svg size 800,480 dynamic noenhanced font "sans,12" background "white"'


def series(runs, pattern, value):
    """[(x, y)] for runs whose name matches `pattern` (its group 1 is x), sorted by x."""
    points = []
    for name, row in runs.items():
        match = re.fullmatch(pattern, name)
        if match and not row.get("error_occurred") and value in row:
            points.append((int(match.group(1)), row[value]))
    return sorted(points)


def plot(path, settings, lines):
    """Draws `lines` ([(title, style, [(x, y)])]) into the SVG file `path` with gnuplot; the
    data goes inline as datablocks. Lines without points are left out; no points, no chart."""
    lines = [line for line in lines if line[2]]
    if not lines:
        print(f"report.py: no data for {path}; chart not drawn", file=sys.stderr)
        return False
    script = [SVG_TERMINAL, f'set output "{path}"', "set grid", "set bmargin 6",
              # The key centred under the x label, in one row or two.
              f"set key at screen 0.5, screen 0.02 center bottom horizontal "
              f"maxrows {1 if len(lines) <= 3 else 2}"]
    script += settings
    plots = []
    for index, (title, style, points) in enumerate(lines):
        script.append(f"$line{index} << EOD")
        script += [f"{x} {y!r}" for x, y in points]
        script.append("EOD")
        plots.append(f'$line{index} using 1:2 with linespoints {style} title "{title}"')
    script.append("plot " + ", \\\n     ".join(plots))
    done = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", text=True,
                          capture_output=True, check=False)
    if done.returncode != 0:
        fail(f"gnuplot failed on {path}:\n{done.stderr}")
    return True


def charts(runs, directory, machine):
    """queue_threads.svg, resolve_mentions_body.svg and resolve_mentions_roster.svg in
    `directory`; returns those drawn.
    `machine` ends the titles (e.g. "2 CPUs"): threads past the CPU count only contend."""
    drawn = []
    queue = []
    for key, key_title, colour in (("distinct", "distinct keys", "#1f77b4"),
                                   ("hot", "one hot key", "#d62728")):
        for impl, impl_title, dash in (("thm", "thm", 1), ("global_mutex", "global mutex", 2)):
            name = rf"enqueue_once\.{key}/{impl}/threads:(\d+)/manual_time"
            style = f'lw 2 pt 7 dt {dash} lc rgb "{colour}"'
            queue.append((f"{key_title}, {impl_title}", style,
                          series(runs, name, "items_per_second")))
    path = os.path.join(directory, "queue_threads.svg")
    if plot(path, [
            f'set title "In-memory queue: enqueue_once throughput against threads ({machine})"',
            'set xlabel "threads"', 'set ylabel "enqueues per second, all threads together"',
            "set logscale x 2", "set xtics (1, 2, 4, 8)", "set xrange [0.8:10]",
            "set yrange [0:*]", 'set format y "%.0s%c"'], queue):
        drawn.append(path)

    resolve = []
    for impl, colour in (("thm", "#1f77b4"), ("floor", "#7f7f7f"), ("model", "#d62728")):
        name = rf"resolve_mentions/{impl}/body:(\d+)/mentions:10/roster:100"
        points = [(x, y / MIB) for x, y in series(runs, name, "bytes_per_second")]
        resolve.append((impl, f'lw 2 pt 7 lc rgb "{colour}"', points))
    path = os.path.join(directory, "resolve_mentions_body.svg")
    if plot(path, [
            'set title "resolve_mentions throughput against body size, 10 mentions, '
            f'roster of 100 ({machine})"',
            'set xlabel "message body size"', 'set ylabel "MiB of body per second (log scale)"',
            "set logscale xy", 'set xtics ("256 B" 256, "4 KiB" 4096, "64 KiB" 65536)',
            "set xrange [180:92000]"], resolve):
        drawn.append(path)
    roster = []
    for impl, title, colour in (("thm", "prepared team (thm)", "#1f77b4"),
                                ("views", "snapshot views", "#ff7f0e"),
                                ("model", "model", "#d62728"), ("floor", "memchr floor", "#7f7f7f")):
        name = rf"resolve_mentions\.roster/{impl}/roster:(\d+)"
        roster.append((title, f'lw 2 pt 7 lc rgb "{colour}"',
                       series(runs, name, "items_per_second")))
    path = os.path.join(directory, "resolve_mentions_roster.svg")
    if plot(path, [
            'set title "resolve_mentions: a 256-byte message with 10 mentions against roster size '
            f'({machine})"',
            'set xlabel "agents on the roster"', 'set ylabel "messages per second (log scale)"',
            "set logscale xy", "set xrange [8:12500]", 'set format y "%.0s%c"'], roster):
        drawn.append(path)
    return drawn


def problems(runs, fits):
    """What --check rejects: runs that ended in an error, and runs outside any pair other
    than the points of a complexity family (which have no baseline by design)."""
    found = [f"{name}: {row.get('error_message', 'error')}"
             for name, row in runs.items() if row.get("error_occurred")]
    parsed = {name: split_name(name) for name in runs}
    for name, parts in parsed.items():
        in_family = any(name.startswith(family + "/") for family in fits)
        if in_family:
            continue
        if not parts:
            found.append(f"{name}: not named <operation>/<impl>/...")
            continue
        partners = [other for other in parsed.values()
                    if other and other[0] == parts[0] and other[2] == parts[2]
                    and (other[1] == "thm") != (parts[1] == "thm")]
        if not partners:
            found.append(f"{name}: no {'baseline' if parts[1] == 'thm' else 'thm run'} "
                         "with the same operation and suffix")
    return found


def main():
    parser = argparse.ArgumentParser(
        description="Ratios of thm benchmarks to their baselines (bench/README.md).")
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Google Benchmark output (--benchmark_out_format=json)")
    parser.add_argument("--markdown", metavar="FILE", help="write the report here, not stdout")
    parser.add_argument("--charts", metavar="DIR",
                        help="draw queue_threads.svg, resolve_mentions_body.svg and "
                             "resolve_mentions_roster.svg here")
    parser.add_argument("--check", action="store_true",
                        help="exit 3 if a run errored or a run has no partner (the CTest "
                             "test bench.report runs this over the smoke runs)")
    args = parser.parse_args()

    if args.charts and shutil.which("gnuplot") is None:
        fail("--charts needs gnuplot: install it with `apt-get install gnuplot-nox`", 1)
    runs, fits, contexts = load(args.files)
    report = markdown(runs, fits, contexts, args.files)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as file:
            file.write(report)
    else:
        print(report, end="")
    if args.charts:
        os.makedirs(args.charts, exist_ok=True)
        cpus = contexts[0].get("num_cpus", "?") if contexts else "?"
        for path in charts(runs, args.charts, f"{cpus} CPUs"):
            print(f"report.py: wrote {path}", file=sys.stderr)
    if args.check:
        found = problems(runs, fits)
        for problem in found:
            print(f"report.py: {problem}", file=sys.stderr)
        if found:
            sys.exit(3)


if __name__ == "__main__":
    main()
