#!/usr/bin/env bash
# Installs a Debian package a test or tool needs, when it is missing — the one place kpm calls
# apt-get, so a new machine gets kubectl, Chromium or python3-venv from `npm test` alone.
#
#   scripts/debian-package.sh PACKAGE [COMMAND]
#
# With COMMAND: nothing is installed when COMMAND is already on PATH; its path is printed.
# Without: the package is installed unless dpkg already has it. Root runs apt-get itself,
# others through `sudo -n`; anything else is an error that names the package.
set -euo pipefail

package=${1:?usage: debian-package.sh PACKAGE [COMMAND]}
command=${2:-}

say() { echo "debian-package: $*" >&2; }
present() {
  if [[ -n $command ]]; then command -v "$command" >/dev/null 2>&1
  else dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; fi
}

install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    say "$package is missing and this is not a Debian system: install ${command:-$package} first"
    exit 1
  fi
  local sudo=()
  [[ $(id -u) == 0 ]] || sudo=(sudo -n)
  say "installing $package (apt-get)"
  # One apt-get at a time: parallel suites may ask for packages together.
  exec 9>"${TMPDIR:-/tmp}/kpm-apt.lock"
  flock 9
  present && return
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "$package" >&2
}

present || install
if [[ -n $command ]]; then command -v "$command"; fi
