"""Every shared case through the installed package, without pytest: for an interpreter
that has nothing but thm installed. Prints `N passed, N failed` and exits 1 on a failure
(2 when there are no cases, which would prove nothing).

    python3 bindings/python/tests/run_cases.py [CASE_DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from case_runner import load_cases, matches, run_op  # noqa: E402


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[3] / "model" / "cases"
    cases = [case for path in sorted(folder.glob("*.json")) for case in load_cases(path)]
    if not cases:
        print(f"run_cases: no cases under {folder}", file=sys.stderr)
        return 2
    failed = 0
    for name, case, refused in cases:
        actual = run_op(case["op"], case["input"], refused)
        if not matches(case["expected"], actual):
            failed += 1
            print(f"FAIL {name}\n  expected: {case['expected']}\n  actual:   {actual}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
