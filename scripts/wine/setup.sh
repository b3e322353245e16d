#!/usr/bin/env bash
# Makes a Wine prefix ready to run toolhost's Windows binaries (tests and
# the toolhost.exe itself) on Linux:
#   - creates the prefix (WINEPREFIX, a folder the run owns);
#   - installs bcryptprimitives.dll, built from bcryptprimitives.c with
#     MinGW, when this Wine has none (Wine 8 lacks it; Go's Windows runtime
#     needs its ProcessPrng to start);
#   - writes go-overlay.json into the prefix: a build overlay for go test
#     (see wine-removeall below).
# Usage: WINEPREFIX=DIR scripts/wine/setup.sh
# Then:  go test -overlay "$WINEPREFIX/go-overlay.json" -exec scripts/wine/exec.sh ...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${WINEPREFIX:?set WINEPREFIX to a folder this run owns}"
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wine=$("$here/exec.sh" --which)
mkdir -p "$WINEPREFIX"
# First use creates the prefix; wineboot returns once it is ready.
"$wine" wineboot --init >/dev/null 2>&1
sys32=$WINEPREFIX/drive_c/windows/system32
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
  command -v x86_64-w64-mingw32-gcc >/dev/null ||
    { echo "wine setup: x86_64-w64-mingw32-gcc is missing: apt-get install gcc-mingw-w64-x86-64-win32" >&2; exit 1; }
  x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" "$here/bcryptprimitives.c" -ladvapi32
fi

# wine-removeall: Wine 8 answers the file-deletion call Go's os.RemoveAll
# makes first (FileDispositionInformationEx) with "invalid function"
# instead of "not supported", so Go never tries its older way and every
# t.TempDir cleanup fails. Tests are built against a copy of Go's source
# file that also takes the older way on that answer; nothing else changes,
# and the copy is made from the Go in use, here, never kept.
goroot=$(go env GOROOT)
src=$goroot/src/internal/syscall/windows/at_windows.go
patched=$WINEPREFIX/at_windows.go
marker='case STATUS_INVALID_INFO_CLASS, // the operating system doesn'"'"'t support FileDispositionInformationEx'
if ! grep -qF "$marker" "$src"; then
  echo "wine setup: $src no longer has the line this script patches; update scripts/wine/setup.sh for this Go version" >&2
  exit 1
fi
# 0xC0000002 is STATUS_NOT_IMPLEMENTED, 0xC0000010 STATUS_INVALID_DEVICE_REQUEST.
sed "s|$marker|case NTStatus(0xC0000002), NTStatus(0xC0000010), ${marker#case }|" "$src" >"$patched"
printf '{"Replace":{"%s":"%s"}}\n' "$src" "$patched" >"$WINEPREFIX/go-overlay.json"
