-- :checkhealth toolhost — the binary, its version, and the running server.
local M = {}

-- Neovim 0.7 has require("health") with report_*; 0.8/0.9 vim.health with
-- report_*; 0.10+ vim.health with start/ok/warn/error.
local function api()
  local h = vim.health or require("health")
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

function M.check()
  local h = api()
  local th = require("toolhost")
  h.start("toolhost")
  if vim.fn.has("nvim-0.7") ~= 1 then
    h.error("Neovim 0.7 or later is needed")
  end
  local cmd, why = th.command()
  local where = cmd and require("toolhost.binary").describe(cmd)
  if not cmd then
    h.error(why)
  elseif not where then
    h.error(cmd[1] .. " was not found", {
      "Run the plugin's build step (see :help toolhost-install), or pass cmd = { '/path/to/toolhost', 'serve' } to setup{}",
    })
  else
    h.ok("binary: " .. where.path)
    h.ok("from: " .. where.source)
    local out = vim.fn.system({ where.path, "version" })
    if vim.v.shell_error == 0 then
      h.ok("version: " .. vim.trim(out))
    else
      h.warn("`toolhost version` failed: " .. vim.trim(out), { "Run the plugin's build step again (see :help toolhost-install)" })
    end
  end
  if th.is_running() then
    local info = th.state.server_info or {}
    h.ok(string.format("server running (%s %s), root %s", info.name or "toolhost", info.version or "", th.state.root or "?"))
  elseif th.client() then
    h.warn("server starting")
  elseif not th.state.setup_ran then
    h.warn("server not running", { "Call require('toolhost').setup{} or :Toolhost start" })
  else
    -- setup{} ran: the server stopped, or autostart is off.
    local why = th.state.exit_code ~= nil and (" (it stopped: exit code " .. tostring(th.state.exit_code) .. ")") or ""
    h.warn("server not running" .. why, { ":Toolhost start starts it; :Toolhost status shows it once it runs" })
  end
end

return M
