#!/usr/bin/env bash
# make e2e: both editors end to end with the built binary. VS Code runs as
# code-server driven by headless Chromium (editor-client/vscode/e2e; the
# first run downloads code-server and Chromium from the npm registry and
# shows its progress); Neovim 0.7 runs headless with the plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TOOLHOST_BIN:=$PWD/bin/toolhost}"
export TOOLHOST_BIN
echo "== VS Code (code-server) end to end"
(cd editor-client/vscode && npm run e2e)
echo "== Neovim end to end"
editor-client/nvim/test/run.sh
