"""Fails unless the installed module loads nothing from outside its wheel but the C runtime:
every library ``ldd`` resolves is in the package's ``_libs`` folder or is one the build
backend never bundles (libc, libm, the loader, ...).

    check_bundle.py MODULE
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from thm_build import SYSTEM_LIBRARIES  # noqa: E402  (the backend's own list)


def main(module: Path) -> int:
    bundle = module.parent / "_libs"
    listing = subprocess.run(["ldd", str(module)], check=True, capture_output=True, text=True)
    outside: list[str] = []
    inside: list[str] = []
    for line in listing.stdout.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if not arrow or SYSTEM_LIBRARIES.match(name):
            continue
        path = Path(where.split(" (")[0])
        (inside if path.parent == bundle else outside).append(f"{name} => {path}")
    if outside or not any(line.startswith("libicuuc") for line in inside):
        print(f"check_bundle: {module.name} loads from outside its wheel: {outside}; "
              f"from inside: {inside}", file=sys.stderr)
        return 1
    print(f"check_bundle: {module.name} loads {len(inside)} libraries, all from {bundle}: "
          + ", ".join(line.split(" =>")[0] for line in inside))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
