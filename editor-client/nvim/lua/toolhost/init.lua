-- toolhost for Neovim: starts `toolhost serve` as an LSP client, answers
-- its questions, permission prompts and edits through vim.ui dialogs and
-- diff views, and runs tools by hand with :Toolhost.
--
--   require("toolhost").setup{}   -- or setup{ cmd = { "/path/to/toolhost", "serve" }, permission_mode = "default" }
--
-- Works on Neovim 0.7.2 and later.
local client_mod = require("toolhost.client")

local M = {}

--- Defaults of setup{}; see :help toolhost-setup.
M.defaults = {
  -- nil: the binary the build step put in the plugin's bin/, else toolhost
  -- on PATH (toolhost.binary).
  cmd = nil,
  permission_mode = nil,
  root_dir = nil,
  settings = {},
  autostart = true,
  attach = true,
  progress = true,
  -- The key that cancels the running calls while one runs (normal mode;
  -- left alone when already mapped); false for none.
  cancel_key = "<C-c>",
  -- Declare reviewChanges: a turn's changes come as one review tab
  -- (toolhost.reviewturn); false keeps one prompt per file.
  review_changes = true,
  dialog_timeout_ms = 10 * 60 * 1000,
  ui = nil,
  on_todos = nil,
  on_init = nil,
}

M.options = vim.deepcopy(M.defaults)

--- Mutable state shared with the handlers.
M.state = {
  client_id = nil,
  initialized = false,
  todos = {},
  tasks = {},
  -- Teams by lower-case name, from toolhost/teamChanged.
  teams = {},
  progress = {},
  -- The tool calls waiting for their answers: request id -> tool name,
  -- for :Toolhost cancel.
  running = {},
  tools = nil,
  -- The permission mode chosen with :Toolhost mode, re-applied after a
  -- restart.
  chosen_mode = nil,
  -- Set while stop() runs, so the exit is not reported as a crash.
  stopping = false,
  -- When the server stopped by itself lately (vim.loop.now() ms): it is
  -- started again unless that happened more than MAX_AUTO_RESTARTS times
  -- within CRASH_WINDOW_MS.
  crashes = {},
}

-- As the VS Code extension: 3 restarts by itself within 3 minutes.
M.MAX_AUTO_RESTARTS = 3
M.CRASH_WINDOW_MS = 3 * 60 * 1000

local group

local function attachable(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  return name ~= "" and not name:match("^%a[%w+.-]*://")
end

--- Attaches a buffer to the running server (sends didOpen).
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if M.state.client_id and attachable(bufnr) then
    vim.lsp.buf_attach_client(bufnr, M.state.client_id)
  end
end

--- Configures and (unless autostart = false) starts the server.
function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  if type(M.options.cmd) == "string" then
    M.options.cmd = { M.options.cmd, "serve" }
  end

  -- A new configuration: the mode it names holds, not one chosen before.
  M.state.chosen_mode = nil
  -- :checkhealth no longer advises calling setup{}.
  M.state.setup_ran = true
  -- An agent's :terminal gets a name the tab line shows whole.
  vim.api.nvim_create_autocmd("TermOpen", {
    group = vim.api.nvim_create_augroup("toolhost_terminals", { clear = true }),
    callback = function(args)
      require("toolhost.agents").name_terminal(args.buf)
    end,
  })
  if M.options.autostart then
    return M.start()
  end
  return true
end

--- The running client, or nil.
function M.client()
  return M.state.client_id and vim.lsp.get_client_by_id(M.state.client_id) or nil
end

--- Whether the server is running and initialized.
function M.is_running()
  local c = M.client()
  return c ~= nil and M.state.initialized and not require("toolhost.client").is_stopped(c)
end

--- The command that starts the server: setup{}'s cmd, else the binary the
--- build step made or toolhost on PATH (toolhost.binary); nil and a message
--- saying how to get one. Looked up at each start, so :Toolhost start works
--- right after the build step.
function M.command()
  if M.options.cmd then
    return M.options.cmd
  end
  local found, why = require("toolhost.binary").find()
  if not found then
    return nil, why
  end
  return { found.path, "serve" }
end

--- Starts the server if it is not running. Returns true, or false and a message.
function M.start()
  if M.client() then
    return true
  end
  M.state.todos, M.state.tasks, M.state.progress, M.state.tools, M.state.trust = {}, {}, {}, nil, nil
  M.state.teams = {}
  M.state.running = {}
  -- Set again by crashed() when this start follows a crash.
  M.state.lost = nil
  local cmd, why = M.command()
  if not cmd then
    vim.notify(why, vim.log.levels.ERROR)
    return false, why
  end
  -- Processes started from Neovim reach this session (agents.lua).
  local agents = require("toolhost.agents")
  local opts = vim.tbl_extend("force", M.options, {
    cmd = cmd,
    on_crash = M.crashed,
    on_init = function(c, result)
      agents.on_init(c)
      if M.options.on_init then
        M.options.on_init(c, result)
      end
    end,
  })
  local id, err = client_mod.start(opts, M.state)
  if not id then
    vim.notify(err, vim.log.levels.ERROR)
    return false, err
  end
  M.state.client_id = id
  if M.options.attach then
    group = vim.api.nvim_create_augroup("toolhost", { clear = true })
    vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
      group = group,
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) then
        M.attach(bufnr)
      end
    end
  end
  return true
end

--- Stops the server; waits up to timeout_ms (default 2000) for it to exit.
function M.stop(timeout_ms)
  local c = M.client()
  if group then
    pcall(vim.api.nvim_del_augroup_by_id, group)
    group = nil
  end
  require("toolhost.agents").on_stop()
  require("toolhost.reviewturn").on_stop()
  if not c then
    return true
  end
  M.state.stopping = true
  client_mod.stop(c)
  local stopped = vim.wait(timeout_ms or 2000, function()
    return M.state.client_id == nil
  end, 20)
  if not stopped then
    client_mod.stop(c, true)
    M.state.client_id = nil
  end
  M.state.initialized = false
  return stopped
end

--- Stops the server and starts it again; the mode chosen with :Toolhost
--- mode is applied again once it is up.
function M.restart()
  M.stop()
  M.state.crashes = {}
  local ok, err = M.start()
  if ok then
    vim.notify("toolhost: restarted")
  end
  return ok, err
end

--- The server stopped by itself (`how`: "signal 9", "exit code 2"). The
--- calls made here that waited are answered with an error, and the server
--- is started again, as the VS Code extension does: at most
--- MAX_AUTO_RESTARTS times within CRASH_WINDOW_MS, then the user is told
--- and restarts it by hand. What lived in the server (background tasks,
--- the task and todo lists) died with it: the lists are cleared and the
--- message says so.
function M.crashed(how)
  local running = M.state.running
  M.state.running = {}
  for _, call in pairs(running) do
    call.callback({ message = string.format("toolhost stopped (%s) while %s ran; it did not finish", how, call.name) }, nil)
  end
  local now = vim.loop.now()
  M.state.crashes = vim.tbl_filter(function(t)
    return now - t < M.CRASH_WINDOW_MS
  end, M.state.crashes)
  table.insert(M.state.crashes, now)
  if #M.state.crashes > M.MAX_AUTO_RESTARTS then
    vim.notify(string.format("toolhost stopped %d times in 3 minutes (last: %s) and was not restarted. :Toolhost restart starts it again; :checkhealth toolhost checks the binary.",
      #M.state.crashes, how), vim.log.levels.ERROR)
    return
  end
  local lost = {}
  if not vim.tbl_isempty(M.state.tasks) then
    table.insert(lost, "its background tasks ended")
  end
  if not vim.tbl_isempty(M.state.todos) then
    table.insert(lost, "the task list is empty")
  end
  local ok = M.start()
  if ok then
    M.state.lost = string.format("toolhost stopped (%s) at %s and was restarted: the tasks and todos it had ended with it.", how, os.date("%H:%M"))
    vim.notify("toolhost: the server stopped (" .. how .. ") and was restarted" ..
      (#lost > 0 and ("; " .. table.concat(lost, " and ")) or ""), vim.log.levels.WARN)
  end
end

--- The names of the tools (fetched when the server starts and when its
--- tools change).
function M.tool_names()
  local names = {}
  for _, t in ipairs(M.state.tools or {}) do
    table.insert(names, t.name)
  end
  return names
end

--- What the client knows about the server beyond toolhost/status.
function M.status_info()
  local info = M.state.server_info or {}
  local cmd = M.command()
  local binary = cmd and (vim.fn.exepath(cmd[1]) ~= "" and vim.fn.exepath(cmd[1]) or cmd[1]) or nil
  return {
    binary = binary,
    version = info.version,
    pid = M.state.pid,
    root = M.state.root,
    review_changes = M.options.review_changes ~= false,
  }
end

--- Sends a request; callback(err, result). Returns false and a message when
--- the server is not running.
function M.request(method, params, callback)
  local c = M.client()
  if not c then
    local msg = "toolhost is not running: :Toolhost start (or :Toolhost restart) starts it"
    callback({ message = msg }, nil)
    return false, msg
  end
  local ok = client_mod.request(c, method, params or vim.empty_dict(), function(err, result)
    callback(err, result)
  end)
  return ok
end

-- Numbers the calls made here: their callId ("nvim-3") comes back in the
-- server's $/cancelRequest for a prompt the call was waiting on, which
-- then closes (toolhost.dialogs.cancel).
local calls_made = 0

--- Runs one tool; callback(err, result) with result {content, isError, ...}.
function M.call_tool(name, input, callback)
  if input == nil or (type(input) == "table" and vim.tbl_isempty(input)) then
    input = vim.empty_dict()
  end
  calls_made = calls_made + 1
  local params = { name = name, input = input, callId = "nvim-" .. calls_made }
  local c = M.client()
  if not c then
    return M.request("toolhost/callTool", params, callback)
  end
  local id
  local ok, req = client_mod.request(c, "toolhost/callTool", params, function(err, result)
    -- A call cancelled here was answered already (the transport drops the
    -- server's RequestCancelled answer).
    if id and not M.state.running[id] then
      return
    end
    if id then
      M.state.running[id] = nil
      require("toolhost.progress").update_key(M.state, M.options)
    end
    callback(err, result)
  end)
  if ok and req then
    id = req
    M.state.running[id] = { name = name, callback = callback }
    require("toolhost.progress").update_key(M.state, M.options)
  end
  return ok
end

--- Cancels every tool call that runs. A call made here gets
--- $/cancelRequest (the server stops the call, its processes with it) and
--- its callback is answered at once with a RequestCancelled error, since
--- the transport drops the server's own; a call of an agent is stopped
--- through its progress (window/workDoneProgress/cancel), and the agent
--- gets an "interrupted" result. Returns the names of the calls cancelled.
function M.cancel()
  local c = M.client()
  local names = {}
  if not c then
    return names
  end
  local cancelled = M.state.running
  M.state.running = {}
  for id, call in pairs(cancelled) do
    client_mod.cancel_request(c, id)
    table.insert(names, call.name)
    call.callback({ code = vim.lsp.protocol.ErrorCodes.RequestCancelled, message = call.name .. " was cancelled by the user" }, nil)
  end
  for token, p in pairs(M.state.progress) do
    client_mod.notify(c, "window/workDoneProgress/cancel", { token = token })
    if vim.tbl_isempty(cancelled) then
      table.insert(names, p.title)
    end
  end
  require("toolhost.progress").update_key(M.state, M.options)
  table.sort(names)
  return names
end

--- Sends a request and waits for the answer (bounded). Returns result, err.
function M.request_wait(method, params, timeout_ms)
  local done, err, result = false, nil, nil
  M.request(method, params, function(e, r)
    done, err, result = true, e, r
  end)
  if not vim.wait(timeout_ms or 10000, function()
    return done
  end, 20) then
    return nil, { message = method .. " timed out" }
  end
  return result, err
end

--- The last todo list the server sent.
function M.todos()
  return M.state.todos
end

return M
