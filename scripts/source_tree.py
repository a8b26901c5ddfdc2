"""The repository's sources, as the checks under scripts/ read them.

Walks a checkout top-down and never enters a build tree (`build`, `build-*`), npm's
`node_modules`, `__pycache__` or a hidden folder: other tests create and delete folders in
the build tree while a check runs, and nothing there is a source.
"""

import os
from pathlib import Path

SKIPPED = {"build", "node_modules", "__pycache__"}


def skipped(name):
    return name in SKIPPED or name.startswith(".") or name.startswith("build-")


def is_python_script(path):
    """A file without a suffix whose first line runs python (scripts/check_layering)."""
    if path.suffix:
        return False
    try:
        with path.open("rb") as file:
            first = file.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def files(root, suffixes, python_scripts=False):
    """Every file under `root` whose suffix is in `suffixes` (and, with `python_scripts`,
    every Python script without one), in sorted path order."""
    found = []
    for directory, folders, names in os.walk(root):
        folders[:] = [folder for folder in folders if not skipped(folder)]
        for name in names:
            path = Path(directory, name)
            if path.suffix in suffixes or (python_scripts and is_python_script(path)):
                found.append(path)
    return sorted(found)
