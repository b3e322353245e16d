#!/usr/bin/env bash
# Runs a Windows program under Wine in the prefix scripts/wine/setup.sh made
# (WINEPREFIX): the exec wrapper of `go test -exec`. With --which it prints
# the Wine loader it would use.
set -euo pipefail
wine=""
for w in /usr/lib/wine/wine64 "$(command -v wine64 || true)" "$(command -v wine || true)"; do
  if [ -n "$w" ] && [ -x "$w" ]; then wine=$w; break; fi
done
if [ -z "$wine" ]; then
  echo "wine: not installed; apt-get install --no-install-recommends wine64 wine (scripts/deps.sh does it)" >&2
  exit 1
fi
if [ "${1:-}" = --which ]; then echo "$wine"; exit 0; fi
: "${WINEPREFIX:?set WINEPREFIX to a prefix made by scripts/wine/setup.sh}"
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# The tests check internal/wine's detection against this.
export TOOLHOST_UNDER_WINE=1
exec "$wine" "$@"
