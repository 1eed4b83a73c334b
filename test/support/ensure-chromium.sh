#!/usr/bin/env bash
# Debian's Chromium for the dashboard's browser test (driven by playwright-core, which never
# downloads a browser). A no-op when it is already installed.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "chromium is missing: install Debian's package (apt-get install -y chromium) as root" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium
