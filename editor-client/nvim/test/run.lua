-- Runs the plugin's tests in headless Neovim and exits non-zero on failure.
-- Server tests run when TOOLHOST_BIN names a toolhost binary.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
package.path = here .. "/?.lua;" .. package.path

local h = require("harness")
dofile(here .. "/unit_spec.lua")
-- Its server cases run only with TOOLHOST_BIN.
dofile(here .. "/team_spec.lua")
dofile(here .. "/trust_spec.lua")
dofile(here .. "/docs_spec.lua")
-- Its server case runs only with TOOLHOST_BIN.
dofile(here .. "/review_turn_spec.lua")
local bin = os.getenv("TOOLHOST_BIN")
if bin and bin ~= "" then
  dofile(here .. "/server_spec.lua")
  dofile(here .. "/float_spec.lua")
  dofile(here .. "/commands_spec.lua")
  dofile(here .. "/ask_spec.lua")
  dofile(here .. "/agents_spec.lua")
  dofile(here .. "/claudeide_spec.lua")
  dofile(here .. "/claudeide_e2e_spec.lua")
  dofile(here .. "/intel_spec.lua")
  dofile(here .. "/changes_spec.lua")
  -- Last: it checks docs/editors.md against the screens it captures.
  dofile(here .. "/screens_spec.lua")
else
  io.stdout:write("# TOOLHOST_BIN not set: skipping the tests against the server\n")
end
local failed = h.run()
pcall(function()
  require("toolhost").stop(3000)
end)
vim.cmd(failed > 0 and "cquit" or "qall!")
