"""Fails unless the installed module (and the tool, thm/_bin/thm) loads nothing from outside
its wheel but the C runtime:
every library ``ldd`` resolves is in the package's ``_libs`` folder, or is libc, libm, the
loader or the vDSO. The list is this check's own, not the build backend's, so a library the
backend wrongly leaves out of the wheel fails here.

    check_bundle.py BINARY...
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

C_RUNTIME = re.compile(r"^(linux-vdso\.so\.1|ld-linux-[\w-]+\.so\.\d|libc\.so\.6|libm\.so\.6)$")


def main(module: Path) -> int:
    bundle = next(folder / "_libs" for folder in module.parents if (folder / "_libs").is_dir())
    listing = subprocess.run(["ldd", str(module)], check=True, capture_output=True, text=True)
    outside: list[str] = []
    inside: list[str] = []
    for line in listing.stdout.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if not arrow or C_RUNTIME.match(name):
            continue
        path = Path(where.split(" (")[0])
        (inside if path.resolve().parent == bundle.resolve() else outside).append(f"{name} => {path}")
    if outside or not any(line.startswith("libicuuc") for line in inside):
        print(f"check_bundle: {module.name} loads from outside its wheel: {outside}; "
              f"from inside: {inside}", file=sys.stderr)
        return 1
    print(f"check_bundle: {module.name} loads {len(inside)} libraries, all from {bundle}: "
          + ", ".join(line.split(" =>")[0] for line in inside))
    return 0


if __name__ == "__main__":
    sys.exit(max(main(Path(binary)) for binary in sys.argv[1:]) if sys.argv[1:] else __doc__)
