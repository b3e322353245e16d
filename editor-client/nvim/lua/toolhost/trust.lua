-- The trust question: when the workspace folder is not trusted and its
-- settings ask for something toolhost ignored (hooks, MCP servers, allow
-- rules, ...), the server sends toolhost/requestTrust once; the user sees
-- every item in a vim.ui.select and trusts the folder or not.
local dialogs = require("toolhost.dialogs")

local M = {}

M.TRUST = "Trust folder"
M.DONT_TRUST = "Don't trust"

--- Keys whose items run something the moment the folder is trusted.
local RUNS = { hooks = true, mcpServers = true, env = true, enableAllProjectMcpServers = true, enabledMcpjsonServers = true }

--- Whether an item runs something as soon as the folder is trusted.
function M.runs_at_once(item)
  return RUNS[item.key] == true or (type(item.why) == "string" and item.why:lower():find("runs a command", 1, true) ~= nil)
end

--- The question: the folder, then what would run at once (hooks, MCP
--- servers, environment), then the rest the folder would enable.
function M.prompt(params)
  local runs, rest = {}, {}
  for _, item in ipairs(params.items or {}) do
    table.insert(M.runs_at_once(item) and runs or rest, "  - " .. tostring(item.what))
  end
  local folder = params.folder or "this folder"
  local lines
  if #runs > 0 then
    lines = { string.format("toolhost: trusting %s runs its commands at once. Until you trust it, its settings are ignored.", folder), "Runs at once when trusted:" }
    vim.list_extend(lines, runs)
    if #rest > 0 then
      table.insert(lines, "Also grants:")
    end
  else
    lines = { string.format("toolhost: do you trust %s? Until you do, its settings are ignored:", folder) }
  end
  vim.list_extend(lines, rest)
  table.insert(lines, "Trusting runs these commands and grants these permissions.")
  return table.concat(lines, "\n")
end

--- The answer for a choice: only "Trust folder" trusts; dismissing does not.
function M.answer(choice)
  return { trust = choice == M.TRUST }
end

--- The folders the user chose "Don't trust" for in this Neovim: a server
--- started again (after a crash, or by :Toolhost restart) asks anew, and
--- is answered without asking the user again.
M.declined = {}

--- Handles toolhost/requestTrust. "Don't trust" comes first, so the default
--- choice (Enter, or the first entry) never trusts.
function M.request_trust(params, opts)
  params = params or {}
  if params.folder and M.declined[params.folder] then
    return M.answer(M.DONT_TRUST)
  end
  local choice = dialogs.select(opts, { M.DONT_TRUST, M.TRUST }, {
    prompt = M.prompt(params),
    kind = "toolhost.trust",
  })
  if choice == M.DONT_TRUST and params.folder then
    M.declined[params.folder] = true
  end
  return M.answer(choice)
end

-- The sets of ignored settings already announced, by M.ignored_key: a
-- server restarted after a crash sends the same trust again, and saying it
-- twice would hide the restart's own message.
M.announced = {}

--- The identity of what an untrusted folder's trust ignores: its items'
--- files and keys, in order.
function M.ignored_key(ignored)
  local parts = {}
  for _, item in ipairs(ignored) do
    table.insert(parts, tostring(item.file) .. "\0" .. tostring(item.key) .. "\0" .. tostring(item.what))
  end
  return table.concat(parts, "\n")
end

--- Handles toolhost/trustChanged: keeps the trust in the plugin's state and
--- says, once per Neovim for the same ignored settings, when the folder
--- stays untrusted. Returns whether it said so.
function M.changed(state, params, opts)
  state.trust = params
  if type(params) ~= "table" or type(params.ignored) ~= "table" or #params.ignored == 0 then
    return false
  end
  local key = M.ignored_key(params.ignored)
  if M.announced[key] then
    return false
  end
  M.announced[key] = true
  if opts.progress ~= false then
    vim.schedule(function()
      -- Right after the trust question, whose typed answer is still on the
      -- command line: redrawn first and echoed on one line, or the two
      -- lines stop at a "Press ENTER" that takes the user's next key.
      vim.cmd("redraw")
      require("toolhost.client").echo(
        string.format("toolhost: this folder is not trusted; %d of its settings are ignored (:Toolhost status)", #params.ignored),
        "WarningMsg"
      )
    end)
  end
  return true
end

return M
