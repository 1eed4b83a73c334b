#!/usr/bin/env bash
# The Python environment of examples/python and the Python integration suite: a venv in
# $KPM_HOME/python (default .kpm/python) with the pinned packages of
# examples/python/requirements.txt from PyPI. Prints the venv's python on stdout.
#
# Idempotent and fast when present: the venv is reused while its marker holds the hash of the
# requirements file; a changed file (or an interrupted install) builds it again. On Debian,
# `python3 -m venv` needs python3-venv, installed here when missing (as root, or with sudo).
#
#   python=$(scripts/python-env.sh) && "$python" examples/python/boot_session.py --help
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
home=${KPM_HOME:-$root/.kpm}
venv=$home/python
requirements=$root/examples/python/requirements.txt
python=${KPM_PYTHON:-python3}
marker=$venv/.requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)

say() { echo "python-env: $*" >&2; }
ready() { [[ -x $venv/bin/python && -f $marker && $(<"$marker") == "$wanted" ]]; }

# Debian splits venv (and ensurepip) out of python3.
ensure_venv_module() {
  "$python" -c 'import ensurepip, venv' 2>/dev/null || "$root/scripts/debian-package.sh" python3-venv
}

install_venv() {
  ensure_venv_module
  rm -rf "$venv"
  say "creating $venv"
  "$python" -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --requirement "$requirements" >&2
  # Written last: its presence means the packages are complete.
  echo "$wanted" >"$marker"
}

if ! ready; then
  mkdir -p "$home"
  # One install at a time (parallel test workers, several shells).
  exec 9>"$home/python-env.lock"
  flock 9
  ready || install_venv
fi
echo "$venv/bin/python"
