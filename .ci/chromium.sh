#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing. Prints its path.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
if ! command -v chromium >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
command -v chromium
