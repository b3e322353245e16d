#!/usr/bin/env bash
# Installs what a fresh machine lacks for building and testing toolhost:
# Debian packages (ripgrep for Grep, neovim for the Neovim plugin's tests,
# fd-find for the Glob benchmark, poppler-utils for reading PDFs, bubblewrap
# for bash.sandbox, Wine and MinGW for the Windows tests), the npm
# packages of the Node tests and the VS Code extension, and the Go modules.
# Safe to run again: it installs only what is missing.
#
# Each step's output goes to a log; a step that fails stops the script with
# a message naming the step and the end of its log, never a later error.
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp "${TMPDIR:-/tmp}/toolhost-deps.XXXXXX")
say() { printf 'deps: %s\n' "$*" >&2; }
# step NAME CMD...: runs CMD with its output in the log; stops on failure.
step() {
  local name=$1
  shift
  if ! "$@" >>"$log" 2>&1; then
    printf 'deps: step "%s" failed; the end of its log (%s):\n' "$name" "$log" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v fdfind >/dev/null 2>&1 || command -v fd >/dev/null 2>&1 || missing+=(fd-find)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# make test-windows runs the Windows build under Wine (wine64 is the 64-bit
# loader, wine its wrapper) and builds a small DLL for it with MinGW.
# Without their recommended packages (desktop fonts and libraries, ~1 GB).
bare=()
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null 2>&1 || bare+=(wine64 wine)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || bare+=(gcc-mingw-w64-x86-64-win32)
# apt_install FLAGS PACKAGE...: installs the packages with apt-get, as root
# or through sudo; the first call also updates the package lists.
updated=""
apt_install() {
  local flags=$1
  shift
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    say "missing Debian packages: $* — install them as root: apt-get install $flags $*"
    exit 1
  fi
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  say "installing Debian packages: $* (log: $log)"
  [ -n "$updated" ] || step "apt-get update" $sudo apt-get update
  updated=1
  step "apt-get install $*" env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y $flags "$@"
}
[ ${#missing[@]} -eq 0 ] || apt_install "" "${missing[@]}"
[ ${#bare[@]} -eq 0 ] || apt_install --no-install-recommends "${bare[@]}"

# npm packages: each folder with a package-lock.json gets `npm ci` when its
# node_modules is missing or older than its lock file.
for dir in test/node test/mcp editor-client/vscode editor-client/nvim/test/lsp; do
  [ -f "$dir/package-lock.json" ] || continue
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    say "npm ci in $dir (log: $log)"
    step "npm ci in $dir" env -C "$dir" npm ci --no-audit --no-fund
    touch "$dir/node_modules"
  fi
done

say "go mod download"
step "go mod download" go mod download
rm -f "$log"
