#!/usr/bin/env bash
# Installs what the headless-browser test (notebooks/browser_test.go) needs from the system:
# Debian's chromium and chromium-driver, with apt-get, when they are missing and this user may
# install packages (root, or sudo without a password). Otherwise it says what to install and
# exits 0: the test then skips, except under CI, where it fails.
set -euo pipefail

say() { printf '[browser] %s\n' "$*"; }
have() { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }

if have; then
  say "$(chromium --version 2>/dev/null | head -1); $(chromedriver --version 2>/dev/null | head -1)"
  exit 0
fi
hint="install Chromium and its ChromeDriver (Debian/Ubuntu: apt-get install chromium chromium-driver)"
if ! command -v apt-get >/dev/null 2>&1; then
  say "chromium or chromedriver is missing and there is no apt-get: $hint"
  exit 0
fi
sudo=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    say "chromium or chromedriver is missing and installing packages needs root: $hint"
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp "${TMPDIR:-/tmp}/stagnb-apt.XXXXXX")"
say "apt-get install chromium chromium-driver (first time: 1-2 minutes; log: $log)"
if ! "${sudo[@]}" apt-get install -y -q chromium chromium-driver >"$log" 2>&1; then
  say "apt-get install failed; apt-get update and again"
  "${sudo[@]}" apt-get update -q >>"$log" 2>&1 || true
  if ! "${sudo[@]}" apt-get install -y -q chromium chromium-driver >>"$log" 2>&1; then
    tail -20 "$log" >&2
    say "could not install chromium: $hint"
    exit 1
  fi
fi
say "$(chromium --version 2>/dev/null | head -1); $(chromedriver --version 2>/dev/null | head -1)"
