-- Teams (TeamCreate, SendMessage, TeamDelete): the state the server sends
-- as toolhost/teamChanged, kept per team, announced with vim.notify when a
-- team starts, a member's state changes or the team is deleted, and the
-- lines :Toolhost team shows. Works on Neovim 0.7.2.
local M = {}

local ORDER = { "working", "idle", "ended" }

local function members_of(team)
  return type(team.members) == "table" and team.members or {}
end

--- "2 working, 1 idle" for a team's members (states in a fixed order).
function M.summary(members)
  local counts, extra = {}, {}
  for _, m in ipairs(members or {}) do
    local s = tostring(m.state)
    if counts[s] == nil then
      counts[s] = 0
      if not vim.tbl_contains(ORDER, s) then
        table.insert(extra, s)
      end
    end
    counts[s] = counts[s] + 1
  end
  local parts = {}
  for _, s in ipairs(vim.list_extend(vim.deepcopy(ORDER), extra)) do
    if counts[s] then
      table.insert(parts, counts[s] .. " " .. s)
    end
  end
  return table.concat(parts, ", ")
end

local function member_state(m)
  local pending = tonumber(m.pending) or 0
  if pending <= 0 then
    return tostring(m.state)
  end
  return string.format("%s, %d unread message%s", tostring(m.state), pending, pending == 1 and "" or "s")
end

--- Applies one toolhost/teamChanged to `teams` (lower-case name -> state).
--- Returns what changed in words ("" when nothing the user would notice),
--- or nil when params are not a team's state.
function M.apply(teams, params)
  if type(params) ~= "table" or type(params.name) ~= "string" or params.name == "" then
    return nil
  end
  local key = params.name:lower()
  local before = teams[key]
  if params.deleted == true then
    teams[key] = nil
    return "team " .. params.name .. " deleted"
  end
  local team = { name = params.name, description = params.description, members = members_of(params) }
  if type(team.description) ~= "string" then
    team.description = nil
  end
  teams[key] = team
  if not before then
    local names = {}
    for _, m in ipairs(team.members) do
      table.insert(names, tostring(m.name))
    end
    return "team " .. team.name .. " started" .. (#names > 0 and (": " .. table.concat(names, ", ")) or "")
  end
  local was = {}
  for _, m in ipairs(before.members) do
    was[tostring(m.name)] = m.state
  end
  local moved = {}
  for _, m in ipairs(team.members) do
    if was[tostring(m.name)] ~= m.state then
      table.insert(moved, tostring(m.name) .. " " .. tostring(m.state))
    end
  end
  if #moved == 0 then
    return ""
  end
  return "team " .. team.name .. ": " .. table.concat(moved, ", ")
end

--- The teams of a map or list, sorted by name.
local function sorted(teams)
  local list = {}
  for _, t in pairs(teams or {}) do
    table.insert(list, t)
  end
  table.sort(list, function(a, b)
    return tostring(a.name) < tostring(b.name)
  end)
  return list
end

--- Lines of :Toolhost team: each team with its goal and summary, then a
--- line per member (state, unread messages, task id).
function M.lines(teams)
  local list = sorted(teams)
  if #list == 0 then
    return { "No team is running. TeamCreate starts one (setting tools.teams)." }
  end
  local lines = {}
  for i, t in ipairs(list) do
    if i > 1 then
      table.insert(lines, "")
    end
    local members = members_of(t)
    local goal = (type(t.description) == "string" and t.description ~= "") and (" — " .. t.description) or ""
    table.insert(lines, string.format("Team %s%s (%s)", tostring(t.name), goal, M.summary(members)))
    for _, m in ipairs(members) do
      local task = (type(m.taskId) == "string" and m.taskId ~= "") and ("  task " .. m.taskId) or ""
      table.insert(lines, string.format("  %-16s %s%s", tostring(m.name), member_state(m), task))
    end
  end
  return lines
end

--- The handler of toolhost/teamChanged: keeps state.teams and tells the
--- user what changed.
function M.on_changed(state, params)
  state.teams = state.teams or {}
  local what = M.apply(state.teams, params)
  if what and what ~= "" then
    vim.notify("toolhost: " .. what, vim.log.levels.INFO)
  end
end

return M
