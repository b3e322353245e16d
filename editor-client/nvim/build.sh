#!/bin/sh
# The Neovim plugin's build step: puts a toolhost binary in the plugin's
# bin/ (where setup{} with no cmd finds it) and notes in bin/toolhost.source
# where it came from (:checkhealth toolhost shows it).
#
#   1. When the checkout is a release (a tag v1.2.3, or TOOLHOST_VERSION),
#      it downloads that release's archive for this platform and checks it
#      against the release's checksums.txt.
#   2. Otherwise, or when the download or its check fails, it builds the
#      binary from this checkout with the local Go.
#
# Plugin managers run it from their build hook (lazy.nvim `build`, vim-plug
# `do`); run it by hand after a plain packpath install or an upgrade.
# TOOLHOST_RELEASE_URL replaces the release folder's address (a mirror, or
# file:// for a folder of artifacts made by `make dist`).
set -eu
plugin=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$plugin/../.." && pwd)
bin=$plugin/bin
say() { printf 'toolhost build: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os= ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch= ;;
esac

version=${TOOLHOST_VERSION:-$(git -C "$repo" describe --tags --exact-match 2>/dev/null || true)}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# fetch: the release archive for this platform, checked, into bin/.
# Fails (returning 1, with a message) rather than leaving a binary unchecked.
fetch() {
  [ -n "$version" ] || { say "this checkout is not a release (no tag), so there is no archive to fetch"; return 1; }
  [ -n "$os" ] && [ -n "$arch" ] || { say "no release archive for $(uname -s) $(uname -m)"; return 1; }
  command -v curl >/dev/null 2>&1 || { say "curl is missing"; return 1; }
  . "$repo/scripts/semver.sh"
  v=$(semver "$version")
  base=${TOOLHOST_RELEASE_URL:-https://github.com/toolhost/toolhost/releases/download/$version}
  archive=toolhost_${v}_${os}_$arch.tar.gz
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolhost-build.XXXXXX")
  say "fetching $base/$archive"
  if ! curl -fsSL --retry 2 -o "$tmp/$archive" "$base/$archive" || ! curl -fsSL --retry 2 -o "$tmp/checksums.txt" "$base/checksums.txt"; then
    rm -rf "$tmp"
    say "could not download the release archive"
    return 1
  fi
  want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")
  got=$(sha256 "$tmp/$archive")
  if [ -z "$want" ] || [ "$want" != "$got" ]; then
    rm -rf "$tmp"
    say "the archive's sha256 ($got) does not match checksums.txt (${want:-no entry}): not using it"
    return 1
  fi
  mkdir -p "$tmp/x" "$bin"
  tar -xzf "$tmp/$archive" -C "$tmp/x" toolhost
  mv "$tmp/x/toolhost" "$bin/toolhost.new"
  rm -rf "$tmp"
  printf 'release %s (%s, sha256 checked)\n' "$version" "$base/$archive" >"$bin/toolhost.source.new"
}

# build: go build from this checkout, stamped as `make build` stamps it.
build() {
  command -v go >/dev/null 2>&1 || die "no release archive could be used and Go is not installed: install Go (https://go.dev/dl/) and run this again, or put toolhost on PATH"
  [ -f "$repo/go.mod" ] || die "$repo is not a toolhost checkout (no go.mod): the plugin must be used from the repository's editor-client/nvim"
  stamp=$(git -C "$repo" describe --tags --always --dirty 2>/dev/null || echo dev)
  say "building toolhost $stamp with $(go version | cut -d' ' -f3)"
  mkdir -p "$bin"
  (cd "$repo" && CGO_ENABLED=0 go build -trimpath \
    -ldflags "-s -w -X github.com/toolhost/toolhost/internal/version.stamped=$stamp" \
    -o "$bin/toolhost.new" ./cmd/toolhost)
  printf 'built from %s with %s\n' "$stamp" "$(go version | cut -d' ' -f3)" >"$bin/toolhost.source.new"
}

fetch || build
# The old binary is replaced only by one that runs.
"$bin/toolhost.new" version >/dev/null 2>&1 || die "the new binary does not run: $bin/toolhost.new"
mv "$bin/toolhost.new" "$bin/toolhost"
mv "$bin/toolhost.source.new" "$bin/toolhost.source"
say "$("$bin/toolhost" version) in $bin/toolhost ($(cat "$bin/toolhost.source"))"
