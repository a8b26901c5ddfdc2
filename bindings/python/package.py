"""Writes the Python package's two artifacts into DIST: the sdist, and the wheel built from
that sdist (unpacked in a scratch folder), so the wheel proves the sdist holds every source.

    python3 bindings/python/package.py DIST

Prints each artifact's path and size. The wheel is for the interpreter running this script.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def backend(folder: Path):  # type: ignore[no-untyped-def]
    """The build backend (thm_build.py) of the package in ``folder``."""
    name = f"thm_build_{id(folder)}"
    spec = importlib.util.spec_from_file_location(name, folder / "thm_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(dist: Path) -> int:
    dist.mkdir(parents=True, exist_ok=True)
    sdist = dist / backend(HERE).build_sdist(str(dist))
    with tempfile.TemporaryDirectory(prefix="thm-sdist-") as scratch:
        with tarfile.open(sdist) as archive:
            # Our own archive, just written; the "data" filter where this Python has it.
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(scratch, **safe)
        unpacked = next(Path(scratch).iterdir())
        # The backend's build folder beside the unpacked sources, and ccache's base there, so
        # that a compile's paths are the same in every run and a filled cache is hit.
        os.environ["TMPDIR"] = scratch
        os.environ["CCACHE_BASEDIR"] = scratch
        tempfile.tempdir = None
        wheel = dist / backend(unpacked).build_wheel(str(dist))
    for artifact in (sdist, wheel):
        print(f"package: {artifact} ({artifact.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]).resolve()))
