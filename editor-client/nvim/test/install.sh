#!/usr/bin/env bash
# The Neovim plugin installed the way the README says, into a fresh
# Neovim (XDG_CONFIG_HOME and XDG_DATA_HOME in a temp folder): the
# checkout linked into the packpath, its build step run with no binary
# present, `require("toolhost").setup{}` with no cmd in init.lua, then a
# tool call and :checkhealth toolhost. Run twice:
#   release: the build step fetches the archive `make dist` made
#            (TOOLHOST_DIST) and checks its checksum;
#   go:      the release's checksum does not match, so the build step
#            refuses the archive and builds with the local Go.
# Usage: TOOLHOST_DIST=dist VERSION=v1.2.3 editor-client/nvim/test/install.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
: "${TOOLHOST_DIST:?set TOOLHOST_DIST to the folder make dist wrote}"
: "${VERSION:?set VERSION to the version make dist stamped}"
dist=$(cd "$TOOLHOST_DIST" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/toolhost-nvim-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "nvim install ($1): $2" >&2; exit 1; }

# run_case NAME RELEASE_URL WANT_SOURCE
run_case() {
  local name=$1 url=$2 want_source=$3
  local home=$tmp/$name
  export XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_STATE_HOME=$home/state XDG_CACHE_HOME=$home/cache CLAUDE_CONFIG_DIR=$home/claude
  mkdir -p "$XDG_CONFIG_HOME/nvim" "$XDG_DATA_HOME/nvim/site/pack/toolhost/start" "$home/work"
  # "git clone": this checkout's files (committed or not, ignored ones and
  # any binary left out).
  local clone=$XDG_DATA_HOME/nvim/toolhost
  mkdir -p "$clone"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$clone"
  [ ! -e "$clone/editor-client/nvim/bin" ] || fail "$name" "the copy already holds a binary"
  ln -s "$clone/editor-client/nvim" "$XDG_DATA_HOME/nvim/site/pack/toolhost/start/toolhost"
  TOOLHOST_VERSION=$VERSION TOOLHOST_RELEASE_URL=$url sh "$clone/editor-client/nvim/build.sh" 2>"$home/build.log" ||
    { cat "$home/build.log" >&2; fail "$name" "the build step failed"; }
  printf 'require("toolhost").setup{}\n' >"$XDG_CONFIG_HOME/nvim/init.lua"
  printf 'on disk\n' >"$home/work/a.txt"
  cat >"$home/check.lua" <<'LUA'
local out = {}
local function finish(code)
  vim.fn.writefile(out, vim.env.CHECK_OUT)
  vim.cmd((code == 0 and "qa!" or "cquit " .. code))
end
local th = require("toolhost")
if not vim.wait(30000, th.is_running, 50) then
  table.insert(out, "the server did not start")
  return finish(1)
end
local res, err = th.request_wait("toolhost/callTool", { name = "Read", input = { file_path = vim.fn.getcwd() .. "/a.txt" } }, 30000)
if err or not res then
  table.insert(out, "Read failed: " .. vim.inspect(err))
  return finish(1)
end
for _, c in ipairs(res.content or {}) do
  table.insert(out, "read: " .. (c.text or ""))
end
vim.cmd("checkhealth toolhost")
for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
  table.insert(out, "health: " .. l)
end
finish(0)
LUA
  (cd "$home/work" && CHECK_OUT=$home/out.txt timeout 120 nvim --headless -c "luafile $home/check.lua" </dev/null >"$home/nvim.log" 2>&1) ||
    { cat "$home/nvim.log" "$home/out.txt" 2>/dev/null >&2; fail "$name" "Neovim did not finish the tool call"; }
  grep -aq 'read: .*on disk' "$home/out.txt" || { cat "$home/out.txt" >&2; fail "$name" "Read did not return the file"; }
  grep -aq "binary: $XDG_DATA_HOME/nvim/site/pack/toolhost/start/toolhost/bin/toolhost$" "$home/out.txt" || { cat "$home/out.txt" >&2; fail "$name" "checkhealth names another binary"; }
  grep -aq "from: $want_source" "$home/out.txt" || { cat "$home/out.txt" >&2; fail "$name" "checkhealth does not say the binary came from \"$want_source\""; }
  grep -aq 'version: toolhost ' "$home/out.txt" || { cat "$home/out.txt" >&2; fail "$name" "checkhealth shows no version"; }
  echo "nvim install ($name): ok — $(grep -a 'version:' "$home/out.txt" | sed 's/^health: *//'), $(grep -a 'from:' "$home/out.txt" | sed 's/^health: *//')"
}

run_case release "file://$dist" "release $VERSION"
grep -aq "version: toolhost $VERSION\$" "$tmp/release/out.txt" || fail release "the fetched binary is not $VERSION"

# A release whose checksum does not match is refused; Go builds instead.
bad=$tmp/bad-release
mkdir -p "$bad"
cp "$dist"/toolhost_*.tar.gz "$bad/"
sed 's/^[0-9a-f]\{8\}/00000000/' "$dist/checksums.txt" >"$bad/checksums.txt"
run_case go "file://$bad" "built from "
grep -aq 'does not match checksums.txt' "$tmp/go/build.log" || { cat "$tmp/go/build.log" >&2; fail go "the build log does not say the checksum failed"; }
