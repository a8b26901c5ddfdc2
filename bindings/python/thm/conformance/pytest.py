"""The conformance suite as pytest tests: one test per check.

In a test module of the host's:

    from thm.conformance.pytest import conformance_tests

    test_queue = conformance_tests("myapp.conformance_harness:Harness", short=True)

collects ``test_queue[EQ-01]`` … ``test_queue[EQ-30]``; ``pytest -k EQ-05`` runs one. Each
runs ``thm conformance --check ID`` against the harness, served by this package in a process
of its own. A failed check fails its test with the suite's reason, its seed and the command
that replays it; a skipped check is skipped with the capability it needs; a check that
passed only in part passes with a warning saying what was left unproven. The options are
``thm.conformance.run``'s.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import pytest

from thm.conformance._run import check_ids, run, target_name
from thm.conformance.adapter import resolve


class LeftUnproven(UserWarning):
    """A check passed, but part of it could not be tried against this queue."""


def conformance_tests(harness: Any, **options: Any) -> Callable[[str], None]:
    """A pytest test function parametrized by check id, for a module-level name ``test_…``.
    ``harness`` is ``"package.module:factory"`` or that function or class."""
    target = target_name(harness)
    resolve(target)  # a harness that cannot be imported is one error at collection, not 30
    checks = check_ids()

    @pytest.mark.parametrize("check", [check for check, _ in checks],
                             ids=[check for check, _ in checks])
    def test(check: str) -> None:
        report = run(target, checks=[check], **options)
        result = report.check(check)
        if result.result == "skip":
            pytest.skip(f"{check} {result.title}: {result.reason}")
        if result.result != "pass":
            pytest.fail(f"{check} {result.title} failed: {result.reason}\n"
                        f"seed: {result.seed}\n"
                        f"replay: {result.replay}\n"
                        f"  or: thm.conformance.run({target!r}, checks=[{check!r}], "
                        f"seed={result.seed})\n"
                        f"the end of the suite's stderr:\n{report.stderr[-3000:]}",
                        pytrace=False)
        if result.left_unproven:
            warnings.warn(LeftUnproven(f"{check} {result.title}: {result.reason}"))

    test.__doc__ = f"The host queue conformance suite against {target}, one check per test."
    return test
