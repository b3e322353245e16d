-- Other agents inside this Neovim session: once the server runs, the
-- session's file (toolhost/status → agentEndpoint.sessionFile) is put in
-- $TOOLHOST_SESSION, which Neovim's jobs, terminals and :! commands
-- inherit, so an agent plugin's MCP server entry
--   { command = "toolhost", args = { "mcp", "--attach" } }
-- reaches this session: its reads see the buffers, its edits open the
-- diff review, its prompts are this plugin's dialogs.
-- :Toolhost agents prints ready-to-paste configurations.
local M = {}

--- The variable `toolhost mcp --attach` reads (discovery.EnvVar).
M.ENV = "TOOLHOST_SESSION"

--- The endpoint of the running session, from toolhost/status.
M.endpoint = nil

-- The value this plugin put in $TOOLHOST_SESSION, to clear only its own.
local exported = nil

--- Reads the endpoint from the server and exports it; called with the
--- client once the server is initialized (before Neovim lists the client
--- as active, so the request goes to it directly).
function M.on_init(client)
  require("toolhost.client").request(client, "toolhost/status", vim.empty_dict(), function(err, status)
    -- A reply that arrives while this server stops (stop() forgot its
    -- endpoint already) or after another took its place must not export
    -- a dead server's port and session.
    local state = require("toolhost").state
    if state.stopping or state.client_id ~= client.id then
      return
    end
    if not err then
      require("toolhost.claudeide").on_status(client, status)
    end
    if err or type(status) ~= "table" or type(status.agentEndpoint) ~= "table" then
      return -- the endpoint is off (server.agentEndpoint = false)
    end
    M.endpoint = status.agentEndpoint
    local file = M.endpoint.sessionFile
    if type(file) == "string" and file ~= "" then
      vim.env[M.ENV] = file
      exported = file
    end
  end)
end

--- Forgets the endpoint when the server stops.
function M.on_stop()
  require("toolhost.claudeide").on_stop()
  M.endpoint = nil
  if exported and vim.env[M.ENV] == exported then
    vim.env[M.ENV] = nil
  end
  exported = nil
end

--- Agent command lines whose :terminal buffers get a readable name.
M.TERMINAL_AGENTS = { "claude", "codex", "gemini", "opencode", "aider", "goose", "crush" }

--- The readable name of a terminal buffer named `name` (term://{cwd}//
--- {pid}:{command}) when its command is an agent, else nil. The default
--- tab line shortens each folder of term://... to one letter
--- ("t///t/e/w//2/t/e/m/…"); "toolhost terminal: claude" reads.
function M.terminal_name(name)
  local cmd = name:match("^term://.-//%d+:(.*)$")
  local prog = cmd and vim.fn.fnamemodify(vim.split(vim.trim(cmd), "%s+")[1] or "", ":t")
  if prog and vim.tbl_contains(M.TERMINAL_AGENTS, prog) then
    return "toolhost terminal: " .. prog
  end
  return nil
end

--- Names the terminal `buf` readably when it runs an agent (unique:
--- "claude (2)" for a second one).
function M.name_terminal(buf)
  local name = M.terminal_name(vim.api.nvim_buf_get_name(buf))
  if not name then
    return
  end
  local n, unique = 1, name
  while vim.fn.bufexists(unique) == 1 do
    n = n + 1
    unique = string.format("%s (%d)", name, n)
  end
  pcall(vim.api.nvim_buf_set_name, buf, unique)
end

--- Lines for :Toolhost agents: how each agent plugin reaches this session.
function M.config_lines(endpoint, bin)
  bin = bin or "toolhost"
  local lines = {
    "toolhost: other agents can work inside this Neovim session.",
    "",
  }
  if not endpoint then
    table.insert(lines, "The session's MCP endpoint is not running (server.agentEndpoint = false, or the server is stopped).")
    return lines
  end
  vim.list_extend(lines, {
    "Session file: " .. tostring(endpoint.sessionFile) .. "   ($" .. M.ENV .. " in processes started from Neovim)",
    "Endpoint:     " .. tostring(endpoint.url) .. "   (bearer token in the session file)",
    "",
    "CodeCompanion (its MCP client, in require(\"codecompanion\").setup{}):",
    "  mcp = { servers = { toolhost = { cmd = { \"" .. bin .. "\", \"mcp\", \"--attach\" } } } }",
    "",
    "mcphub.nvim / avante.nvim (~/.config/mcphub/servers.json):",
    "  { \"mcpServers\": { \"toolhost\": { \"command\": \"" .. bin .. "\", \"args\": [\"mcp\", \"--attach\"] } } }",
    "",
    "Claude Code (in a :terminal of this Neovim, or anywhere inside the workspace):",
    "  claude mcp add toolhost -- " .. bin .. " mcp --attach",
    "  and allow its tools in Claude Code's settings so toolhost's dialog is the one you see:",
    "  { \"permissions\": { \"allow\": [\"mcp__toolhost__*\"] } }",
    "",
    "Any MCP client: command `" .. bin .. " mcp --attach`; started outside Neovim it finds the",
    "session whose workspace holds its folder. See docs/agents.md.",
  })
  return lines
end

--- Shows the configurations in a scratch split.
function M.show()
  local th = require("toolhost")
  local cmd = th.command()
  local bin = cmd and cmd[1] or "toolhost"
  require("toolhost.commands").show("agents", M.config_lines(M.endpoint, vim.fn.exepath(bin) ~= "" and vim.fn.exepath(bin) or bin))
end

return M
