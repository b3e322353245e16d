#!/usr/bin/env bash
# End-to-end test of the extension in a real VS Code (code-server) driven by
# headless Chromium. Uses $TOOLHOST_BIN, else builds the binary; builds the
# .vsix when missing. Screenshots go to e2e/artifacts/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ext=$(dirname "$here")
repo=$(cd "$ext/../.." && pwd)
if [ -z "${CODE_SERVER:-}" ] || [ -z "${PLAYWRIGHT_CORE:-}" ]; then
  # A failed setup must stop the run here, not leave the variables unset.
  assignments=$(bash "$here/env.sh") || { echo "e2e: the VS Code setup (e2e/env.sh) failed; see its message above" >&2; exit 1; }
  eval "$assignments"
fi
export CODE_SERVER E2E_NODE CHROMIUM PLAYWRIGHT_CORE
if [ -z "${TOOLHOST_BIN:-}" ]; then
  bindir=$(mktemp -d)
  trap 'rm -rf "$bindir"' EXIT
  (cd "$repo" && go build -o "$bindir/toolhost" ./cmd/toolhost)
  TOOLHOST_BIN=$bindir/toolhost
fi
export TOOLHOST_BIN
cd "$ext"
# $TOOLHOST_VSIX (a platform VSIX of make dist) is tested as it is;
# otherwise a VSIX without a binary is packaged, using $TOOLHOST_BIN.
if [ -n "${TOOLHOST_VSIX:-}" ]; then
  [ -f "$TOOLHOST_VSIX" ] || { echo "e2e: TOOLHOST_VSIX=$TOOLHOST_VSIX does not exist (make dist makes it)" >&2; exit 1; }
elif [ ! -f toolhost.vsix ] || [ -n "$(find src package.json -newer toolhost.vsix -print -quit)" ]; then
  npm run build --silent && npm run package --silent >/dev/null
fi
node "$here/run.mjs"
# Further scenarios, each in its own file, each with its own code-server.
for scenario in "$here"/scenarios/*.mjs; do
  [ -e "$scenario" ] || continue
  node "$scenario"
done
