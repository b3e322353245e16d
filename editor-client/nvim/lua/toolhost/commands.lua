-- :Toolhost {subcommand}: tools, run, todos, tasks, team, mode, status,
-- agents, start, stop, restart, cancel (the running calls), and
-- allow/always/deny/feedback/answer for
-- the prompt that waits. :Toolhost alone lists them.
local format = require("toolhost.format")

local M = {}

local function th()
  return require("toolhost")
end

local function err_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
end
--- The words of a JSON-RPC error or any other, for a message.
M.err_text = err_text

-- The scratch buffer of each view (name -> bufnr). Views are found here,
-- not by buffer name, because a name carries what the view shows ("toolhost
-- result: Bash") and changes with it.
local views = {}

--- The name of view `name`'s buffer, with what it shows (`detail`, e.g. the
--- tool) after a colon. Neither holds a "/": the default tab line shortens
--- every folder of a name to one letter, so "toolhost://result" read
--- "t//result"; "toolhost result: Bash" reads as it is, like the review
--- tabs ("toolhost review: a.txt (proposed)").
function M.view_name(name, detail)
  local bufname = "toolhost " .. name
  if detail and detail ~= "" then
    bufname = bufname .. ": " .. detail:gsub("/", "∕")
  end
  return bufname
end

--- The buffer of view `name` ("result", "tasks", ...) if it exists, else nil.
function M.view(name)
  local bufnr = views[name]
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    return bufnr
  end
  return nil
end

--- Shows lines in the scratch split of view `name`, reusing it if open;
--- `detail` says what it shows now (see view_name).
function M.show(name, lines, filetype, detail)
  local bufnr = M.view(name)
  if not bufnr then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.bo[bufnr].bufhidden = "hide"
    views[name] = bufnr
  end
  local bufname = M.view_name(name, detail)
  if vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t") ~= bufname then
    -- A name taken by a buffer that is not a view gets the number after it.
    if not pcall(vim.api.nvim_buf_set_name, bufnr, bufname) then
      pcall(vim.api.nvim_buf_set_name, bufnr, bufname .. " " .. bufnr)
    end
  end
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  if filetype then
    vim.bo[bufnr].filetype = filetype
  end
  local win = vim.fn.bufwinid(bufnr)
  if win == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, bufnr)
  end
  return bufnr
end

local function on_result(title, show)
  return function(err, result)
    -- A call the user cancelled was already reported by :Toolhost cancel
    -- ("cancelled Bash"); a second message would stack into a "Press
    -- ENTER" prompt that eats the next key.
    if type(err) == "table" and err.code == vim.lsp.protocol.ErrorCodes.RequestCancelled then
      return
    end
    if err then
      vim.notify("toolhost: " .. err_text(err), vim.log.levels.ERROR)
      return
    end
    show(result)
  end
end

M.subcommands = {}

function M.subcommands.tools()
  th().request("toolhost/listTools", vim.empty_dict(), on_result("tools", function(result)
    th().state.tools = result.tools
    M.show("tools", format.tools(result.tools))
  end))
end

--- Splits the raw arguments of ":Toolhost run {tool} {json}" into the tool
--- name and the JSON text, keeping the JSON's spacing.
function M.parse_run(raw)
  local name, rest = (raw or ""):match("^%s*run%s+(%S+)%s*(.-)%s*$")
  return name, rest
end

function M.subcommands.run(args, raw)
  local name, text = M.parse_run(raw)
  if not name then
    name, text = args[1], table.concat(vim.list_slice(args, 2), " ")
  end
  if not name then
    vim.notify("usage: :Toolhost run {tool} {json}", vim.log.levels.ERROR)
    return
  end
  local ok, input = true, vim.empty_dict()
  if vim.trim(text) ~= "" then
    ok, input = pcall(vim.json.decode, text)
  end
  if not ok or type(input) ~= "table" then
    vim.notify("toolhost: the input must be a JSON object: " .. tostring(input), vim.log.levels.ERROR)
    return
  end
  th().call_tool(name, input, on_result(name, function(result)
    M.show("result", format.result(name, result), "markdown", name)
  end))
end

function M.subcommands.cancel()
  local names = th().cancel()
  if #names == 0 then
    vim.notify("toolhost: no tool call is running", vim.log.levels.INFO)
    return
  end
  vim.notify("toolhost: cancelled " .. table.concat(names, ", "), vim.log.levels.INFO)
end

-- A list that is empty because the server it lived in stopped says so.
local function with_lost(lines, empty)
  if empty and th().state.lost then
    table.insert(lines, th().state.lost)
  end
  return lines
end

function M.subcommands.todos()
  local todos = th().todos()
  M.show("todos", with_lost(format.todos(todos), #todos == 0))
end

-- The keys of the :Toolhost tasks view, shown on its first line.
M.TASK_KEYS = "<CR> output · x stop · r refresh"

--- Lines of the tasks view and the task id each line shows (by line).
function M.task_lines(tasks, lost)
  local lines, ids = { "toolhost tasks — " .. M.TASK_KEYS }, {}
  for _, line in ipairs(format.tasks(tasks)) do
    table.insert(lines, line)
  end
  for i, t in ipairs(tasks) do
    ids[i + 1] = t.taskId or t.id
  end
  if #tasks == 0 and lost then
    table.insert(lines, lost)
  end
  return lines, ids
end

-- A tool call of the tasks view; its result's text, or the error, is shown.
local function task_call(tool, input, show)
  th().call_tool(tool, input, function(err, result)
    if err then
      vim.notify("toolhost: " .. err_text(err), vim.log.levels.ERROR)
      return
    end
    show(format.result_text(result), result)
  end)
end

--- :Toolhost tasks: the background tasks, one a line; <CR> on a task shows
--- its output so far (TaskOutput without waiting), x stops it (TaskStop),
--- r lists them again.
function M.subcommands.tasks()
  th().request("toolhost/status", vim.empty_dict(), on_result("tasks", function(status)
    local tasks = status and (status.tasks or status.backgroundTasks)
    if type(tasks) ~= "table" or vim.tbl_isempty(tasks) then
      tasks = vim.tbl_values(th().state.tasks)
    end
    local lines, ids = M.task_lines(tasks, th().state.lost)
    local buf = M.show("tasks", lines)
    local function task_id()
      local id = ids[vim.api.nvim_win_get_cursor(0)[1]]
      if not id then
        vim.notify("toolhost: put the cursor on a task's line", vim.log.levels.WARN)
      end
      return id
    end
    local maps = {
      ["<CR>"] = function()
        local id = task_id()
        if id then
          task_call("TaskOutput", { task_id = id, block = false }, function(text)
            M.show("task-output", vim.split(text, "\n", { plain = true }), nil, id)
          end)
        end
      end,
      x = function()
        local id = task_id()
        if id then
          task_call("TaskStop", { task_id = id }, function(text)
            vim.notify("toolhost: " .. text)
            M.subcommands.tasks()
          end)
        end
      end,
      r = M.subcommands.tasks,
    }
    for lhs, fn in pairs(maps) do
      vim.keymap.set("n", lhs, fn, { buffer = buf, nowait = true, desc = "toolhost tasks" })
    end
  end))
end

--- The teams as the server has them (toolhost/status), else as its
--- notifications left them.
function M.subcommands.team()
  local team = require("toolhost.team")
  th().request("toolhost/status", vim.empty_dict(), function(err, status)
    local teams = not err and type(status) == "table" and type(status.teams) == "table" and status.teams.teams
    if type(teams) ~= "table" then
      teams = th().state.teams
    end
    M.show("team", team.lines(teams))
  end)
end

local function set_mode(mode)
  th().request("toolhost/setPermissionMode", { mode = mode }, on_result("mode", function(result)
    th().state.chosen_mode = result and result.mode or mode
    vim.notify("toolhost: permission mode " .. tostring(th().state.chosen_mode))
  end))
end

function M.subcommands.mode(args)
  if args[1] then
    set_mode(args[1])
    return
  end
  -- No mode named: pick one, the current one marked.
  th().request("toolhost/status", vim.empty_dict(), on_result("mode", function(status)
    local current = status and status.permissionMode
    vim.ui.select(M.MODES, {
      prompt = "toolhost permission mode (now " .. tostring(current) .. ")",
      kind = "toolhost.mode",
      format_item = function(m)
        return m == current and (m .. " (current)") or m
      end,
    }, function(mode)
      if mode and mode ~= current then
        set_mode(mode)
      end
    end)
  end))
end

function M.subcommands.status()
  th().request("toolhost/status", vim.empty_dict(), on_result("status", function(status)
    M.show("status", format.status(status, th().status_info()), "markdown")
  end))
end

-- :'<,'>Toolhost mention: the lines go to the Claude Code CLI as context.
function M.subcommands.mention(_, _, cmd)
  local line1 = cmd and cmd.line1 or vim.fn.line(".")
  local line2 = cmd and cmd.line2 or line1
  require("toolhost.claudeide").mention(line1, line2)
end

function M.subcommands.agents()
  require("toolhost.agents").show()
end

local function answer(label)
  return function()
    local ok, msg = require("toolhost.dialogs").answer_pending(label)
    if not ok then
      vim.notify("toolhost: " .. msg, vim.log.levels.WARN)
    end
  end
end

local dialogs = require("toolhost.dialogs")
M.subcommands.allow = answer(dialogs.ALLOW)
M.subcommands.always = answer(dialogs.ALLOW_ALWAYS)
M.subcommands.deny = answer(dialogs.DENY)
M.subcommands.feedback = answer(dialogs.DENY_FEEDBACK)
M.subcommands.answer = answer(nil)

--- One line per subcommand, for :Toolhost without arguments.
M.HELP = {
  "toolhost — :Toolhost {subcommand}   (:help toolhost)",
  "",
  "  tools                 list the tools",
  "  run {tool} {json}     run a tool by hand",
  "  todos                 the agent's todo list",
  "  tasks                 background tasks (<CR> output, x stop)",
  "  team                  teams and their members' states",
  "  changes               the agent's turns and the files each changed (r: rewind)",
  "  rewind [file]         rewind the last turn (or only this buffer's file in it)",
  "  mode [{mode}]         the permission mode (no argument: pick one)",
  "  status                server, version, mode, MCP servers, settings",
  "  agents                configurations for agent plugins in this session",
  "  mention               (with a range) send the lines to the Claude Code CLI as context",
  "  start | stop | restart  the server",
  "  allow | always | deny | feedback   answer the prompt that waits",
  "  answer                open the waiting prompt's menu again",
}

function M.subcommands.changes()
  require("toolhost.changes").show()
end

function M.subcommands.rewind(args)
  require("toolhost.changes").rewind_command(args)
end

function M.subcommands.help()
  M.show("help", M.HELP)
end

function M.subcommands.start()
  th().start()
end

function M.subcommands.stop()
  th().stop()
end

function M.subcommands.restart()
  th().restart()
end

M.MODES = { "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk" }

--- Completion of :Toolhost arguments.
function M.complete(arglead, cmdline)
  local words = vim.split(cmdline, "%s+")
  local candidates
  if #words <= 2 then
    candidates = vim.tbl_keys(M.subcommands)
  elseif words[2] == "mode" and #words == 3 then
    candidates = M.MODES
  elseif words[2] == "run" and #words == 3 then
    candidates = {}
    for _, t in ipairs(th().tool_names()) do
      table.insert(candidates, t)
    end
  else
    return {}
  end
  table.sort(candidates)
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end

--- Runs ":Toolhost {args}"; raw is the unsplit argument text, cmd the
--- user command's arguments (its range).
function M.run(fargs, raw, cmd)
  local sub = fargs[1] or "help"
  local fn = M.subcommands[sub]
  if not fn then
    vim.notify("toolhost: unknown subcommand " .. sub .. " (try " .. table.concat(vim.tbl_keys(M.subcommands), ", ") .. ")", vim.log.levels.ERROR)
    return
  end
  fn(vim.list_slice(fargs, 2), raw, cmd)
end

return M
