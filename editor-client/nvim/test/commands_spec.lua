-- :Toolhost as a user meets it, against the real server: help without
-- arguments, :help, completion, the mode picker, status, answering a
-- waiting prompt by command, a crash that names the way back, and a
-- restart that keeps the chosen mode.
local h = require("harness")
local toolhost = require("toolhost")
local format = require("toolhost.format")

local bin = os.getenv("TOOLHOST_BIN")

local function start()
  return h.start_server({})
end

local function buffer_text(name)
  h.wait_for(function()
    local b = vim.fn.bufnr("toolhost://" .. name)
    return b ~= -1 and #vim.api.nvim_buf_get_lines(b, 0, -1, false) > 1
  end, "the " .. name .. " buffer")
  return table.concat(vim.api.nvim_buf_get_lines(vim.fn.bufnr("toolhost://" .. name), 0, -1, false), "\n")
end

local function status()
  local result, err = toolhost.request_wait("toolhost/status", vim.empty_dict())
  h.truthy(result, vim.inspect(err))
  return result
end

local function capture_notify()
  local messages = {}
  local original = vim.notify
  vim.notify = function(msg, level)
    table.insert(messages, { msg = msg, level = level })
  end
  return messages, function()
    vim.notify = original
  end
end

h.test("commands: :help toolhost works after adding the plugin to runtimepath", function()
  vim.cmd("help toolhost")
  h.match(vim.api.nvim_buf_get_name(0), "toolhost.txt$")
  vim.cmd("helpclose")
end)

h.test("commands: :Toolhost alone shows the subcommands", function()
  vim.cmd("silent! bwipeout! toolhost://help")
  vim.cmd("Toolhost")
  local text = buffer_text("help")
  h.match(text, "restart")
  h.match(text, "run {tool} {json}")
end)

h.test("commands: :Toolhost run completes tool names from the start", function()
  start()
  h.wait_for(function()
    return #toolhost.tool_names() > 0
  end, "the tool list")
  local got = require("toolhost.commands").complete("Ed", "Toolhost run Ed")
  h.eq(got, { "Edit" })
end)

h.test("commands: :Toolhost mode without a mode offers a picker, and a restart keeps it", function()
  start()
  local log = h.script_ui({ ["toolhost.mode"] = h.pick("acceptEdits") })
  vim.cmd("Toolhost mode")
  h.wait_for(function()
    return toolhost.state.chosen_mode == "acceptEdits"
  end, "the mode to be set")
  h.match(log[1].prompt, "now default")
  h.eq(status().permissionMode, "acceptEdits")
  local messages, restore = capture_notify()
  vim.cmd("Toolhost restart")
  restore()
  h.wait_for(function()
    return toolhost.is_running()
  end, "the server to start again")
  h.wait_for(function()
    return status().permissionMode == "acceptEdits"
  end, "the chosen mode after the restart")
  for _, m in ipairs(messages) do
    h.truthy(not m.msg:find("stopped"), "a restart is not reported as a crash: " .. m.msg)
  end
end)

h.test("commands: :Toolhost status is readable", function()
  start()
  vim.cmd("silent! bwipeout! toolhost://status")
  vim.cmd("Toolhost status")
  local text = buffer_text("status")
  h.match(text, "binary: " .. vim.pesc(vim.fn.exepath(bin)))
  h.match(text, "permission mode: default")
  h.match(text, "pid: %d+")
  h.match(text, "## MCP servers")
end)

h.test("commands: :Toolhost deny answers the waiting prompt", function()
  local dir = start()
  -- A picker that never answers, as if the user left it open.
  local original = vim.ui.select
  vim.ui.select = function() end
  local done, result = false, nil
  toolhost.call_tool("Bash", { command = "echo ran > ran.txt" }, function(_, r)
    done, result = true, r
  end)
  h.wait_for(function()
    return #require("toolhost.dialogs").pending == 1
  end, "the prompt")
  vim.cmd("Toolhost deny")
  h.wait_for(function()
    return done
  end, "the call to return")
  vim.ui.select = original
  h.match(format.result_text(result), "denied")
  h.eq(h.read(dir .. "/ran.txt"), nil, "the command did not run")
end)

h.test("commands: a crashed server says how to restart it", function()
  start()
  local messages, restore = capture_notify()
  vim.loop.kill(toolhost.state.pid, 9)
  h.wait_for(function()
    return #messages > 0
  end, "the crash message")
  restore()
  h.match(messages[1].msg, ":Toolhost restart")
  vim.cmd("Toolhost restart")
  h.wait_for(function()
    return toolhost.is_running()
  end, "the server to start again")
end)

h.test("commands: :Toolhost cancel ends a long Bash at once", function()
  local dir = h.start_server({}, { permission_mode = "bypassPermissions" })
  local done, err = false, nil
  toolhost.call_tool("Bash", { command = "sleep 30; echo late > late.txt" }, function(e)
    done, err = true, e
  end)
  h.truthy(next(toolhost.state.running) ~= nil, "the call is tracked as running")
  local messages, restore = capture_notify()
  vim.cmd("Toolhost cancel")
  -- Far below the command's 30 s: the call ended because it was cancelled.
  h.wait_for(function()
    return done
  end, "the cancelled call to return", 10000)
  vim.cmd("Toolhost cancel")
  restore()
  h.truthy(err ~= nil, "a cancelled call is answered with an error")
  h.match(messages[1].msg, "cancelled Bash")
  h.match(messages[2].msg, "no tool call is running")
  -- Bash calls run one at a time: this one returns within its bound only
  -- if the server ended the cancelled sleep.
  local after
  toolhost.call_tool("Bash", { command = "echo next" }, function(_, r)
    after = r
  end)
  h.wait_for(function()
    return after ~= nil
  end, "the next Bash, which waits for the cancelled one to end", 10000)
  h.match(format.result_text(after), "next")
  h.eq(h.read(dir .. "/late.txt"), nil, "the command did not go on")
end)

h.test("commands: a long Bash shows its output line by line in a float and Ctrl-C cancels it", function()
  local dir = h.start_server({}, { permission_mode = "bypassPermissions", progress = true })
  local progress = require("toolhost.progress")
  local done, err = false, nil
  toolhost.call_tool("Bash", { command = "printf 'step 1\\nstep 2\\nstep 3\\n'; sleep 30; echo late > late.txt" }, function(e)
    done, err = true, e
  end)
  local lines
  h.wait_for(function()
    local win = progress.window()
    lines = win and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false) or {}
    return vim.tbl_contains(lines, "  step 3")
  end, "the progress float with the output's last line")
  h.truthy(vim.tbl_contains(lines, "  step 1") and vim.tbl_contains(lines, "  step 2"), "each output line on its own line: " .. vim.inspect(lines))
  h.match(table.concat(lines, "\n"), "<C%-c> or :Toolhost cancel stops it", "the float says how to stop it")
  h.eq(table.concat(vim.list_slice(lines, 2), "\n"):find("\\n", 1, true), nil, "no written-out line break in the output")
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<C-c>", true, false, true), "xt", false)
  h.wait_for(function()
    return done
  end, "the call Ctrl-C cancelled to return", 10000)
  h.truthy(err ~= nil, "a cancelled call is answered with an error")
  h.wait_for(function()
    return progress.window() == nil
  end, "the float to close")
  h.eq(vim.fn.maparg("<C-c>", "n"), "", "Ctrl-C is the user's again once nothing runs")
  h.eq(h.read(dir .. "/late.txt"), nil, "the command did not go on")
end)
