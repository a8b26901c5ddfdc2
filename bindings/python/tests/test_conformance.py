"""thm.conformance: the suite against a harness written in Python, served by the package.
Needs the thm tool: the wheel's (python.install.*, where THM_REQUIRE_TOOL makes its absence a
failure) or THM_TOOL's; without one these tests are skipped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import thm.conformance
from thm._tool import ToolMissing, tool_path
from thm.conformance.pytest import conformance_tests


def _has_tool() -> bool:
    try:
        return tool_path().is_file()
    except ToolMissing:
        if os.environ.get("THM_REQUIRE_TOOL"):
            raise
        return False


pytestmark = pytest.mark.skipif(not _has_tool(), reason="no thm tool: set THM_TOOL")


def test_a_plain_python_queue_passes_with_every_unsupported_capability_skipped() -> None:
    report = thm.conformance.run("memory_harness:MemoryHarness", short=True)
    assert report.passed, report.table
    results = {check.id: check for check in report.checks}
    assert len(results) >= 30
    for passing in ("EQ-01", "EQ-05", "EQ-09", "EQ-11", "EQ-20", "EQ-21", "EQ-22", "EQ-24"):
        assert results[passing].result == "pass", results[passing]
    assert results["EQ-02"].result == "skip" and "hooks" in results["EQ-02"].reason
    assert results["EQ-16"].result == "skip" and "leases" in results["EQ-16"].reason
    assert report.json is not None and report.json["harness"] == "python-memory"


def test_every_runs_history_is_written_for_another_checker(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    report = thm.conformance.run("memory_harness:MemoryHarness", checks=["EQ-05"],
                                 history=path)
    assert report.passed, report.table
    history = json.loads(path.read_text())["checks"][0]["runs"][0]["history"]
    enqueues = [e for e in history if e["f"] == "enqueue"]
    assert [e["type"] for e in enqueues][:2] == ["invoke", "ok"]
    assert {e["value"].get("answer") for e in enqueues if e["type"] == "ok"} == {
        "enqueued", "already"}


def test_a_broken_copy_fails_with_the_reason_seed_and_replay() -> None:
    report = thm.conformance.run(harness_of_a_replay_answered_enqueued(), checks=["EQ-05"],
                                 seed=7)
    assert not report.passed and report.exit_code == 1
    check = report.check("EQ-05")
    assert (check.result, check.seed) == ("fail", 7)
    assert "got Enqueued" in check.reason
    assert check.replay is not None and "--seed 7 --check EQ-05" in check.replay
    assert check.replay.startswith(f"{sys.executable} -m thm.conformance ")
    assert "memory_harness:ReplayAnsweredEnqueued" in check.replay


def test_the_replay_command_runs_as_printed_from_anywhere(tmp_path: Path) -> None:
    report = thm.conformance.run(harness_of_a_replay_answered_enqueued(), checks=["EQ-05"])
    replay = report.check("EQ-05").replay
    assert replay is not None
    # Where thm itself is (the venv's site-packages, or a build tree), but not the tests.
    environment = {**os.environ, "PYTHONPATH": str(Path(thm.__file__).parent.parent)}
    again = subprocess.run(replay, shell=True, cwd=tmp_path, env=environment,
                           capture_output=True, text=True)
    assert again.returncode == 1, again.stderr[-2000:]
    assert "EQ-05  fail" in again.stdout + again.stderr


def test_a_harness_may_print_while_it_is_imported(tmp_path: Path) -> None:
    (tmp_path / "noisy_harness.py").write_text(
        "print('hello from import')\nfrom memory_harness import MemoryHarness as Harness\n")
    sys.path.insert(0, str(tmp_path))
    try:
        report = thm.conformance.run("noisy_harness:Harness", checks=["EQ-05"])
    finally:
        sys.path.remove(str(tmp_path))
    assert report.passed, report.stderr[-2000:]


def harness_of_a_replay_answered_enqueued() -> object:
    from memory_harness import ReplayAnsweredEnqueued
    return ReplayAnsweredEnqueued  # a class is named by its module and name


def test_a_harness_that_cannot_be_imported_is_an_error_that_says_why() -> None:
    with pytest.raises(RuntimeError, match="could not run .exit 2.: thm.conformance.adapter: "
                                           "cannot load no_such_module:Harness: "
                                           "ModuleNotFoundError"):
        thm.conformance.run("no_such_module:Harness", checks=["EQ-05"])
    with pytest.raises(ModuleNotFoundError):
        conformance_tests("no_such_module:Harness")  # at collection: one error, not 30


def test_python_m_thm_conformance_is_the_tool_with_its_exit_codes() -> None:
    listing = subprocess.run([sys.executable, "-m", "thm.conformance", "--list-checks"],
                             capture_output=True, text=True, check=True)
    assert [check for check, _ in thm.conformance.check_ids()] == \
        [line.split("\t")[0] for line in listing.stdout.splitlines()]
    bad = subprocess.run([sys.executable, "-m", "thm.conformance", "--check", "EQ-99"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "EQ-99" in bad.stderr


def test_a_run_whose_caller_is_killed_stops_and_takes_its_adapter_along(tmp_path: Path) -> None:
    pid_file = tmp_path / "adapter.pid"
    caller = subprocess.Popen(
        [sys.executable, "-c", "import thm.conformance as c; "
         "c.run('memory_harness:HangsInEnqueue', checks=['EQ-05'], exec_timeout=120)"],
        env={**os.environ, "THM_TEST_PID_FILE": str(pid_file),
             "PYTHONPATH": os.pathsep.join(sys.path)})
    try:
        for _ in range(300):  # the adapter is inside enqueue_once
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        adapter = int(pid_file.read_text())
    finally:
        caller.kill()  # as an IDE's stop button or an OOM kill would: no cleanup in Python
        caller.wait()
    for _ in range(60):  # well within the tool's first progress line, 10 s in
        try:
            if Path(f"/proc/{adapter}/stat").read_text().split(") ")[1].startswith("Z"):
                return
        except FileNotFoundError:  # gone, also between a look and a read
            return
        time.sleep(0.05)
    pytest.fail(f"the adapter {adapter} still runs 3 s after its caller was killed")


if _has_tool():  # without a tool, conformance_tests fails collection, saying so
    test_memory_harness = conformance_tests("memory_harness:MemoryHarness", short=True)
