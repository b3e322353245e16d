-- Teams in Neovim: toolhost/teamChanged kept per team and announced with
-- vim.notify, and :Toolhost team. The server cases run the real binary
-- with tools.teams and agent.endpoint on a scripted chat-completions
-- endpoint inside this Neovim (chat_stub.lua).
local h = require("harness")
local team = require("toolhost.team")

h.test("team: notifications replace a team's state and the deleted one removes it", function()
  local teams = {}
  h.eq(team.apply(teams, { name = "docs", description = "the loader", members = {
    { name = "writer", taskId = "agent-1", state = "working", pending = 0 },
    { name = "reviewer", taskId = "agent-2", state = "working", pending = 0 },
  } }), "team docs started: writer, reviewer", "start")
  h.eq(team.apply(teams, { name = "docs", members = {
    { name = "writer", taskId = "agent-1", state = "idle", pending = 0 },
    { name = "reviewer", taskId = "agent-2", state = "working", pending = 2 },
  } }), "team docs: writer idle", "a member idle")
  h.eq(team.lines(teams), {
    "Team docs (1 working, 1 idle)",
    "  writer           idle  task agent-1",
    "  reviewer         working, 2 unread messages  task agent-2",
  }, "lines")
  h.eq(team.apply(teams, { name = "docs", members = {
    { name = "writer", state = "idle", pending = 0 },
    { name = "reviewer", state = "working", pending = 3 },
  } }), "", "only a message arrived")
  h.eq(team.apply(teams, { name = "DOCS", deleted = true, members = {} }), "team DOCS deleted", "delete")
  h.eq(teams, {}, "teams after delete")
  h.eq(team.apply(teams, { name = "" }), nil, "no name")
  h.eq(team.apply(teams, "x"), nil, "not a table")
  h.match(team.lines(teams)[1], "^No team is running", "empty")
end)

local bin = os.getenv("TOOLHOST_BIN")
if not bin or bin == "" then
  return
end

local toolhost = require("toolhost")

local call = h.call

local function text(result)
  return require("toolhost.format").result_text(result)
end

local function members(name)
  local t = toolhost.state.teams[name]
  local out = {}
  for _, m in ipairs(t and t.members or {}) do
    out[m.name] = m.state
  end
  return out
end

h.test("team: a team created shows its members, :Toolhost team lists them, TeamDelete clears it", function()
  -- Each member answers its prompt once without a tool call, so it goes
  -- idle and waits for messages.
  local stub = require("chat_stub").start(function(req)
    local who = tostring(req.messages[2] and req.messages[2].content):match('You are "(%w+)"')
    assert(who, "not a team member's conversation")
    return { role = "assistant", content = who .. " ready" }
  end)
  local notified = {}
  local real_notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(notified, msg)
    if level and level >= vim.log.levels.WARN then
      real_notify(msg, level)
    end
  end
  local ok, err = pcall(function()
    h.start_server({}, { settings = {
      tools = { teams = true },
      agent = { endpoint = stub.url, model = "scripted" },
      permissions = { allow = { "TeamCreate", "TeamDelete" } },
    } })
    local res = call("TeamCreate", { team_name = "demo", description = "say hello",
      members = { { name = "alpha", prompt = "say you are ready" }, { name = "beta", prompt = "say you are ready" } } })
    h.truthy(not res.isError, "TeamCreate: " .. text(res))
    h.wait_for(function()
      local m = members("demo")
      return m.alpha == "idle" and m.beta == "idle"
    end, "both members idle in the notifications: " .. vim.inspect(toolhost.state.teams))
    h.truthy(vim.tbl_contains(notified, "toolhost: team demo started: alpha, beta"), "start announced: " .. vim.inspect(notified))

    vim.cmd("Toolhost team")
    local buf = -1
    h.wait_for(function()
      buf = h.view("team")
      return buf ~= -1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] ~= ""
    end, "the team buffer")
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    h.eq(lines[1], "Team demo — say hello (2 idle)", "team line")
    h.match(lines[2], "^  alpha%s+idle  task agent%-%d+$", "alpha's line")
    h.match(lines[3], "^  beta%s+idle  task agent%-%d+$", "beta's line")

    res = call("TeamDelete", { team_name = "demo" })
    h.truthy(not res.isError, "TeamDelete: " .. text(res))
    h.wait_for(function()
      return toolhost.state.teams.demo == nil
    end, "the team gone from the notifications: " .. vim.inspect(toolhost.state.teams))
    h.truthy(vim.tbl_contains(notified, "toolhost: team demo deleted"), "deletion announced: " .. vim.inspect(notified))
    vim.cmd("Toolhost team")
    h.wait_for(function()
      return (vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] or ""):match("^No team is running") ~= nil
    end, ":Toolhost team to show no team")
  end)
  vim.notify = real_notify
  stub.close()
  if not ok then
    error(err, 0)
  end
end)
