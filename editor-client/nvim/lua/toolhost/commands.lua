-- :Toolhost {subcommand}: tools, run, todos, tasks, mode, status, agents,
-- start, stop, restart.
local format = require("toolhost.format")

local M = {}

local function th()
  return require("toolhost")
end

local function err_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
end

--- Shows lines in a scratch split named `name`, reusing it if open.
function M.show(name, lines, filetype)
  local bufname = "toolhost://" .. name
  local bufnr = vim.fn.bufnr(bufname)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, bufname)
    vim.bo[bufnr].bufhidden = "hide"
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
    M.show("result", format.result(name, result), "markdown")
  end))
end

function M.subcommands.todos()
  M.show("todos", format.todos(th().todos()))
end

function M.subcommands.tasks()
  th().request("toolhost/status", vim.empty_dict(), on_result("tasks", function(status)
    local tasks = status and (status.tasks or status.backgroundTasks)
    if type(tasks) ~= "table" or vim.tbl_isempty(tasks) then
      tasks = vim.tbl_values(th().state.tasks)
    end
    M.show("tasks", format.tasks(tasks))
  end))
end

function M.subcommands.mode(args)
  local mode = args[1]
  if not mode then
    vim.notify("usage: :Toolhost mode {default|acceptEdits|plan|bypassPermissions|dontAsk}", vim.log.levels.ERROR)
    return
  end
  th().request("toolhost/setPermissionMode", { mode = mode }, on_result("mode", function(result)
    vim.notify("toolhost: permission mode " .. tostring(result and result.mode or mode))
  end))
end

function M.subcommands.status()
  th().request("toolhost/status", vim.empty_dict(), on_result("status", function(status)
    M.show("status", vim.split(vim.inspect(status), "\n", { plain = true }), "lua")
  end))
end

function M.subcommands.agents()
  require("toolhost.agents").show()
end

function M.subcommands.start()
  th().start()
end

function M.subcommands.stop()
  th().stop()
end

function M.subcommands.restart()
  th().stop()
  th().start()
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
    for _, t in ipairs(th().state.tools or {}) do
      table.insert(candidates, t.name)
    end
  else
    return {}
  end
  table.sort(candidates)
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end

--- Runs ":Toolhost {args}"; raw is the unsplit argument text.
function M.run(fargs, raw)
  local sub = fargs[1] or "status"
  local fn = M.subcommands[sub]
  if not fn then
    vim.notify("toolhost: unknown subcommand " .. sub .. " (try " .. table.concat(vim.tbl_keys(M.subcommands), ", ") .. ")", vim.log.levels.ERROR)
    return
  end
  fn(vim.list_slice(fargs, 2), raw)
end

return M
