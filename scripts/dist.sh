#!/usr/bin/env bash
# Builds every release artifact into DIST (default dist/) from one Linux
# machine, stamped with VERSION (default: git describe, as `make build`):
#
#   toolhost_<v>_<os>_<arch>.tar.gz   static binaries, one archive per platform
#   checksums.txt                     sha256 of every archive (sha256sum -c format)
#   toolhost-<target>-<v>.vsix        the VS Code extension with that platform's binary
#   toolhost-<v>.tgz                  the npm launcher (`npx -y toolhost mcp`)
#   toolhost-<os>-<arch>-<v>.tgz      the npm package per platform (@toolhost/<os>-<arch>)
#   CHANGELOG.md                      this version's entry, from the commits since the last tag
#
# and lists them with their sizes. The darwin and arm64 binaries are checked
# with `file`; the binary for this machine must report VERSION.
#
# Why a script and not GoReleaser: GoReleaser covers the first two lines
# (cross-builds, archives, checksums), which are a loop of `go build` and
# `tar` here; the VSIXes and npm packages would be hooks around it anyway.
# Installing it compiles ~300 modules on a cold machine (see docs/editors.md
# for the time measured) on every CI run with an empty cache, for nothing the
# loop below does not do.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
DIST=${DIST:-dist}
GO=${GO:-go}

# Go's platform names and the npm / VS Code names for the same machine.
# windows/amd64 and windows/arm64 go here (npm win32-x64, VS Code
# win32-x64, binary toolhost.exe) once toolhost builds for Windows.
TARGETS=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64)

say() { printf 'dist: %s\n' "$*" >&2; }
die() { printf 'dist: %s\n' "$*" >&2; exit 1; }

. scripts/semver.sh
npm_os() { echo "$1"; }
npm_cpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac; }

ver=$(semver "$VERSION")
rm -rf "$DIST"
mkdir -p "$DIST"
dist=$(cd "$DIST" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/toolhost-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Binaries: static (no cgo), stamped, reproducible paths.
say "building $VERSION for ${TARGETS[*]}"
for t in "${TARGETS[@]}"; do
  os=${t%/*} arch=${t#*/}
  out=$stage/bin/${os}_$arch/toolhost
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath \
    -ldflags "-s -w -X github.com/toolhost/toolhost/internal/version.stamped=$VERSION" \
    -o "$out" ./cmd/toolhost
  # The format check catches a build that silently produced the host's binary.
  want=$(case $t in
    linux/amd64) echo 'ELF 64-bit LSB executable, x86-64' ;;
    linux/arm64) echo 'ELF 64-bit LSB executable, ARM aarch64' ;;
    darwin/amd64) echo 'Mach-O 64-bit x86_64 executable' ;;
    darwin/arm64) echo 'Mach-O 64-bit arm64 executable' ;;
  esac)
  desc=$(file -b "$out")
  [[ $desc == "$want"* ]] || die "$t: expected \"$want\", file says \"$desc\""
  if [[ $os == linux ]] && [[ $desc != *"statically linked"* ]]; then
    die "$t: the binary is not static: $desc"
  fi
  if [[ $t == "$($GO env GOOS)/$($GO env GOARCH)" ]]; then
    got=$("$out" version)
    [[ $got == "toolhost $VERSION" ]] || die "$t: \`toolhost version\` says \"$got\", expected \"toolhost $VERSION\""
  fi
  archive=toolhost_${ver}_${os}_$arch.tar.gz
  cp README.md editor-client/vscode/LICENSE "$(dirname "$out")/"
  tar -C "$(dirname "$out")" --owner=0 --group=0 --numeric-owner -czf "$dist/$archive" toolhost README.md LICENSE
done
(cd "$dist" && sha256sum toolhost_*.tar.gz >checksums.txt)

# VS Code: one VSIX per platform, each with its binary in bin/. The
# extension is built once and staged outside the source folder, so a
# packaging run leaves no binary in the checkout.
vscode=editor-client/vscode
[ -x "$vscode/node_modules/.bin/vsce" ] || die "vsce is missing: run \`make deps\` (npm ci in $vscode)"
say "building the VS Code extension"
(cd "$vscode" && npm run --silent build >/dev/null)
ext=$stage/vscode
mkdir -p "$ext"
cp -r "$vscode"/{package.json,README.md,LICENSE,.vscodeignore,schemas,media} "$ext/"
mkdir -p "$ext/dist" && cp "$vscode/dist/extension.js" "$ext/dist/"
node -e '
  const fs = require("fs"); const f = process.argv[1];
  const p = JSON.parse(fs.readFileSync(f, "utf8")); p.version = process.argv[2];
  fs.writeFileSync(f, JSON.stringify(p, null, 2) + "\n");' "$ext/package.json" "$ver"
for t in "${TARGETS[@]}"; do
  os=${t%/*} arch=${t#*/}
  target=$(npm_os "$os")-$(npm_cpu "$arch")
  rm -rf "$ext/bin" && mkdir -p "$ext/bin"
  cp "$stage/bin/${os}_$arch/toolhost" "$ext/bin/toolhost"
  (cd "$ext" && "$repo/$vscode/node_modules/.bin/vsce" package --no-dependencies --allow-missing-repository \
    --target "$target" -o "$dist/toolhost-$target-$ver.vsix" >/dev/null)
done

# npm: a package per platform carrying the binary, chosen by npm from its
# os/cpu fields, and the launcher that finds it at run time (no
# postinstall).
say "packing the npm packages"
optional=()
for t in "${TARGETS[@]}"; do
  os=${t%/*} arch=${t#*/}
  name=@toolhost/$(npm_os "$os")-$(npm_cpu "$arch")
  p=$stage/npm/$os-$arch
  mkdir -p "$p/bin"
  cp "$stage/bin/${os}_$arch/toolhost" "$p/bin/toolhost"
  cat >"$p/package.json" <<EOF
{
  "name": "$name",
  "version": "$ver",
  "description": "The toolhost binary for $(npm_os "$os")-$(npm_cpu "$arch"); installed as an optional dependency of the toolhost package.",
  "license": "MIT",
  "repository": { "type": "git", "url": "https://github.com/toolhost/toolhost.git" },
  "os": ["$(npm_os "$os")"],
  "cpu": ["$(npm_cpu "$arch")"],
  "files": ["bin/toolhost"],
  "preferUnplugged": true
}
EOF
  (cd "$p" && npm pack --silent --pack-destination "$dist" >/dev/null)
  optional+=("$name")
done
launcher=$stage/npm/toolhost
cp -r packaging/npm/toolhost "$launcher"
node -e '
  const fs = require("fs"); const [f, ver, ...deps] = process.argv.slice(1);
  const p = JSON.parse(fs.readFileSync(f, "utf8")); p.version = ver;
  p.optionalDependencies = Object.fromEntries(deps.map((d) => [d, ver]));
  fs.writeFileSync(f, JSON.stringify(p, null, 2) + "\n");' "$launcher/package.json" "$ver" "${optional[@]}"
(cd "$launcher" && npm pack --silent --pack-destination "$dist" >/dev/null)

# The changelog entry: the commits since the previous tag (the last 30 when
# there is none).
prev=$(git describe --tags --abbrev=0 HEAD^ 2>/dev/null || true)
{
  printf '## %s (%s)\n\n' "$VERSION" "$(git log -1 --format=%cs)"
  if [ -n "$prev" ]; then
    git log --no-merges --format='- %s (%h)' "$prev..HEAD"
  else
    git log --no-merges --format='- %s (%h)' -n 30
  fi
} >"$dist/CHANGELOG.md"

say "artifacts of $VERSION in $DIST:"
(cd "$dist" && for f in *; do printf '%10s  %s\n' "$(du -h --apparent-size "$f" | cut -f1)" "$f"; done)
