-- Plain text for what :Toolhost shows: tool lists, results, todos, tasks.
-- Pure functions, tested without a server.
local M = {}

local function split_lines(text)
  return vim.split(text or "", "\n", { plain = true })
end

--- Lines of a toolhost/callTool result: a heading, then each block.
function M.result(name, result)
  result = result or {}
  local state = result.isError and "error" or "ok"
  local took = type(result.durationMs) == "number" and string.format(", %d ms", result.durationMs) or ""
  local lines = { string.format("# %s — %s%s", name, state, took), "" }
  for _, block in ipairs(result.content or {}) do
    if block.type == "text" then
      vim.list_extend(lines, split_lines(block.text))
    elseif block.type == "image" then
      table.insert(lines, string.format("[%s image, %d base64 characters]", block.mimeType or "an", #(block.data or "")))
    else
      table.insert(lines, vim.json.encode(block))
    end
  end
  return lines
end

--- The text of a result, blocks joined by newlines.
function M.result_text(result)
  local parts = {}
  for _, block in ipairs((result and result.content) or {}) do
    if block.type == "text" then
      table.insert(parts, block.text or "")
    end
  end
  return table.concat(parts, "\n")
end

local marks = { completed = "[x]", in_progress = "[~]", pending = "[ ]" }

--- Lines of a todo list, with a summary line first.
function M.todos(todos)
  todos = todos or {}
  if #todos == 0 then
    return { "No todos." }
  end
  local done = 0
  local lines = {}
  for _, t in ipairs(todos) do
    if t.status == "completed" then
      done = done + 1
    end
    -- The row is the item's own text (a task's subject); what is being
    -- done goes beside it, never in its place.
    local text = t.content
    if t.status == "in_progress" and t.activeForm and t.activeForm ~= "" then
      text = text .. " — in progress: " .. t.activeForm
    end
    table.insert(lines, string.format("%s %s", marks[t.status] or "[?]", text))
  end
  table.insert(lines, 1, string.format("Todos: %d/%d done", done, #todos))
  return lines
end

--- The tasks of a toolhost/taskList notification (TaskCreate, TaskUpdate,
--- ...) as todos, to show in the same list: labelled with id, owner and
--- open blockers.
function M.tasks_as_todos(tasks)
  local done = {}
  for _, t in ipairs(tasks or {}) do
    if t.status == "completed" then
      done[t.id] = true
    end
  end
  local todos = {}
  for _, t in ipairs(tasks or {}) do
    local content = "#" .. t.id .. " " .. (t.subject or "")
    if t.owner and t.owner ~= "" then
      content = content .. " (" .. t.owner .. ")"
    end
    local open = {}
    for _, id in ipairs(t.blockedBy or {}) do
      if not done[id] then
        table.insert(open, "#" .. id)
      end
    end
    if #open > 0 then
      content = content .. " [blocked by " .. table.concat(open, ", ") .. "]"
    end
    table.insert(todos, { content = content, status = t.status, activeForm = t.activeForm })
  end
  return todos
end

--- Lines of a toolhost/listTools result: name, category, risk, summary.
function M.tools(tools)
  local rows = {}
  for _, t in ipairs(tools or {}) do
    local name = t.name or (t["function"] and t["function"].name) or "?"
    local short = (t.docs and t.docs.short) or vim.split(t.description or "", "\n", { plain = true })[1] or ""
    local flags = t.enabled == false and " (disabled)" or ""
    table.insert(rows, { name = name, text = string.format("%-20s %-9s %-8s %s%s", name, t.category or "", t.risk or "", short, flags) })
  end
  table.sort(rows, function(a, b)
    return a.name < b.name
  end)
  local lines = {}
  for _, r in ipairs(rows) do
    table.insert(lines, r.text)
  end
  return lines
end

--- Lines for background tasks, from toolhost/status and taskChanged events.
function M.tasks(tasks)
  local lines = {}
  for _, t in ipairs(tasks or {}) do
    local id = t.taskId or t.id or "?"
    local exit = t.exitCode ~= nil and string.format(" (exit %s)", tostring(t.exitCode)) or ""
    table.insert(lines, string.format("%s  %s%s  %s", id, t.status or "?", exit, t.command or t.description or ""))
  end
  if #lines == 0 then
    return { "No background tasks." }
  end
  return lines
end

--- A one-line message for a taskChanged notification.
function M.task_event(t)
  local exit = t.exitCode ~= nil and string.format(" (exit %s)", tostring(t.exitCode)) or ""
  return string.format("toolhost: task %s %s%s%s", tostring(t.taskId), tostring(t.status), exit, t.command and (": " .. t.command) or "")
end

--- Where this Neovim shows a change that needs the user's review: a
--- turn's review tab when the plugin declared reviewChanges (the server
--- then sends every such change there), else by the server's editReview:
--- "dialog" is a permission prompt over the diff, "editor" the edit
--- arriving for confirmation (edit.reviewInEditor), "turn" the server
--- saying it sends the turn's changes to reviewChanges.
function M.edit_review(edit_review, review_changes)
  if review_changes or edit_review == "turn" then
    return "one tab per turn, every file's diff in it (review_changes; :help toolhost-review-turn)"
  elseif edit_review == "dialog" then
    return "a diff tab with the permission prompt (a allow · d deny · f feedback)"
  elseif edit_review == "editor" then
    return "a diff tab with Accept, Reject, Deny with feedback (edit.reviewInEditor)"
  end
  return tostring(edit_review or "?")
end

--- Lines of the folder settings ignored because the folder is not
--- trusted (status.trust), each with what it would do, and how to trust.
function M.ignored(trust)
  local ignored = type(trust) == "table" and trust.ignored or {}
  if type(ignored) ~= "table" or #ignored == 0 then
    return {}
  end
  local lines = { string.format("## %d folder setting%s ignored (the folder is not trusted)", #ignored, #ignored == 1 and "" or "s") }
  for _, i in ipairs(ignored) do
    table.insert(lines, string.format("- %s (%s%s)%s", i.what or "?", i.file or "?", i.key and (", " .. i.key) or "",
      i.why and (": " .. i.why) or ""))
  end
  for _, r in ipairs(trust.roots or {}) do
    if r.trusted == false then
      table.insert(lines, "To apply them, trust the folder: toolhost trust " .. vim.fn.shellescape(r.root))
    end
  end
  table.insert(lines, "")
  return lines
end

--- Lines of :Toolhost status: the server (binary, version, pid, root),
--- the session (mode, edit review), the folder settings ignored, the
--- settings problems, MCP servers and background tasks.
function M.status(status, info)
  status, info = status or {}, info or {}
  local lines = {
    "# toolhost",
    "",
    "- binary: " .. tostring(info.binary or "?"),
    "- version: " .. tostring(info.version or "?"),
    "- pid: " .. tostring(info.pid or "?"),
    "- root: " .. table.concat(status.roots or { info.root or "?" }, ", "),
    "- permission mode: " .. tostring(status.permissionMode or "?"),
    "- edit review: " .. M.edit_review(status.editReview, info.review_changes),
  }
  local enabled = 0
  for _, t in ipairs(status.tools or {}) do
    if t.enabled ~= false then
      enabled = enabled + 1
    end
  end
  table.insert(lines, string.format("- tools: %d enabled of %d (:Toolhost tools)", enabled, #(status.tools or {})))
  table.insert(lines, "")
  -- First after the facts: the trust message sends the user here for it.
  vim.list_extend(lines, M.ignored(status.trust))
  table.insert(lines, "## Settings problems")
  if #(status.settingsProblems or {}) == 0 then
    table.insert(lines, "none")
  end
  for _, p in ipairs(status.settingsProblems or {}) do
    table.insert(lines, string.format("- %s%s: %s", p.file or "?", p.key and (" " .. p.key) or "", p.message or ""))
  end
  table.insert(lines, "")
  table.insert(lines, "## MCP servers")
  if #(status.mcpServers or {}) == 0 then
    table.insert(lines, "none")
  end
  for _, m in ipairs(status.mcpServers or {}) do
    table.insert(lines, string.format("- %s (%s, %s): %s, %d tools%s", m.name or "?", m.source or "?", m.transport or "?",
      m.state or "?", type(m.tools) == "table" and #m.tools or tonumber(m.tools) or 0, m.lastError and (" — " .. m.lastError) or ""))
  end
  table.insert(lines, "")
  table.insert(lines, "## Background tasks")
  vim.list_extend(lines, M.tasks(status.backgroundTasks))
  return lines
end

return M
