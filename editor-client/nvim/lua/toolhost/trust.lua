-- The trust question: when the workspace folder is not trusted and its
-- settings ask for something toolhost ignored (hooks, MCP servers, allow
-- rules, ...), the server sends toolhost/requestTrust once; the user sees
-- every item in a vim.ui.select and trusts the folder or not.
local dialogs = require("toolhost.dialogs")

local M = {}

M.TRUST = "Trust folder"
M.DONT_TRUST = "Don't trust"

--- The question: the folder, then one line per item the folder would enable.
function M.prompt(params)
  local lines = { string.format("toolhost: do you trust %s? Until you do, its settings are ignored:", params.folder or "this folder") }
  for _, item in ipairs(params.items or {}) do
    table.insert(lines, "  - " .. tostring(item.what))
  end
  table.insert(lines, "Trusting runs these commands and grants these permissions.")
  return table.concat(lines, "\n")
end

--- The answer for a choice: only "Trust folder" trusts; dismissing does not.
function M.answer(choice)
  return { trust = choice == M.TRUST }
end

--- Handles toolhost/requestTrust.
function M.request_trust(params, opts)
  local choice = dialogs.select(opts, { M.DONT_TRUST, M.TRUST }, {
    prompt = M.prompt(params or {}),
    kind = "toolhost.trust",
  })
  return M.answer(choice)
end

--- Handles toolhost/trustChanged: keeps the trust in the plugin's state and
--- says, once, when the folder stays untrusted.
function M.changed(state, params, opts)
  state.trust = params
  if type(params) ~= "table" or type(params.ignored) ~= "table" or #params.ignored == 0 then
    return
  end
  if opts.progress ~= false then
    vim.schedule(function()
      vim.notify(
        string.format("toolhost: this folder is not trusted; %d of its settings are ignored (:Toolhost status)", #params.ignored),
        vim.log.levels.WARN
      )
    end)
  end
end

return M
