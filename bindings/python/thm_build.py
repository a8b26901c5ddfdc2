"""The build backend of the Python package (PEP 517, adr/0013), standard library only.

``pip install ./bindings/python`` calls ``build_wheel``: CMake configures the repository
with only the core, its wire forms and the extension module (for the interpreter running
pip), builds the module, and the wheel is packed from it and the package's Python files.
Nothing is downloaded, and no setuptools or wheel package is needed, so the same command
works for any interpreter with pip, including one that has nothing else installed. The
version is the one ``project(thm VERSION ...)`` says in the top-level CMakeLists.txt.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PACKAGE_FILES = ("__init__.py", "_errors.py", "_port.py", "_values.py", "_thm.pyi", "py.typed")


def _version() -> str:
    found = re.search(r"project\(thm VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if found is None:
        raise RuntimeError("no `project(thm VERSION ...)` in the top-level CMakeLists.txt")
    return found.group(1)


def _tag() -> str:
    """The wheel's tag for the running interpreter, e.g. ``cp311-cp311-linux_x86_64``."""
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{interpreter}-{platform}"


def _metadata() -> str:
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    return (f"Metadata-Version: 2.1\nName: thm\nVersion: {_version()}\n"
            "Summary: Who answers a message in a multi-agent chat, and whether a reply may "
            "start one more agent turn\nRequires-Python: >=3.11\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _build_module(scratch: Path) -> Path:
    """Builds the extension module for this interpreter; its path."""
    build = scratch / "cmake"
    configure = [
        # MinSizeRel, pybind11's own choice for a module (-Os, with its link-time
        # optimisation): half the build time of Release and a module 40% smaller. A call
        # spends its time converting values in pybind11, not in the core.
        "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=MinSizeRel",
        f"-DPython3_EXECUTABLE={sys.executable}", "-DTHM_WITH_PYTHON=ON",
        "-DTHM_BUILD_TESTS=OFF", "-DTHM_WITH_CLI=OFF", "-DTHM_INSTALL=OFF", "-DTHM_WITH_NODE=OFF",
    ]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    # CMake's output goes to stderr: pip shows it when the build fails.
    subprocess.run(configure, check=True, stdout=sys.stderr)
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    subprocess.run(["cmake", "--build", str(build), "--target", "thm_python", "-j", jobs],
                   check=True, stdout=sys.stderr)
    return next((build / "bindings" / "python" / "thm").glob("_thm*.so"))


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _dist_info() -> str:
    return f"thm-{_version()}.dist-info"


# ---- PEP 517 hooks ----------------------------------------------------------------------


def get_requires_for_build_wheel(config_settings: object = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: object = None) -> str:
    target = Path(metadata_directory) / _dist_info()
    target.mkdir(parents=True, exist_ok=True)
    (target / "METADATA").write_text(_metadata(), encoding="utf-8")
    return target.name


def build_wheel(wheel_directory: str, config_settings: object = None,
                metadata_directory: str | None = None) -> str:
    name = f"thm-{_version()}-{_tag()}.whl"
    with tempfile.TemporaryDirectory(prefix="thm-wheel-") as scratch:
        module = _build_module(Path(scratch))
        files = {f"thm/{file}": (HERE / "thm" / file).read_bytes() for file in PACKAGE_FILES}
        files[f"thm/{module.name}"] = module.read_bytes()
        info = _dist_info()
        files[f"{info}/METADATA"] = _metadata().encode()
        files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: thm_build\n"
                                  f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode()
        record = [_record_line(path, data) for path, data in files.items()]
        files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
        with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
            for path, data in files.items():
                wheel.writestr(path, data)
    return name
