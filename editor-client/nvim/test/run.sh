#!/usr/bin/env bash
# Runs the Neovim plugin's tests in headless Neovim against a real toolhost
# binary: $TOOLHOST_BIN, else one built from this checkout. Prints
# "N passed, M failed" last and exits non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
if [ -z "${TOOLHOST_BIN:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$repo" && go build -o "$tmp/toolhost" ./cmd/toolhost)
  TOOLHOST_BIN=$tmp/toolhost
fi
export TOOLHOST_BIN
cd "$plugin"
out=$(mktemp)
status=0
nvim --headless --noplugin -u test/minimal_init.lua -c "luafile test/run.lua" >"$out" 2>&1 </dev/null || status=$?
cat "$out"
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -1 || true)
rm -f "$out"
if [ -z "$last" ]; then
  echo "the Neovim tests did not finish" >&2
  exit 1
fi
exit "$status"
