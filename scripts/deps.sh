#!/usr/bin/env bash
# Installs what a fresh machine lacks for building and testing toolhost:
# Debian packages (ripgrep for Grep, neovim for the Neovim plugin's tests,
# fd-find for the Glob benchmark, poppler-utils for reading PDFs, bubblewrap
# for bash.sandbox), the npm
# packages of the Node tests and the VS Code extension, and the Go modules.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'deps: %s\n' "$*" >&2; }

missing=()
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
command -v fdfind >/dev/null 2>&1 || command -v fd >/dev/null 2>&1 || missing+=(fd-find)
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
command -v git >/dev/null 2>&1 || missing+=(git)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    say "missing Debian packages: ${missing[*]} — install them with: sudo apt-get install ${missing[*]}"
    exit 1
  fi
fi

# npm packages: each folder with a package-lock.json gets `npm ci` when its
# node_modules is missing or older than its lock file.
for dir in test/node test/mcp editor-client/vscode; do
  [ -f "$dir/package-lock.json" ] || continue
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules" ]; then
    say "npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$dir/node_modules"
  fi
done

say "go mod download"
go mod download
