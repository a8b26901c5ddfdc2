#!/usr/bin/env bash
# Builds the package's artifacts as scripts/package does (package.py: the sdist, then the
# wheel built from it), and installs the wheel the way a host would: into a fresh virtual
# environment of PYTHON, offline, with no compiler, CMake or make on PATH. Checks with ldd
# that the module loads nothing from outside the wheel but the C runtime, and runs every
# shared case through the installed copy (not the build tree). The wheel carries the thm
# tool named by THM_PACKAGE_TOOL (scripts/package_tool): the same ldd check for it, and the
# suite run through `python -m thm.conformance` and the `thm` command:
#     install_test.sh WORK_DIR PYTHON [--with-pytest]
# --with-pytest then adds the system's packages to the environment, and pytest runs every
# test. Everything is made under WORK_DIR (emptied first).
set -euo pipefail
scratch="$1"
python="$2"
here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
: "${THM_PACKAGE_TOOL:?names the thm tool the wheel carries: scripts/package_tool DIR prints it}"
# WORK_DIR is emptied: only one this script made (it holds the marker) or none at all.
if [ -e "$scratch" ] && [ ! -f "$scratch/.thm-install-test" ]; then
  echo "install_test: $scratch exists and is not a work directory of this test; not deleting it" >&2
  exit 2
fi
rm -rf "$scratch"
mkdir -p "$scratch/tmp"
touch "$scratch/.thm-install-test"
export TMPDIR="$scratch/tmp"

"$python" "$package/package.py" "$scratch/dist"
wheel=("$scratch"/dist/thm-*.whl)

# A bare environment, and a PATH with nothing on it: a wheel installs with pip alone.
"$python" -m venv "$scratch/venv"
venv="$scratch/venv/bin/python"
mkdir "$scratch/bin"
bare=(env PATH="$scratch/bin")
"${bare[@]}" "$venv" -c 'import shutil, sys; tools = [t for t in ("cc", "gcc", "g++", "c++", "cmake", "make", "ninja") if shutil.which(t)]; sys.exit(f"on PATH: {tools}" if tools else 0)'
"${bare[@]}" "$venv" -m pip install --no-index --quiet "${wheel[0]}"
platlib="$("$venv" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')"
"$python" "$here/check_bundle.py" "$(ls "$platlib"/thm/_thm*.so)" "$platlib/thm/_bin/thm"
if [ "${3:-}" = --with-pytest ]; then
  # Only now the system's packages (pytest) join the environment, after the installed thm.
  "$python" -c 'import site; print("\n".join(site.getsitepackages()))' \
    > "$("$venv" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/system-packages.pth"
fi
cd "$scratch"  # far from the source tree: `import thm` must find the installed copy
"${bare[@]}" "$venv" -c 'import thm, sys; assert "site-packages" in thm.__file__, thm.__file__; print("thm", thm.__version__, "for", sys.version.split()[0], "at", thm.__file__)'
"${bare[@]}" "$venv" "$here/run_cases.py" "$(dirname "$(dirname "$package")")/model/cases"
# The tool: the console script, python -m thm.conformance with the suite's own exit codes,
# and a store this build does not carry refused as bad usage.
"${bare[@]}" "$scratch/venv/bin/thm" --version | grep -qx "thm $("$venv" -c 'import thm; print(thm.__version__)')"
[ "$("${bare[@]}" "$venv" -m thm.conformance --list-checks | wc -l)" -ge 30 ]
"${bare[@]}" "$venv" -m thm.conformance --short --queue memory >/dev/null 2>&1
status=0
"${bare[@]}" "$venv" -m thm.conformance --queue sqlite:queue.db 2>"$scratch/sqlite.txt" || status=$?
[ "$status" = 2 ] && grep -q "built without the SQLite store" "$scratch/sqlite.txt"
if [ "${3:-}" = --with-pytest ]; then
  # With the tool: the suite against a harness in Python is no longer skipped.
  THM_REQUIRE_TOOL=1 "$venv" -m pytest -q -p no:cacheprovider "$here"
fi
"$venv" -m pip uninstall --yes --quiet thm
! "$venv" -c 'import thm' 2>/dev/null
rm -rf "$scratch"
echo "install_test: $(basename "${wheel[0]}") installed without a compiler, tested and uninstalled for $python"
