"""The suite run from Python: ``thm conformance`` against a harness the package serves."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from thm._tool import tool_path


@dataclass(frozen=True)
class CheckResult:
    """One check of a run: ``result`` is ``pass``, ``fail`` or ``skip``; a pass may leave
    part of the check unproven (``left_unproven``, with the reason). A failure has the seed
    it failed with and the command that replays it."""

    id: str
    title: str
    result: str
    reason: str
    left_unproven: bool
    seed: int
    replay: str | None
    duration_ms: int


@dataclass(frozen=True)
class Report:
    """What ``thm conformance`` said: ``passed`` (its exit code was 0), each check, the
    table it printed, the end of what it wrote on stderr (progress, the adapter's logs),
    and the whole JSON report (``json``; None when the run stopped before writing one)."""

    passed: bool
    exit_code: int
    checks: tuple[CheckResult, ...]
    table: str
    stderr: str
    json: dict[str, Any] | None = field(repr=False)

    def check(self, check_id: str) -> CheckResult:
        for found in self.checks:
            if found.id == check_id:
                return found
        raise KeyError(f"{check_id} did not run: {self.stderr[-2000:]}")


def check_ids() -> list[tuple[str, str]]:
    """Every check of the suite, in order: ``(id, title)``."""
    listing = subprocess.run([str(tool_path()), "conformance", "--list-checks"], check=True,
                             capture_output=True, text=True)
    pairs = [line.partition("\t") for line in listing.stdout.splitlines()]
    return [(check, title) for check, _, title in pairs]


def target_name(target: Any) -> str:
    """``module:name`` for a harness named by string, or for the function or class that makes
    it (or a harness object whose class is importable)."""
    if isinstance(target, str):
        return target
    named = target if hasattr(target, "__qualname__") else type(target)
    module, qualified = getattr(named, "__module__", None), getattr(named, "__qualname__", "")
    if not module or module == "__main__" or "<" in qualified:
        raise ValueError("the suite runs the harness in a process of its own, which imports it: "
                         "name it as 'package.module:factory', or pass a function or class "
                         f"defined at the top of an importable module (got {target!r:.80})")
    return f"{module}:{qualified}"


def _import_root(target: str) -> str | None:
    """The folder ``target``'s module is imported from, so that the adapter (and a replay
    run from another folder) finds it; None for a module that cannot be found here."""
    module = target.partition(":")[0]
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not os.path.isabs(spec.origin):
        return None
    root = Path(spec.origin).parent
    for _ in range(module.count(".") + (1 if spec.submodule_search_locations else 0)):
        root = root.parent
    return str(root)


def adapter_command(target: Any) -> str:
    """The ``exec:`` command that serves ``target`` with this interpreter, from the folder
    its module is imported from."""
    name = target_name(target)
    root = _import_root(name)
    path = f"--path {shlex.quote(root)} " if root else ""
    return f"{shlex.quote(sys.executable)} -m thm.conformance.adapter {path}{shlex.quote(name)}"


def _run_tool(command: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Runs the tool to its end. Interrupted (Ctrl-C, a cancelled task), it is asked to stop
    as Ctrl-C asks it, so that it ends its adapter, and killed only if it will not; and it
    stops by itself if this process dies (THM_STOP_WITH_PARENT)."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          errors="replace", env={**environment, "THM_STOP_WITH_PARENT": "1"}) \
            as process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _environment(extra: dict[str, str] | None) -> dict[str, str]:
    """This process's environment, with its import path, so that the adapter process imports
    the harness as this one would (pytest's rootdir, a src/ layout)."""
    environment = dict(os.environ)
    paths = [entry or os.getcwd() for entry in sys.path]
    environment["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    environment.update(extra or {})
    return environment


def _replay(command: str | None) -> str | None:
    """A failure's replay as this interpreter runs it: ``python -m thm.conformance ...``."""
    prefix = "thm conformance "
    if command is None or not command.startswith(prefix):
        return command
    return f"{shlex.quote(sys.executable)} -m thm.conformance {command[len(prefix):]}"


def _results(report: dict[str, Any]) -> tuple[CheckResult, ...]:
    return tuple(CheckResult(id=check["id"], title=check["title"], result=check["result"],
                             reason=check.get("reason") or "",
                             left_unproven=bool(check.get("left_unproven")),
                             seed=check["seed"], replay=_replay(check.get("replay")),
                             duration_ms=check.get("duration_ms", 0))
                 for check in report["checks"])


def run(harness: Any, *, checks: Sequence[str] = (), short: bool = False, seed: int = 1,
        repeat: int | None = None, runs: int = 1, require: Sequence[str] = (),
        exec_timeout: int | None = None, junit: str | os.PathLike[str] | None = None,
        html: str | os.PathLike[str] | None = None,
        history: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None) -> Report:
    """Runs the suite against ``harness`` (``"package.module:factory"``, or that function or
    class), served by this package in a process of its own. The options are
    ``thm conformance``'s (``checks`` are ``--check`` ids; empty runs every one; ``history``
    writes every run's recorded calls as JSON in Jepsen's shape); ``env`` adds variables for
    the adapter process (a database's address). Never raises for a check
    that fails: ``Report.passed`` says. Raises ``ToolMissing`` without a tool, and
    ``RuntimeError`` when the suite could not start (exit code 2), with its message."""
    command = [str(tool_path()), "conformance", "--queue", f"exec:{adapter_command(harness)}",
               "--seed", str(seed), "--runs", str(runs)]
    command += [option for check in checks for option in ("--check", check)]
    command += ["--short"] if short else []
    command += ["--repeat", str(repeat)] if repeat is not None else []
    command += ["--require", ",".join(require)] if require else []
    command += ["--exec-timeout", str(exec_timeout)] if exec_timeout is not None else []
    command += ["--junit", os.fspath(junit)] if junit is not None else []
    command += ["--html", os.fspath(html)] if html is not None else []
    command += ["--history", os.fspath(history)] if history is not None else []
    with tempfile.TemporaryDirectory(prefix="thm-conformance-") as scratch:
        report_path = Path(scratch) / "report.json"
        done = _run_tool([*command, "--report", str(report_path)], _environment(env))
        report = json.loads(report_path.read_text()) if report_path.exists() else None
    if done.returncode == 2 or (report is None and done.returncode != 0):
        # The adapter's own account first: a harness that cannot be imported says why.
        loading = re.search(r"thm\.conformance\.adapter: cannot load[^\n]*", done.stderr)
        raise RuntimeError(f"thm conformance could not run (exit {done.returncode}): "
                           + (f"{loading.group(0)}\n" if loading else "")
                           + done.stderr.strip()[-4000:])
    return Report(passed=done.returncode == 0, exit_code=done.returncode,
                  checks=_results(report) if report else (), table=done.stdout,
                  stderr=done.stderr[-20000:], json=report)
