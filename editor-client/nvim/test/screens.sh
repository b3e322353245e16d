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
-- A floating vim.ui.select of fixed width, as dressing.nvim or snacks give
-- (:lua FloatUI()): one line per item, <CR> picks, <Esc> dismisses.
function FloatUI()
  vim.ui.select = function(items, opts, on_choice)
    local lines = {}
    for i, item in ipairs(items) do
      lines[i] = (opts.format_item or tostring)(item)
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    local win = vim.api.nvim_open_win(buf, true, { relative = "editor", row = 6, col = 10, width = 60, height = #lines,
      style = "minimal", border = "single" })
    -- Neovim 0.7 floats have no title: the prompt goes on the top border's
    -- line as the plugins draw it, cut to the float's width.
    local title = vim.api.nvim_open_win(vim.api.nvim_create_buf(false, true), false, { relative = "editor", row = 5, col = 11,
      width = 58, height = 1, style = "minimal", focusable = false, zindex = 60 })
    vim.api.nvim_buf_set_lines(vim.api.nvim_win_get_buf(title), 0, -1, false, { " " .. opts.prompt })
    local function pick(choice)
      vim.api.nvim_win_close(title, true)
      vim.api.nvim_win_close(win, true)
      on_choice(choice)
    end
    vim.keymap.set("n", "<CR>", function() pick(items[vim.api.nvim_win_get_cursor(win)[1]]) end, { buffer = buf })
    vim.keymap.set("n", "<Esc>", function() pick(nil) end, { buffer = buf })
  end
end
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
tmux -L "$sock" new-session -d -s screens -x 140 -y 20 "nvim --clean -u $work/init.lua sample.txt"
wait_screen "lazy dog"

# A long Bash: its output line by line in the progress float, Ctrl-C stops it.
keys ':Toolhost run Bash {"command": "for i in 1 2 3; do echo step $i; done; sleep 30", "description": "Count, then wait"}' Enter
wait_screen "Always allow"
shot nvim-permission-medium
keys 1 Enter
wait_screen "step 3"
shot nvim-progress
keys C-c
wait_screen "cancelled Bash"

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

# Questions through a floating vim.ui.select 60 columns wide: the long
# question whole in a card above it; a multi-select as a checklist.
keys Escape ':lua FloatUI()' Enter
keys ':Toolhost run AskUserQuestion {"questions": [{"question": "Which database should the new reporting service use for its nightly aggregates and dashboards?", "header": "Database", "multiSelect": false, "options": [{"label": "Postgres", "description": "the main cluster"}, {"label": "SQLite", "description": "a file next to the service"}]}, {"question": "Which checks should run before every merge?", "header": "Checks", "multiSelect": true, "options": [{"label": "Tests", "description": "go test"}, {"label": "Lint", "description": "staticcheck"}]}]}' Enter
wait_screen "Postgres"
shot nvim-question
keys Enter
wait_screen "Tests"
keys Enter
wait_screen "\[x\] Tests"
shot nvim-checklist
keys Down Down Enter
wait_screen "Tests"

# :Toolhost tasks: a task's output (<CR>) and stop (x).
keys Escape ':Toolhost mode bypassPermissions' Enter
keys ':Toolhost run Bash {"command": "echo indexing; sleep 60", "run_in_background": true}' Enter
wait_screen "bash-1"
keys ':Toolhost tasks' Enter
wait_screen "x stop"
keys Down Enter
wait_screen "indexing"
shot nvim-tasks

# A crash: the server starts again by itself, in the same mode.
keys ':lua vim.loop.kill(require("toolhost").state.pid, 9)' Enter
wait_screen "was restarted"
shot nvim-restarted

# An agent's terminal in its own tab.
printf '#!/bin/sh\necho "Claude Code (stand-in)"; sleep 60\n' >"$work/claude"
chmod +x "$work/claude"
keys ":tabnew | terminal $work/claude" Enter
wait_screen "stand-in"
shot nvim-terminal
echo "$out"
