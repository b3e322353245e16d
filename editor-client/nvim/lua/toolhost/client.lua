-- Starting `toolhost serve` with vim.lsp.start_client (vim.lsp.start from
-- 0.11), the capabilities
-- the plugin declares, the handlers of the server's requests and
-- notifications, and small wrappers over client methods whose calling
-- convention changed in Neovim 0.11 (client:request instead of
-- client.request).
local dialogs = require("toolhost.dialogs")
local edits = require("toolhost.edits")
local format = require("toolhost.format")
local intel = require("toolhost.intel")

local M = {}

local has_011 = vim.fn.has("nvim-0.11") == 1

--- client.request / client:request.
function M.request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

--- client.notify / client:notify.
function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- client.cancel_request / client:cancel_request: sends $/cancelRequest;
--- the request's handler still gets the server's answer (an error).
function M.cancel_request(client, id)
  if has_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

--- client.stop / client:stop.
function M.stop(client, force)
  if has_011 then
    return client:stop(force)
  end
  return client.stop(force)
end

--- client.is_stopped / client:is_stopped.
function M.is_stopped(client)
  if has_011 then
    return client:is_stopped()
  end
  return client.is_stopped ~= nil and client.is_stopped()
end

--- What the plugin answers, declared in capabilities.experimental.toolhost.
M.TOOLHOST_CAPABILITIES = {
  askUserQuestion = true,
  requestPermission = true,
  -- toolhost/reviewChanges: a turn's changes in one review (toolhost.reviewturn).
  reviewChanges = true,
  requestTrust = true,
  savesAppliedEdits = true,
  ideTools = true,
  -- toolhost/diagnostics and toolhost/languageFeature (toolhost.intel).
  diagnostics = true,
  languageFeatures = true,
}

--- Client capabilities: Neovim's, plus document changes with create, and
--- the toolhost requests.
function M.capabilities(opts)
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.applyEdit = true
  caps.workspace.workspaceEdit = vim.tbl_extend("force", caps.workspace.workspaceEdit or {}, {
    documentChanges = true,
    resourceOperations = { "create", "rename", "delete" },
    changeAnnotationSupport = { groupsOnLabel = false },
  })
  local toolhost = vim.deepcopy(M.TOOLHOST_CAPABILITIES)
  toolhost.reviewChanges = not (opts and opts.review_changes == false)
  caps.experimental = vim.tbl_extend("force", caps.experimental or {}, { toolhost = toolhost })
  return caps
end

--- Echoes text on one line, cut to the command line's width: a longer
--- message would stop Neovim at a "Press ENTER" prompt, which takes the
--- next key the user meant for something else.
function M.echo(text, hl)
  local width = math.max(math.min(vim.o.columns - 12, vim.v.echospace or vim.o.columns), 20)
  text = text:gsub("\n", " ")
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 1) .. "…"
  end
  vim.api.nvim_echo({ { text, hl } }, false, {})
end
local echo = M.echo

--- The handlers for the server's messages; `state` is the plugin's state
--- (todos, tasks, progress), `opts` its options.
function M.handlers(state, opts)
  intel.setup()
  local default_progress = vim.lsp.handlers["$/progress"]
  -- TodoWrite's list and the task board's tasks are shown alike.
  local function show_todos(todos)
    state.todos = todos
    if opts.on_todos then
      opts.on_todos(state.todos)
    end
    if opts.progress then
      echo("toolhost: " .. format.todos(state.todos)[1])
    end
  end
  return {
    ["workspace/applyEdit"] = function(_, params, ctx)
      -- Diagnostics that change from here on follow this edit.
      intel.editing(params)
      return edits.apply(params, vim.lsp.get_client_by_id(ctx.client_id), opts)
    end,
    ["toolhost/diagnostics"] = function(_, params)
      return intel.diagnostics(params)
    end,
    ["toolhost/languageFeature"] = function(_, params)
      local ok, res = pcall(intel.language_feature, params)
      if not ok then
        return nil, vim.lsp.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, tostring(res))
      end
      return res
    end,
    ["toolhost/askUserQuestion"] = function(_, params)
      return dialogs.ask_user_question(params, opts)
    end,
    ["toolhost/requestPermission"] = function(_, params)
      return dialogs.request_permission(params, opts)
    end,
    ["toolhost/reviewChanges"] = function(_, params)
      return require("toolhost.reviewturn").review_changes(params or {}, opts)
    end,
    -- The server gave up on one of its requests (the call was cancelled):
    -- the review or prompt it named closes.
    ["$/cancelRequest"] = function(_, params)
      require("toolhost.reviewturn").cancel(params)
      dialogs.cancel(params)
    end,
    ["toolhost/ideTool"] = function(_, params)
      return require("toolhost.claudeide").ide_tool(params or {})
    end,
    ["toolhost/requestTrust"] = function(_, params)
      return require("toolhost.trust").request_trust(params, opts)
    end,
    ["toolhost/trustChanged"] = function(_, params)
      require("toolhost.trust").changed(state, params, opts)
    end,
    ["toolhost/todos"] = function(_, params)
      show_todos((params and params.todos) or {})
    end,
    ["toolhost/taskList"] = function(_, params)
      show_todos(format.tasks_as_todos(params and params.tasks))
    end,
    ["toolhost/modeChanged"] = function(_, params)
      if type(params) == "table" and params.mode then
        state.mode = params.mode
        echo("toolhost: permission mode " .. params.mode)
      end
    end,
    ["toolhost/worktreeChanged"] = function(_, params)
      if type(params) == "table" and params.worktreePath then
        state.worktree = params.action == "enter" and params.worktreePath or nil
        if params.action == "enter" then
          echo("toolhost: working in the worktree " .. params.worktreePath)
        else
          echo("toolhost: left the worktree " .. params.worktreePath .. " (" .. tostring(params.action) .. ")")
        end
      end
    end,
    ["toolhost/taskChanged"] = function(_, params)
      if type(params) == "table" and params.taskId then
        state.tasks[params.taskId] = params
        if opts.progress then
          echo(format.task_event(params))
        end
      end
    end,
    ["toolhost/teamChanged"] = function(_, params)
      require("toolhost.team").on_changed(state, params)
    end,
    ["toolhost/toolsChanged"] = function(_, _, ctx)
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      if client then
        M.request(client, "toolhost/listTools", vim.empty_dict(), function(err, res)
          if not err and res then
            state.tools = res.tools
          end
        end)
      end
    end,
    ["$/progress"] = function(err, params, ctx, config)
      if default_progress then
        pcall(default_progress, err, params, ctx, config)
      end
      local value = params and params.value
      if type(value) ~= "table" then
        return
      end
      -- Tracked even without the float: :Toolhost cancel and the cancel
      -- key reach the agent's calls through their progress tokens.
      local ended = require("toolhost.progress").on_progress(state, opts, tostring(params.token), value)
      if ended and opts.progress then
        echo(ended)
      end
    end,
  }
end

--- Starts the server; returns the client id (nil and a message on failure).
function M.start(opts, state)
  local cmd = opts.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    return nil, string.format("toolhost: %s is not executable (set cmd in require('toolhost').setup{})", cmd[1])
  end
  local root = vim.fn.fnamemodify(opts.root_dir or vim.fn.getcwd(), ":p"):gsub("/$", "")
  local init_options = vim.deepcopy(opts.settings or {})
  if opts.permission_mode then
    init_options.permissions = init_options.permissions or {}
    init_options.permissions.defaultMode = opts.permission_mode
  end
  if vim.tbl_isempty(init_options) then
    init_options = vim.empty_dict()
  end
  local config = {
    name = "toolhost",
    cmd = cmd,
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ":t") } },
    capabilities = M.capabilities(opts),
    init_options = init_options,
    handlers = M.handlers(state, opts),
    on_init = function(client, result)
      state.server_info = result and result.serverInfo
      state.initialized = true
      state.pid = client.rpc and client.rpc.pid
      -- What the user chose in an earlier run of this session holds after
      -- a restart.
      if state.chosen_mode then
        M.request(client, "toolhost/setPermissionMode", { mode = state.chosen_mode }, function() end)
      end
      -- The tool names, for :Toolhost run completion.
      M.request(client, "toolhost/listTools", vim.empty_dict(), function(err, res)
        if not err and res then
          state.tools = res.tools
        end
      end)
      if opts.on_init then
        opts.on_init(client, result)
      end
    end,
    on_exit = function(code, signal)
      local expected = state.stopping
      state.client_id = nil
      state.initialized = false
      state.exit_code = code
      state.stopping = false
      vim.schedule(function()
        require("toolhost.progress").reset(state, opts)
        -- Prompts of the dead server can no longer be answered.
        for _, p in ipairs(vim.list_slice(dialogs.pending)) do
          if p.answer then
            p.answer(nil)
          end
        end
        if not expected then
          local how = (signal and signal ~= 0) and ("signal " .. tostring(signal)) or ("exit code " .. tostring(code))
          -- After Neovim's own "Client quit" notice, scheduled with this
          -- callback, so the message that says what happened next stays
          -- on screen.
          vim.schedule(function()
            if opts.on_crash then
              opts.on_crash(how)
            else
              vim.notify("toolhost: the server stopped (" .. how .. "). :Toolhost restart starts it again; :checkhealth toolhost checks the binary.", vim.log.levels.ERROR)
            end
          end)
        end
      end)
    end,
  }
  local id
  if has_011 then
    -- start_client is deprecated from 0.11; start without attaching the
    -- current buffer (buffers are attached by the plugin) and never reuse
    -- another client.
    id = vim.lsp.start(config, { attach = false, reuse_client = function()
      return false
    end })
  elseif require("toolhost.rpc").needed() then
    -- Before 0.10 the handlers of server requests cannot wait for a dialog
    -- without freezing the editor: toolhost.rpc runs them in coroutines.
    id = require("toolhost.rpc").start_client(config)
  else
    id = vim.lsp.start_client(config)
  end
  if not id then
    return nil, "toolhost: vim.lsp.start_client failed"
  end
  state.root = root
  return id
end

return M
