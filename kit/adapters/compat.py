#!/usr/bin/env python3
"""The compatibility matrix: the suite's results on queue libraries, checked and published.

  compat.py run EXPECTED FLAG REPORT -- THM CONFORMANCE-ARGS...
      Runs the suite (the command after --), which writes its JSON report to REPORT, and
      compares every check's result with the one EXPECTED (a library's expected.json) holds
      for the run whose `flag` (the adapter's --recipe) is FLAG. Exits 1 on any difference, naming each check, what was expected, what the
      suite found and its reason: a library upgrade that changes behaviour is noticed, and a
      red cell stays red on purpose. A failure the suite reports as a harness error (the
      adapter crashed, was late or broke the protocol) is a difference too: it is not the
      library's finding. So is a suite that exits other than 0 or 1.
  compat.py table MATRIX EXPECTED...
      Exits 1 unless MATRIX (kit/adapters/COMPATIBILITY.md) holds, between its markers, the
      table and the one-line reasons written from the EXPECTED files, and under each
      `<!-- recipe: PATH -->` marker a code block holding the file PATH (beside MATRIX) as it
      is: the recipes the page shows are the files the adapters and their tests run. With
      --write, writes them there instead.

A result is `pass`, `pass in part` (passed, with something left unproven: the report's
`left_unproven`), `fail` or `skip`. Every result but `pass` needs its reason in one line, in
the run's `why`, and its evidence, in the run's `evidence`: words the suite's own reason for
that check must contain (compared without case), or a list of such words when the suite may
report one cause in more than one way, so that a cell that keeps its colour for another
cause is a difference too.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

RESULTS = ("pass", "pass in part", "fail", "skip")
BEGIN = "<!-- matrix: written by kit/adapters/compat.py from each expected.json -->"
END = "<!-- end of the matrix -->"
HARNESS_ERROR = "harness error:"  # how the suite reports an adapter's failure, not the queue's
CELL = {"pass": "pass", "pass in part": "part", "fail": "**FAIL**", "skip": "skip"}


class Problem(Exception):
    """A malformed expected.json or report: a clear message, exit 2."""


def load(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise Problem(f"{path}: {error}") from error


def runs_of(expected, path):
    """The runs of one expected.json, checked: [{label, recipe, expected, why}]."""
    runs = expected.get("runs")
    if not isinstance(runs, list) or not runs:
        raise Problem(f"{path}: no runs")
    for run in runs:
        label = f"{expected.get('library')} {run.get('recipe')}"
        results = run.get("expected", {})
        for check, result in results.items():
            if result not in RESULTS:
                raise Problem(f"{path}: {label} {check}: {result!r} is not one of {RESULTS}")
            if result != "pass" and not run.get("why", {}).get(check):
                raise Problem(f"{path}: {label} {check} is {result} without a reason in `why`")
            if result != "pass" and not run.get("evidence", {}).get(check):
                raise Problem(f"{path}: {label} {check} is {result} without its `evidence`, the"
                              " words the suite's reason must contain")
        if not run.get("setup"):
            raise Problem(f"{path}: {label} has no `setup`, the line that says what the run is")
        run["label"] = label
    return runs


def result_of(check):
    if check["result"] == "pass" and check.get("left_unproven"):
        return "pass in part"
    return check["result"]


def says(check, evidence):
    """Whether a check's reason holds its evidence: the words, or any of a list of them."""
    reason = check.get("reason", "").lower()
    return any(words.lower() in reason for words in
               ([evidence] if isinstance(evidence, str) else evidence))


def run(argv):
    if len(argv) < 4 or argv[3] != "--":
        raise Problem("usage: compat.py run EXPECTED RECIPE REPORT -- COMMAND...")
    expected_path, recipe, report_path, command = argv[0], argv[1], Path(argv[2]), argv[4:]
    expected = load(expected_path)
    matching = [r for r in runs_of(expected, expected_path) if r.get("flag") == recipe]
    if len(matching) != 1:
        raise Problem(f"{expected_path}: no one run whose flag is {recipe!r}")
    wanted, evidence = matching[0]["expected"], matching[0].get("evidence", {})
    report_path.unlink(missing_ok=True)
    # The suite exits 1 when a check fails, which a library's expected failures make it do:
    # the report, not the exit code, is what is judged. A run without one found nothing.
    status = subprocess.run(command).returncode
    if not report_path.exists():
        print(f"compat: the suite wrote no report (exit {status}); nothing was judged")
        return 1
    if status not in (0, 1):  # 0: every check passed; 1: one failed. Anything else: it broke
        print(f"compat: the suite ended with exit {status}, not 0 or 1; its report is not judged")
        return 1
    found = {check["id"]: check for check in load(report_path)["checks"]}
    differences = []
    for check in sorted(set(wanted) | set(found)):
        if check not in found:
            differences.append(f"{check}: expected {wanted[check]}, but the suite did not run it")
        elif check not in wanted:
            differences.append(f"{check}: {result_of(found[check])}, but expected.json has no result")
        elif result_of(found[check]) != wanted[check]:
            differences.append(f"{check}: expected {wanted[check]}, the suite found "
                               f"{result_of(found[check])}: {found[check].get('reason', '')}")
        elif HARNESS_ERROR in found[check].get("reason", ""):
            # The adapter crashed, answered late or broke the protocol: the check failed, but
            # not for the library's reason that expected.json names.
            differences.append(f"{check}: expected {wanted[check]}, and it failed, but for the "
                               f"adapter's own reason: {found[check]['reason']}")
        elif wanted[check] != "pass" and not says(found[check], evidence[check]):
            differences.append(f"{check}: {wanted[check]} as expected, but the suite's reason does "
                               f"not say {evidence[check]!r}: {found[check].get('reason', '')}")
    label = matching[0]["label"]
    if differences:
        print(f"compat: {label} differs from {expected_path} in {len(differences)} check(s):")
        for line in differences:
            print(f"  {line}")
        return 1
    counts = {result: list(wanted.values()).count(result) for result in RESULTS}
    print(f"compat: {label}: all {len(wanted)} checks as expected ("
          + ", ".join(f"{n} {result}" for result, n in counts.items()) + ")")
    return 0


def table(expected_paths):
    """The matrix's text: the table, then each run's reasons."""
    runs = []
    # By library (the folder's name), whatever order the files were named in.
    for path in sorted(expected_paths, key=lambda path: Path(path).parent.name):
        runs.extend(runs_of(load(path), path))
    checks = sorted({check for r in runs for check in r["expected"]})
    lines = ["| check | " + " | ".join(r["label"] for r in runs) + " |",
             "| --- | " + " | ".join("---" for _ in runs) + " |"]
    for check in checks:
        cells = [CELL[r["expected"][check]] if check in r["expected"] else "?" for r in runs]
        lines.append(f"| {check} | " + " | ".join(cells) + " |")
    for r in runs:
        lines += ["", f"**{r['label']}** ({r['setup']}):", ""]
        for check in checks:
            result = r["expected"].get(check)
            if result and result != "pass":
                lines.append(f"- {check} {result}: {r['why'][check]}")
    return "\n".join(lines)


RECIPE = re.compile(r"(<!-- recipe: (?P<path>[^ ]+) -->\n```(?P<lang>\w*)\n)(?P<code>.*?)```",
                    re.DOTALL)


def with_recipes(document, base):
    """The document with each recipe marker's code block replaced by the file it names."""
    def code(match):
        path = base / match["path"]
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise Problem(f"the recipe {match['path']}: {error}") from error
        return f"{match[1]}{text}```"
    return RECIPE.sub(code, document)


def table_command(argv):
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    if len(argv) < 2:
        raise Problem("usage: compat.py table [--write] MATRIX EXPECTED...")
    matrix, text = Path(argv[0]), table(argv[1:])
    document = matrix.read_text(encoding="utf-8")
    if BEGIN not in document or END not in document:
        raise Problem(f"{matrix}: the markers of the matrix are missing")
    head, rest = document.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    wanted = with_recipes(f"{head}{BEGIN}\n{text}\n{END}{tail}", matrix.parent)
    if write:
        matrix.write_text(wanted, encoding="utf-8")
        return 0
    if wanted != document:
        print(f"compat: {matrix} does not hold the matrix the expected results give, or a "
              f"recipe as its file is; run: kit/adapters/compat.py table --write {' '.join(argv)}")
        return 1
    print(f"compat: {matrix} holds the matrix of {len(argv) - 1} libraries")
    return 0


def main(argv):
    try:
        if argv[:1] == ["run"]:
            return run(argv[1:])
        if argv[:1] == ["table"]:
            return table_command(argv[1:])
        raise Problem(__doc__.strip().split("\n\n")[1])
    except Problem as problem:
        print(f"compat: {problem}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
