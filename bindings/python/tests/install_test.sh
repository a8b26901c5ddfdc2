#!/usr/bin/env bash
# Installs the package the way README.md says, into a fresh virtual environment of PYTHON,
# offline, and runs every shared case through the installed copy (not the build tree):
#     install_test.sh WORK_DIR PYTHON [--with-pytest]
# The install runs in a bare environment; --with-pytest then adds the system's packages to it,
# and pytest runs every test. Everything is made under WORK_DIR (emptied first), the build
# backend's scratch build included, so that a compiler cache keyed on paths relative to the
# checkout finds it again.
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

# A bare environment: the build backend must need nothing but pip.
"$python" -m venv "$scratch/venv"
venv="$scratch/venv/bin/python"
"$venv" -m pip install --no-index --quiet "$package"
if [ "${3:-}" = --with-pytest ]; then
  # Only now the system's packages (pytest) join the environment, after the installed thm.
  "$python" -c 'import site; print("\n".join(site.getsitepackages()))' \
    > "$("$venv" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/system-packages.pth"
fi
cd "$scratch"  # far from the source tree: `import thm` must find the installed copy
"$venv" -c 'import thm, sys; assert "site-packages" in thm.__file__, thm.__file__; print("thm", thm.__version__, "for", sys.version.split()[0], "at", thm.__file__)'
"$venv" "$here/run_cases.py" "$(dirname "$(dirname "$package")")/model/cases"
if [ "${3:-}" = --with-pytest ]; then
  "$venv" -m pytest -q -p no:cacheprovider "$here"
fi
"$venv" -m pip uninstall --yes --quiet thm
! "$venv" -c 'import thm' 2>/dev/null
rm -rf "$scratch"
echo "install_test: installed, tested and uninstalled for $python"
