"""A broken copy of the queue fails the right tests: the suite, run from pytest against
broken_turn_queue.py (an Already answered as Enqueued), fails exactly the checks that make a
replay or a race, each for that reason, and passes the others."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The checks whose calls include a replay or a race of one key, which the bug answers
# Enqueued: races (EQ-01, EQ-02, EQ-07), replays (EQ-05, EQ-06, EQ-10, EQ-22, EQ-23, EQ-31,
# EQ-34), the retry after an error (EQ-33), keys that must fold together (EQ-20), random
# sequences against the model (EQ-25) and sessions at once (EQ-35).
CAUGHT = {"EQ-01", "EQ-02", "EQ-05", "EQ-06", "EQ-07", "EQ-10", "EQ-20", "EQ-22", "EQ-23",
          "EQ-25", "EQ-31", "EQ-33", "EQ-34", "EQ-35"}


def test_the_suite_fails_exactly_the_checks_that_catch_the_bug(tmp_path: Path) -> None:
    junit = tmp_path / "broken.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           f"--junitxml={junit}", str(HERE / "broken_conformance.py")],
                          cwd=HERE, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    failed, passed = {}, set()
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        check = case.get("name", "").split("[")[-1].rstrip("]")
        failure = case.find("failure")
        if failure is not None:
            failed[check] = failure.get("message", "") + (failure.text or "")
        elif case.find("skipped") is None:
            passed.add(check)
    assert set(failed) == CAUGHT, done.stdout[-3000:]
    assert "replay 1 got Enqueued" in failed["EQ-05"]
    assert f"replay: {sys.executable} -m thm.conformance --queue" in failed["EQ-05"]
    assert "--seed 1 --check EQ-05" in failed["EQ-05"]
    assert {"EQ-09", "EQ-11", "EQ-19", "EQ-26"} <= passed
