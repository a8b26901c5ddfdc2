"""The ``thm`` tool a wheel carries (``thm/_bin/thm``): the decision commands of the library
and the conformance suite, with ICU and the C++ runtime from ``thm/_libs``. ``thm`` on the
command line of a virtual environment, ``python -m thm`` and ``python -m thm.conformance``
run it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_BUNDLED = Path(__file__).resolve().parent / "_bin" / "thm"


class ToolMissing(RuntimeError):
    """This installation of thm carries no tool (it was built from the sdist)."""


def tool_path() -> Path:
    """The tool to run: ``$THM_TOOL`` when it is set (a tool built from the repository),
    else the one this wheel carries. Raises ``ToolMissing`` when there is neither."""
    named = os.environ.get("THM_TOOL")
    if named:
        return Path(named)
    if _BUNDLED.is_file():
        return _BUNDLED
    raise ToolMissing(
        "this installation of thm has no thm tool: a wheel carries one (thm/_bin/thm), a "
        "build from the sdist does not. Install the wheel, or build the tool from the "
        "repository (cmake -S kit) and name it in THM_TOOL")


def main(argv: list[str] | None = None) -> int:
    """Replaces this process with the tool, given ``argv`` (default: this command line's)."""
    arguments = sys.argv[1:] if argv is None else argv
    try:
        tool = tool_path()
    except ToolMissing as missing:
        print(f"thm: {missing}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(tool, [str(tool), *arguments])
