"""Runs a shell example of README.md and compares what it prints with what the README shows:
the fenced block right after ``<!-- readme-test: NAME -->`` holds ``$ thm ARGS [< FILE]`` on
its first line and the expected output on the rest. ``thm`` is the built tool; FILE is read
from the checkout. So the README cannot drift from the tool.

    readme_command.py README.md NAME THM_EXE
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path


def block(readme: str, name: str) -> list[str]:
    lines = readme.splitlines()
    marker = f"<!-- readme-test: {name} -->"
    if marker not in lines:
        raise SystemExit(f"readme_command: no {marker} in the README")
    start = lines.index(marker) + 1
    if not lines[start].startswith("```"):
        raise SystemExit(f"readme_command: no fenced block right after {marker}")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return lines[start + 1:end]


def main() -> int:
    readme_path, name, exe = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    lines = block(readme_path.read_text(encoding="utf-8"), name)
    if not lines or not lines[0].startswith("$ thm "):
        raise SystemExit("readme_command: the block must start with `$ thm ...`")
    words = shlex.split(lines[0][2:])
    stdin = None
    if "<" in words:
        at = words.index("<")
        stdin = (readme_path.parent / words[at + 1]).read_bytes()
        words = words[:at]
    run = subprocess.run([exe, *words[1:]], input=stdin, capture_output=True, check=False)
    expected = "\n".join(lines[1:]) + "\n"
    actual = run.stdout.decode("utf-8")
    if run.returncode != 0 or actual != expected:
        print(f"readme_command: {name}: exit {run.returncode}; the README shows\n{expected}"
              f"and the tool printed\n{actual}{run.stderr.decode('utf-8')}")
        return 1
    print(f"readme_command: {name}: the tool prints what the README shows ({len(lines) - 1} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
