-- Tests that drive the real toolhost binary through the plugin, with
-- vim.ui.select and vim.ui.input answering from a script.
local h = require("harness")
local toolhost = require("toolhost")
local dialogs = require("toolhost.dialogs")
local format = require("toolhost.format")

local bin = os.getenv("TOOLHOST_BIN")

-- Starts a server on a fresh workspace; returns its folder.
local function start(files, mode, settings)
  -- One prompt per file: the per-file review these cases cover (a
  -- turn's review as one: review_turn_spec.lua).
  return h.start_server(files, { permission_mode = mode, settings = settings or {}, review_changes = false })
end

local call = h.call

local function kinds(log)
  local out = {}
  for _, e in ipairs(log) do
    table.insert(out, e.kind)
  end
  return out
end

h.test("server: initialize reports the server and :checkhealth sees it", function()
  start({}, "default")
  h.eq(toolhost.state.server_info and toolhost.state.server_info.name, "toolhost", "serverInfo.name")
  vim.cmd("silent checkhealth toolhost")
  local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  h.match(text, "OK:? binary: " .. vim.pesc(vim.fn.exepath(bin)))
  h.match(text, "server running")
  vim.cmd("bwipeout!")
end)

h.test("server: :Toolhost tools lists the core tools", function()
  start({}, "default")
  vim.cmd("Toolhost tools")
  h.wait_for(function()
    return h.view("tools") ~= -1
  end, "the tools buffer")
  local lines = vim.api.nvim_buf_get_lines(h.view("tools"), 0, -1, false)
  local names = {}
  for _, l in ipairs(lines) do
    names[l:match("^(%S+)")] = true
  end
  for _, want in ipairs({ "Bash", "Edit", "Read", "Write", "AskUserQuestion" }) do
    h.truthy(names[want], want .. " listed in " .. vim.inspect(lines))
  end
end)

-- The server asks for review of an edit in one of two ways: a permission
-- prompt with a diff preview, or a workspace/applyEdit whose annotation
-- needs confirmation (shown as a diff tab). Both must show the change.
local function review_shown(log, wanted)
  for _, e in ipairs(log) do
    if (e.kind == "toolhost.edit" or e.kind == "toolhost.permission") and table.concat(e.lines, "\n"):find(wanted, 1, true) then
      return e
    end
  end
  return nil
end

h.test("server: an accepted edit is reviewed as a diff and written to disk", function()
  local dir = start({ ["a.txt"] = "hello world\n" }, "default")
  local path = dir .. "/a.txt"
  local log = h.script_ui({
    ["toolhost.permission"] = h.pick(dialogs.ALLOW),
    ["toolhost.edit"] = h.pick("Accept"),
  })
  h.eq(call("Read", { file_path = path }).isError, false, "Read")
  local result = call("Edit", { file_path = path, old_string = "world", new_string = "there" })
  h.eq(result.isError, false, format.result_text(result))
  h.eq(h.read(path), "hello there\n", "disk")
  local review = review_shown(log, "hello there")
  h.truthy(review, "the change was shown for review: " .. vim.inspect(log))
  if review.kind == "toolhost.edit" then
    h.eq(review.diff, true, "edit asked from a diff view")
  end
end)

h.test("server: with edit.reviewInEditor the diff review replaces the permission prompt", function()
  local dir = start({ ["a.txt"] = "hello world\n" }, "default", { edit = { reviewInEditor = true } })
  local path = dir .. "/a.txt"
  local log = h.script_ui({
    ["toolhost.permission"] = h.pick(dialogs.DENY),
    ["toolhost.edit"] = h.pick("Accept"),
  })
  h.eq(call("Read", { file_path = path }).isError, false, "Read")
  local result = call("Edit", { file_path = path, old_string = "world", new_string = "there" })
  h.eq(result.isError, false, format.result_text(result))
  h.eq(h.read(path), "hello there\n", "disk")
  local kinds = {}
  for _, entry in ipairs(log) do
    kinds[#kinds + 1] = entry.kind
  end
  h.truthy(vim.tbl_contains(kinds, "toolhost.edit"), "the edit was reviewed as a diff: " .. vim.inspect(kinds))
  h.truthy(not vim.tbl_contains(kinds, "toolhost.permission"), "no permission prompt: " .. vim.inspect(kinds))
end)

h.test("server: a rejected edit leaves the file and fails the call", function()
  local dir = start({ ["a.txt"] = "hello world\n" }, "default")
  local path = dir .. "/a.txt"
  -- Reject at whichever review the server asks for.
  local log = h.script_ui({
    ["toolhost.permission"] = function(items, o)
      return o.prompt:find("Edit") and dialogs.DENY or dialogs.ALLOW
    end,
    ["toolhost.edit"] = h.pick("Reject"),
  })
  call("Read", { file_path = path })
  local result = call("Edit", { file_path = path, old_string = "world", new_string = "there" })
  h.eq(result.isError, true, "isError")
  local text = format.result_text(result)
  h.match(text, "^Error: ")
  local review = review_shown(log, "there")
  h.truthy(review, "the change was shown for review: " .. vim.inspect(log))
  if review.kind == "toolhost.edit" then
    h.match(text, "the user rejected the edit")
  else
    h.truthy(text:lower():find("denied"), "says the user denied it: " .. text)
  end
  h.eq(h.read(path), "hello world\n", "disk unchanged")
end)

h.test("server: Write creates a new file through the editor", function()
  local dir = start({}, "acceptEdits")
  local path = dir .. "/sub/new.txt"
  h.script_ui({ ["toolhost.permission"] = h.pick(dialogs.ALLOW), ["toolhost.edit"] = h.pick("Accept") })
  local result = call("Write", { file_path = path, content = "fresh\ncontent\n" })
  h.eq(result.isError, false, format.result_text(result))
  h.eq(h.read(path), "fresh\ncontent\n", "disk")
end)

h.test("server: AskUserQuestion returns the picked and typed answers", function()
  start({}, "default")
  local log = h.script_ui({
    ["toolhost.question"] = function(items, o)
      if o.prompt:find("color") then
        return h.pick("Blue")(items)
      end
      return h.pick(dialogs.OTHER)(items)
    end,
    ["toolhost.question.input"] = function()
      return "a typed answer"
    end,
    ["toolhost.permission"] = h.pick(dialogs.ALLOW),
  })
  local result = call("AskUserQuestion", {
    questions = {
      { question = "Which color?", header = "Color", multiSelect = false,
        options = { { label = "Red", description = "warm" }, { label = "Blue", description = "cool" } } },
      { question = "Anything else?", header = "Notes", multiSelect = false,
        options = { { label = "No", description = "nothing" }, { label = "Yes", description = "something" } } },
    },
  })
  local text = format.result_text(result)
  h.eq(result.isError, false, text)
  h.match(text, "Blue")
  h.match(text, "a typed answer")
  h.truthy(vim.tbl_contains(kinds(log), "toolhost.question"), "asked through vim.ui.select")
end)

h.test("server: a denied Bash command does not run", function()
  local dir = start({}, "default")
  local log = h.script_ui({ ["toolhost.permission"] = h.pick(dialogs.DENY) })
  local result = call("Bash", { command = "echo ran > ran.txt", description = "write a marker" })
  local text = format.result_text(result)
  h.eq(result.isError, true, text)
  h.truthy(text:lower():find("denied"), "says denied: " .. text)
  h.eq(h.read(dir .. "/ran.txt"), nil, "the command did not run")
  h.eq(kinds(log), { "toolhost.permission" })
  h.match(log[1].prompt, "echo ran > ran.txt")
end)

h.test("server: TodoWrite fills :Toolhost todos", function()
  start({}, "default")
  h.script_ui({ ["toolhost.permission"] = h.pick(dialogs.ALLOW) })
  local result = call("TodoWrite", { todos = {
    { content = "Write code", status = "completed", activeForm = "Writing code" },
    { content = "Run tests", status = "in_progress", activeForm = "Running tests" },
  } })
  h.eq(result.isError, false, format.result_text(result))
  h.wait_for(function()
    return #toolhost.todos() == 2
  end, "the toolhost/todos notification")
  vim.cmd("Toolhost todos")
  h.eq(vim.api.nvim_buf_get_lines(h.view("todos"), 0, -1, false),
    { "Todos: 1/2 done", "[x] Write code", "[~] Run tests — in progress: Running tests" })
end)

h.test("server: TaskCreate and TaskUpdate fill :Toolhost todos", function()
  start({}, "default")
  h.script_ui({ ["toolhost.permission"] = h.pick(dialogs.ALLOW) })
  local result = call("TaskCreate", { subject = "Write code", description = "the parser", activeForm = "Writing code" })
  h.eq(result.isError, false, format.result_text(result))
  result = call("TaskCreate", { subject = "Run tests", description = "all of them" })
  h.eq(result.isError, false, format.result_text(result))
  result = call("TaskUpdate", { taskId = "1", status = "in_progress" })
  h.eq(result.isError, false, format.result_text(result))
  h.wait_for(function()
    local t = toolhost.todos()
    return #t == 2 and t[1].status == "in_progress"
  end, "the toolhost/taskList notification")
  vim.cmd("Toolhost todos")
  h.eq(vim.api.nvim_buf_get_lines(h.view("todos"), 0, -1, false),
    { "Todos: 0/2 done", "[~] #1 Write code — in progress: Writing code", "[ ] #2 Run tests" })
end)

h.test("server: :Toolhost run shows a tool's result", function()
  local dir = start({ ["notes.txt"] = "alpha\nbeta\n" }, "default")
  vim.cmd('Toolhost run Read {"file_path": "' .. dir .. '/notes.txt"}')
  h.wait_for(function()
    local b = h.view("result")
    return b ~= -1 and #vim.api.nvim_buf_get_lines(b, 0, -1, false) > 2
  end, "the result buffer")
  local lines = vim.api.nvim_buf_get_lines(h.view("result"), 0, -1, false)
  h.match(lines[1], "^# Read — ok")
  h.match(table.concat(lines, "\n"), "1\talpha")
  -- Finding 7: with a second tab open, the result's tab is named for what
  -- it shows; the default tab line cut "toolhost://result" to "t//result".
  vim.cmd("tabnew")
  local tabline = h.tabline()
  vim.cmd("tabclose")
  h.match(tabline, "toolhost result: Read", "the tab line")
  h.truthy(not tabline:find("t//", 1, true), "no shortened folders in the tab line: " .. tabline)
end)
