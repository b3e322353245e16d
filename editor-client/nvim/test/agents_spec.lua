-- Other agents inside this Neovim session: a process started from Neovim
-- (`toolhost mcp --attach`, as an agent plugin starts its MCP server)
-- reaches the session through $TOOLHOST_SESSION, and its Write opens the
-- plugin's review. The MCP client is this test, speaking MCP's stdio
-- transport (one JSON message a line) to the job.
local h = require("harness")
local toolhost = require("toolhost")
local agents = require("toolhost.agents")
local dialogs = require("toolhost.dialogs")

local bin = os.getenv("TOOLHOST_BIN")

local mcp_job = h.mcp_job

h.test("agents: a process started from Neovim attaches; its Write opens the turn's review naming the agent and, accepted, is on disk; its command's prompt names it", function()
  toolhost.stop(3000)
  local runtime = h.workspace({})
  vim.loop.fs_chmod(runtime, tonumber("700", 8))
  vim.env.XDG_RUNTIME_DIR = runtime
  local dir = h.workspace({ ["a.txt"] = "alpha\n" })
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  h.truthy(toolhost.setup({ cmd = { bin, "serve" }, root_dir = dir, progress = false }), "setup")
  h.wait_for(function()
    return vim.env[agents.ENV] ~= nil
  end, "$" .. agents.ENV .. " to be set")
  h.match(vim.env[agents.ENV], "^" .. vim.pesc(runtime), "the session file")

  vim.cmd("Toolhost agents")
  local lines = table.concat(vim.api.nvim_buf_get_lines(h.view("agents"), 0, -1, false), "\n")
  h.match(lines, "mcp = { servers = { toolhost = { cmd = {", "CodeCompanion's configuration")
  h.match(lines, vim.pesc("claude mcp add toolhost -- " .. bin .. " mcp --attach"), "Claude Code's")

  local log = h.script_ui({
    ["toolhost.permission"] = h.pick(dialogs.ALLOW),
    ["toolhost.edit"] = h.pick("Accept"),
  })
  -- Started outside the workspace: only the variable leads it to this
  -- session (else it would serve a standalone session of that folder).
  local elsewhere = h.workspace({})
  local job, send, answer = mcp_job(elsewhere)
  send({ id = 1, method = "initialize", params = { protocolVersion = "2025-06-18", capabilities = vim.empty_dict(),
    clientInfo = { name = "codecompanion", version = "1" } } })
  h.match(answer(1, "the MCP handshake").result.instructions, "inside the user's", "the server's instructions")
  send({ method = "notifications/initialized" })
  local path = dir .. "/new.txt"
  send({ id = 2, method = "tools/call", params = { name = "Write", arguments = { file_path = path, content = "from the agent\n" } } })
  -- The Write opens the turn's review tab, which names the agent.
  h.wait_for(function()
    return vim.api.nvim_buf_get_name(0):match("new%.txt %(proposed by CodeCompanion%)$") ~= nil
  end, "the Write's review tab naming the agent")
  h.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "from the agent" }, "the proposal")
  h.eq(#log, 0, "no per-file prompt: " .. vim.inspect(log))
  vim.cmd("normal gA")
  local res = answer(2, "the Write").result
  h.truthy(res and not res.isError, "the Write succeeded: " .. vim.inspect(res))
  h.eq(h.read(path), "from the agent\n", "disk")
  -- The agent's command asks in the picker, whose title (a floating
  -- vim.ui's title) names the agent.
  send({ id = 3, method = "tools/call", params = { name = "Bash", arguments = { command = "echo hi > agent.txt" } } })
  res = answer(3, "the Bash").result
  h.truthy(res and not res.isError, "the Bash ran: " .. vim.inspect(res))
  h.eq(#log, 1, "one prompt: " .. vim.inspect(log))
  h.match(log[1].prompt, "^%[risk: %a+%]  CodeCompanion wants to run Bash: Run `echo hi > agent%.txt`%?", "the picker's title")
  vim.fn.jobstop(job)
  toolhost.stop(3000)
  h.eq(vim.env[agents.ENV], nil, "the variable after stop")
end)

h.test("agents: with one review per file in the editor (edit.reviewInEditor), the menu's title names the agent", function()
  toolhost.stop(3000)
  local dir = h.workspace({})
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  h.truthy(toolhost.setup({ cmd = { bin, "serve" }, root_dir = dir, progress = false, review_changes = false,
    settings = { edit = { reviewInEditor = true } } }), "setup")
  h.wait_for(function()
    return vim.env[agents.ENV] ~= nil
  end, "$" .. agents.ENV .. " to be set")
  local log = h.script_ui({ ["toolhost.edit"] = h.pick("Accept") })
  local job, send, answer = mcp_job(h.workspace({}))
  send({ id = 1, method = "initialize", params = { protocolVersion = "2025-06-18", capabilities = vim.empty_dict(),
    clientInfo = { name = "codecompanion", version = "1" } } })
  answer(1, "the MCP handshake")
  send({ method = "notifications/initialized" })
  local path = dir .. "/new.txt"
  send({ id = 2, method = "tools/call", params = { name = "Write", arguments = { file_path = path, content = "from the agent\n" } } })
  local res = answer(2, "the Write").result
  h.truthy(res and not res.isError, "the Write succeeded: " .. vim.inspect(res))
  h.eq(#log, 1, "one review menu: " .. vim.inspect(log))
  h.eq(log[1].kind, "toolhost.edit", "the menu")
  h.match(log[1].prompt, "^CodeCompanion: .*new%.txt%?$", "the menu's title (a floating vim.ui's title)")
  h.eq(h.read(path), "from the agent\n", "disk")
  vim.fn.jobstop(job)
  toolhost.stop(3000)
end)

h.test("agents: an agent's :terminal has a readable name, other terminals keep theirs", function()
  local cases = {
    { "term:///tmp/x//1234:claude --ide", "toolhost terminal: claude" },
    { "term://~/work//77:/usr/local/bin/codex", "toolhost terminal: codex" },
    { "term:///tmp//9:bash", nil },
    { "/tmp/claude", nil },
  }
  for _, c in ipairs(cases) do
    h.eq(agents.terminal_name(c[1]), c[2], c[1])
  end
  h.start_server({})
  local dir = h.workspace({ claude = "#!/bin/sh\nsleep 30\n" })
  vim.fn.setfperm(dir .. "/claude", "rwx------")
  vim.cmd("tabnew")
  vim.cmd("terminal " .. vim.fn.fnameescape(dir .. "/claude"))
  local buf = vim.api.nvim_get_current_buf()
  local job = vim.b[buf].terminal_job_id
  h.wait_for(function()
    return vim.fn.bufname(buf) == "toolhost terminal: claude"
  end, "the terminal's readable name, not " .. vim.fn.bufname(buf))
  vim.fn.jobstop(job)
  h.eq(vim.fn.jobwait({ job }, 5000)[1] ~= -1, true, "the fake agent ended")
  vim.cmd("bwipeout!")
end)
