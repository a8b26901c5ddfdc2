"""Every case of every shared case file and of the project's own (cli/cases), through the
Python package (spec/cases.md)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from case_runner import OPERATIONS, load_cases, matches, run_op

ROOT = Path(__file__).resolve().parents[3]
# THM_CASES: the case folders, separated as PATH is.
CASES = [Path(folder) for folder in os.environ.get(
    "THM_CASES", os.pathsep.join([str(ROOT / "model" / "cases"), str(ROOT / "cli" / "cases")]))
    .split(os.pathsep)]
FILES = sorted(path for folder in CASES for path in folder.glob("*.json"))
ALL = [case for path in FILES for case in load_cases(path)]


def test_the_case_files_are_there() -> None:
    # A runner that found no cases would pass every case it ran: refuse that.
    assert len(FILES) >= 9, f"no case files under {CASES}"
    assert len(ALL) >= 200


def test_every_operation_of_the_cases_is_answered_here() -> None:
    ops = {case["op"] for _, case, _ in ALL}
    assert ops <= set(OPERATIONS), ops - set(OPERATIONS)


DISPATCHES = [case for case in ALL if case[1]["op"] == "dispatch_mention"]


def test_the_async_port_has_cases() -> None:
    assert len(DISPATCHES) >= 5


@pytest.mark.parametrize("prepared", [False, True], ids=["snapshots", "team"])
@pytest.mark.parametrize(("name", "case", "refused"), DISPATCHES,
                         ids=[name for name, _, _ in DISPATCHES])
def test_dispatch_case_awaited(name: str, case: dict[str, Any], refused: dict[str, Any] | None,
                               prepared: bool) -> None:
    actual = run_op(case["op"], case["input"], refused, prepared=prepared, awaited=True)
    assert matches(case["expected"], actual), (
        f"{name} (dispatch_mention_async)\n  expected: {case['expected']}\n  actual: {actual}")


@pytest.mark.parametrize("prepared", [False, True], ids=["snapshots", "team"])
@pytest.mark.parametrize(("name", "case", "refused"), ALL, ids=[name for name, _, _ in ALL])
def test_case(name: str, case: dict[str, Any], refused: dict[str, Any] | None,
              prepared: bool) -> None:
    actual = run_op(case["op"], case["input"], refused, prepared=prepared)
    assert matches(case["expected"], actual), (
        f"{name}\n  op: {case['op']}\n  expected: {case['expected']}\n  actual: {actual}")
