#!/usr/bin/env bash
# Builds the package's artifacts as scripts/package does (package.py: the sdist, then the
# wheel built from it), and installs the wheel the way a host would: into a fresh virtual
# environment of PYTHON, offline, with no compiler, CMake or make on PATH. Checks with ldd
# that the module loads nothing from outside the wheel but the C runtime, and runs every
# shared case through the installed copy (not the build tree):
#     install_test.sh WORK_DIR PYTHON [--with-pytest]
# --with-pytest then adds the system's packages to the environment, and pytest runs every
# test. Everything is made under WORK_DIR (emptied first).
set -euo pipefail
scratch="$1"
python="$2"
here="$(cd "$(dirname "$0")" && pwd)"
package="$(dirname "$here")"
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
"$python" "$here/check_bundle.py" "$(ls "$("$venv" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')"/thm/_thm*.so)"
if [ "${3:-}" = --with-pytest ]; then
  # Only now the system's packages (pytest) join the environment, after the installed thm.
  "$python" -c 'import site; print("\n".join(site.getsitepackages()))' \
    > "$("$venv" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/system-packages.pth"
fi
cd "$scratch"  # far from the source tree: `import thm` must find the installed copy
"${bare[@]}" "$venv" -c 'import thm, sys; assert "site-packages" in thm.__file__, thm.__file__; print("thm", thm.__version__, "for", sys.version.split()[0], "at", thm.__file__)'
"${bare[@]}" "$venv" "$here/run_cases.py" "$(dirname "$(dirname "$package")")/model/cases"
if [ "${3:-}" = --with-pytest ]; then
  "$venv" -m pytest -q -p no:cacheprovider "$here"
fi
"$venv" -m pip uninstall --yes --quiet thm
! "$venv" -c 'import thm' 2>/dev/null
rm -rf "$scratch"
echo "install_test: $(basename "${wheel[0]}") installed without a compiler, tested and uninstalled for $python"
