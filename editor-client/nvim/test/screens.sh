#!/usr/bin/env bash
# Captures the Neovim plugin's prompt and review UI as text for
# docs/editors.md: Neovim runs in a detached tmux (from Debian: apt-get
# install tmux) against $TOOLHOST_BIN (else one built from this checkout),
# keys are sent as a user types them, and each screen is taken with
# capture-pane once it shows what it should. Writes the screens to
# $1 (default: a new temporary folder) and prints its path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
command -v tmux >/dev/null || { echo "screens.sh needs tmux: apt-get install tmux" >&2; exit 1; }
work=$(mktemp -d)
sock="toolhost-screens-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
if [ -z "${TOOLHOST_BIN:-}" ]; then
  (cd "$repo" && go build -o "$work/toolhost" ./cmd/toolhost)
  TOOLHOST_BIN=$work/toolhost
fi
out=${1:-$(mktemp -d)}
mkdir -p "$out"
mkdir "$work/project"
printf 'The quick brown fox\njumps over the lazy dog.\n' >"$work/project/sample.txt"
cat >"$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$plugin")
vim.opt.swapfile = false
vim.opt.laststatus = 2
require("toolhost").setup({
  cmd = { "$TOOLHOST_BIN", "serve" },
  permission_mode = "default",
  settings = { edit = { reviewInEditor = true } },
})
LUA

# Polls the screen (every 0.1 s, up to 20 s) until it matches $1.
wait_screen() {
  for _ in $(seq 200); do
    if tmux -L "$sock" capture-pane -p -t screens | grep -q -- "$1"; then
      return 0
    fi
    sleep 0.1
  done
  echo "screens.sh: the screen never showed \"$1\"; it shows:" >&2
  tmux -L "$sock" capture-pane -p -t screens >&2
  exit 1
}
keys() { tmux -L "$sock" send-keys -t screens "$@"; }
shot() { tmux -L "$sock" capture-pane -p -t screens | sed -e 's/[[:space:]]*$//' >"$out/$1.txt"; }

cd "$work/project"
tmux -L "$sock" new-session -d -s screens -x 140 -y 14 "nvim --clean -u $work/init.lua sample.txt"
wait_screen "lazy dog"

# A high-risk Bash call: the prompt lists Deny first.
keys ':Toolhost run Bash {"command": "rm -rf build", "description": "Remove the build folder"}' Enter
wait_screen "Always allow"
shot nvim-permission
keys 1 Enter
wait_screen "denied"

# An edit reviewed in two labelled panes.
keys ":Toolhost run Read {\"file_path\": \"$work/project/sample.txt\"}" Enter
wait_screen "Read"
keys Escape ":Toolhost run Edit {\"file_path\": \"$work/project/sample.txt\", \"old_string\": \"lazy dog\", \"new_string\": \"sleepy cat\"}" Enter
wait_screen "Accept"
shot nvim-review-menu
keys Escape
wait_screen "still waiting"
keys Enter
wait_screen "proposed"
shot nvim-review
keys a
wait_screen "sleepy cat"
echo "$out"
