"""The build backend of the Python package (PEP 517, adr/0013), standard library only.

``pip install ./bindings/python`` calls ``build_wheel``: CMake configures the repository
with only the core, its wire forms and the extension module (for the interpreter running
pip), builds the module, and the wheel is packed from it and the package's Python files.
Nothing is downloaded, and no setuptools or wheel package is needed, so the same command
works for any interpreter with pip, including one that has nothing else installed. The
version is the one ``project(thm VERSION ...)`` says in the top-level CMakeLists.txt.

The wheel installs where no compiler or ICU is: it carries every shared library the module
needs beyond the C runtime (ICU's, the C++ runtime) in ``thm/_libs/``, found through the
module's RPATH, and its platform tag is ``manylinux_2_N`` for the newest glibc symbol
version that any of them uses. ``build_sdist`` packs the sources it builds from (the
repository's CMake project, core and wire forms, and this package) under ``repository/``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
# In an sdist the repository's sources are under repository/; in the checkout, two up.
PACKED = HERE / "repository"
ROOT = PACKED if (PACKED / "CMakeLists.txt").exists() else HERE.parents[1]
# What an sdist carries of the repository: what configuring the extension module alone reads.
SDIST_SOURCES = ("CMakeLists.txt", "cmake", "core", "json", "bindings/python/CMakeLists.txt",
                 "bindings/python/src", "bindings/python/thm")
# The C runtime every Linux has, and the loader: never bundled.
SYSTEM_LIBRARIES = re.compile(
    r"^(linux-vdso|ld-linux[-\w]*|libc|libm|libpthread|libdl|librt)\.so")
# The tool the wheel carries (thm/_bin/thm), built once by scripts/package for both packages
# (adr/0022) and named here; without it the wheel has none, and thm.conformance says so.
PACKAGE_TOOL = "THM_PACKAGE_TOOL"


def _package_files() -> list[str]:
    """The package's own files, relative to thm/: its Python sources, stubs and marker."""
    package = HERE / "thm"
    return sorted(path.relative_to(package).as_posix() for path in package.rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts
                  and (path.suffix in (".py", ".pyi") or path.name == "py.typed"))


def _version() -> str:
    found = re.search(r"project\(thm VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if found is None:
        raise RuntimeError("no `project(thm VERSION ...)` in the top-level CMakeLists.txt")
    return found.group(1)


def _bundled(module: Path) -> list[Path]:
    """The shared libraries ``module`` loads beyond the C runtime, as the loader finds them."""
    listing = subprocess.run(["ldd", str(module)], check=True, capture_output=True, text=True)
    found = []
    for line in listing.stdout.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if not arrow or SYSTEM_LIBRARIES.match(name):
            continue
        if where.startswith("not found"):
            raise RuntimeError(f"{module.name} needs {name}, which the loader cannot find")
        found.append(Path(where.split(" (")[0]))
    return found


def _glibc_minor(binaries: list[Path]) -> int:
    """The newest ``GLIBC_2.N`` symbol version any of ``binaries`` needs: its N."""
    newest = 17  # manylinux2014's glibc, the oldest tag pip still knows
    for binary in binaries:
        symbols = subprocess.run(["objdump", "-T", str(binary)], check=True, capture_output=True,
                                 text=True).stdout
        for minor in re.findall(r"GLIBC_2\.(\d+)", symbols):
            newest = max(newest, int(minor))
    return newest


def _tag(binaries: list[Path]) -> str:
    """The wheel's tag: this interpreter, and the glibc its binaries need, e.g.
    ``cp311-cp311-manylinux_2_34_x86_64``."""
    interpreter = f"cp{sys.version_info.major}{sys.version_info.minor}"
    return f"{interpreter}-{interpreter}-manylinux_2_{_glibc_minor(binaries)}_{platform.machine()}"


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
        "-DTHM_PYTHON_RPATH=$ORIGIN/_libs",
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
    with tempfile.TemporaryDirectory(prefix="thm-wheel-") as scratch:
        module = _build_module(Path(scratch))
        tool = Path(os.environ[PACKAGE_TOOL]) if os.environ.get(PACKAGE_TOOL) else None
        binaries = [module] + ([tool] if tool else [])
        libraries = sorted({library for binary in binaries for library in _bundled(binary)})
        tag = _tag([*binaries, *libraries])
        files = {f"thm/{file}": (HERE / "thm" / file).read_bytes() for file in _package_files()}
        files[f"thm/{module.name}"] = module.read_bytes()
        if tool:
            files["thm/_bin/thm"] = tool.read_bytes()
        for library in libraries:
            files[f"thm/_libs/{library.name}"] = library.read_bytes()
        info = _dist_info()
        files[f"{info}/METADATA"] = _metadata().encode()
        files[f"{info}/entry_points.txt"] = b"[console_scripts]\nthm = thm._tool:main\n"
        files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: thm_build\n"
                                  f"Root-Is-Purelib: false\nTag: {tag}\n").encode()
        record = [_record_line(path, data) for path, data in files.items()]
        files[f"{info}/RECORD"] = ("\n".join(record + [f"{info}/RECORD,,"]) + "\n").encode()
        name = f"thm-{_version()}-{tag}.whl"
        with zipfile.ZipFile(Path(wheel_directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
            for path, data in files.items():
                entry = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
                mode = 0o755 if path == "thm/_bin/thm" else 0o644  # pip: S_IFREG, then x bits
                entry.external_attr = (0o100000 | mode) << 16
                wheel.writestr(entry, data, zipfile.ZIP_DEFLATED)
    return name


def get_requires_for_build_sdist(config_settings: object = None) -> list[str]:
    return []


def build_sdist(sdist_directory: str, config_settings: object = None) -> str:
    """``thm-VERSION.tar.gz``: this folder (tests aside) and, under ``repository/``, the
    repository sources the module is built from, with ``PKG-INFO``."""
    base = f"thm-{_version()}"
    name = f"{base}.tar.gz"

    def add(archive: tarfile.TarFile, path: Path, arcname: str) -> None:
        if path.is_dir():
            for child in sorted(path.iterdir()):
                test = child.name in ("__pycache__", "tests") or child.name.endswith("_test.cpp")
                if not test:
                    add(archive, child, f"{arcname}/{child.name}")
            return
        entry = archive.gettarinfo(str(path), arcname)
        entry.uid = entry.gid = 0
        entry.uname = entry.gname = ""
        entry.mtime = 0
        with path.open("rb") as data:
            archive.addfile(entry, data)

    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for file in ("pyproject.toml", "thm_build.py", "README.md"):
            add(archive, HERE / file, f"{base}/{file}")
        add(archive, HERE / "thm", f"{base}/thm")
        for source in SDIST_SOURCES:
            add(archive, ROOT / source, f"{base}/repository/{source}")
        info = _metadata().encode()
        entry = tarfile.TarInfo(f"{base}/PKG-INFO")
        entry.size = len(info)
        archive.addfile(entry, io.BytesIO(info))
    return name
