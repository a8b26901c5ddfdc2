"""Runs README.md's Python snippet verbatim: the fenced block right after the line
``<!-- readme-test: NAME -->``, so the README cannot drift from the package.

    readme_snippet.py README.md NAME
"""

from __future__ import annotations

import sys
from pathlib import Path


def snippet(readme: str, name: str) -> str:
    lines = readme.splitlines()
    marker = f"<!-- readme-test: {name} -->"
    start = lines.index(marker) + 1
    if not lines[start].startswith("```"):
        raise SystemExit(f"readme_snippet: no fenced block right after {marker}")
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    return "\n".join(lines[start + 1:end])


if __name__ == "__main__":
    code = snippet(Path(sys.argv[1]).read_text(encoding="utf-8"), sys.argv[2])
    exec(compile(code, f"README.md:{sys.argv[2]}", "exec"), {"__name__": "__main__"})  # noqa: S102
    print(f"readme_snippet: {sys.argv[2]} ran ({len(code.splitlines())} lines)")
