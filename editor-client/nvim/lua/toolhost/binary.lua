-- Which toolhost binary the plugin starts when setup{} names no cmd, and
-- where it came from (for :checkhealth toolhost): the one the build step
-- (build.sh) put in the plugin's own bin/, else `toolhost` on PATH.
local M = {}

-- The plugin's folder (editor-client/nvim), from this file's own path.
local function plugin_root()
  local here = debug.getinfo(1, "S").source:sub(2)
  return vim.fn.fnamemodify(here, ":p:h:h:h")
end

local function exe_name()
  return vim.fn.has("win32") == 1 and "toolhost.exe" or "toolhost"
end

--- Where build.sh puts the binary.
function M.bundled_path()
  return plugin_root() .. "/bin/" .. exe_name()
end

--- What build.sh recorded about the binary it put in place, or nil.
local function build_note()
  local f = io.open(plugin_root() .. "/bin/toolhost.source", "r")
  if not f then
    return nil
  end
  local note = vim.trim(f:read("*a") or "")
  f:close()
  return note ~= "" and note or nil
end

--- The binary to run with no cmd in setup{}: {path, source}, or nil and a
--- message saying how to get one.
function M.find()
  local bundled = M.bundled_path()
  if vim.fn.executable(bundled) == 1 then
    return { path = bundled, source = build_note() or "the plugin's bin/ (put there by its build step)" }
  end
  local on_path = vim.fn.exepath(exe_name())
  if on_path ~= "" then
    return { path = on_path, source = "PATH" }
  end
  return nil,
    string.format(
      "toolhost: no toolhost binary: run the plugin's build step (sh %s/build.sh, or your plugin manager's build), put toolhost on PATH, or pass cmd = { '/path/to/toolhost', 'serve' } to setup{}",
      plugin_root()
    )
end

--- The {path, source} of the command setup{} resolved to.
function M.describe(cmd)
  local path = vim.fn.exepath(cmd[1])
  if path == "" then
    return nil
  end
  if path == vim.fn.exepath(M.bundled_path()) then
    return { path = path, source = build_note() or "the plugin's bin/" }
  end
  return { path = path, source = "setup{ cmd }" }
end

return M
