-- Tests of the plugin's logic that need no server.
local h = require("harness")
local dialogs = require("toolhost.dialogs")
local edits = require("toolhost.edits")
local format = require("toolhost.format")

local color = {
  question = "Which color?",
  header = "Color",
  options = { { label = "Red", description = "warm" }, { label = "Blue", description = "cool" } },
}
local opts = { dialog_timeout_ms = 5000 }

h.test("ask_user_question picks an option, takes free text and multi-select as a checklist", function()
  -- The multi-select's picks, in turn: tick S, tick M, untick S, type XL,
  -- Done.
  local sizes = { "S", "M", "S", dialogs.OTHER, dialogs.DONE }
  local log = h.script_ui({
    ["toolhost.question"] = function(items, o)
      if o.prompt:find("Which color") then
        return h.pick("Blue")(items)
      elseif o.prompt:find("Sizes") then
        return h.pick(table.remove(sizes, 1))(items)
      end
      return h.pick(dialogs.OTHER)(items)
    end,
    ["toolhost.question.input"] = function()
      if #sizes < 5 then
        return "XL"
      end
      return "  teal "
    end,
  })
  local result = h.co(dialogs.ask_user_question, {
    questions = {
      color,
      { question = "Other shade?", header = "Shade", options = { { label = "Dark" } } },
      { question = "Sizes?", header = "Size", multiSelect = true, options = { { label = "S" }, { label = "M" } } },
    },
  }, opts)
  h.eq(result, { answers = { ["Which color?"] = "Blue", ["Other shade?"] = "teal", ["Sizes?"] = "M, XL" } })
  h.eq(#log, 9, "dialogs shown")
  h.eq(dialogs.format_option(log[1].items[1]), "Red — warm", "option text")
  h.eq(log[1].items[3].label, dialogs.OTHER, "last item")
  -- The checklist as shown before Done: ticks on options only; the
  -- controls are not options.
  local shown = vim.tbl_map(dialogs.format_multi_item, log[9].items)
  h.eq(shown, { "[ ] S", "[x] M", "[x] XL", "→ Done — 2 picked", "Other… — type an answer of your own", "← Previous question" })
  h.eq(dialogs.card_window(), nil, "no card left open")
end)

h.test("ask_user_question reports dismissal", function()
  local cases = {
    { select = function() return nil end },
    { select = h.pick(dialogs.OTHER), input = function() return nil end },
    { select = h.pick(dialogs.OTHER), input = function() return "   " end },
  }
  for i, c in ipairs(cases) do
    h.script_ui({ ["toolhost.question"] = c.select, ["toolhost.question.input"] = c.input })
    local result = h.co(dialogs.ask_user_question, { questions = { color } }, opts)
    h.eq(result.dismissed, true, "case " .. i)
    h.eq(vim.json.encode(result.answers), "{}", "answers encode as an object, case " .. i)
  end
end)

h.test("permission prompt shows command and risk; answers map buttons", function()
  h.eq(dialogs.permission_prompt({ toolName = "Bash", title = "Run a command?", risk = "high", input = { command = "make\nclean" } }),
    "[risk: high]  Run a command? — $ make ⏎ clean")
  -- The command the question names is not repeated.
  h.eq(dialogs.permission_prompt({ toolName = "Bash", title = "Run `sleep 40; echo finished`?", risk = "medium",
    input = { command = "sleep 40; echo finished" }, preview = { kind = "command", text = "sleep 40; echo finished" } }),
    "[risk: medium]  Run `sleep 40; echo finished`?")
  h.eq(dialogs.permission_prompt({ toolName = "WebFetch", preview = { kind = "url", text = "https://example.com" } }),
    "Allow WebFetch? — https://example.com")
  h.eq(dialogs.permission_answer(dialogs.ALLOW), { decision = "allow" })
  h.eq(dialogs.permission_answer(dialogs.ALLOW_ALWAYS), { decision = "allowAlways" })
  h.eq(dialogs.permission_answer(dialogs.DENY), { decision = "deny" }, "a plain denial carries no words")
  h.eq(dialogs.permission_answer({ label = dialogs.DENY_FEEDBACK }, "use the staging db"), { decision = "deny", message = "use the staging db" })
  h.eq(dialogs.permission_answer(nil), nil, "dismissed")
end)

h.test("request_permission shows a diff preview in a tab while asking", function()
  local log = h.script_ui({ ["toolhost.permission"] = h.pick(dialogs.ALLOW_ALWAYS) })
  local tabs = #vim.api.nvim_list_tabpages()
  local answer = h.co(dialogs.request_permission, { toolName = "Edit", preview = { kind = "diff", text = "-a\n+b" } }, opts)
  h.eq(answer, { decision = "allowAlways" })
  h.eq(log[1].lines, { "-a", "+b" }, "preview shown")
  h.eq(#vim.api.nvim_list_tabpages(), tabs, "preview tab closed")
end)

h.test("needs_confirmation and touched_uris read the edit", function()
  h.eq(edits.needs_confirmation({}), false)
  h.eq(edits.needs_confirmation({ changeAnnotations = { a = { label = "x", needsConfirmation = true } } }), true)
  h.eq(edits.touched_uris({
    changes = { ["file:///w/z.txt"] = {} },
    documentChanges = {
      { kind = "create", uri = "file:///w/n.txt" },
      { textDocument = { uri = "file:///w/n.txt" }, edits = {} },
      { kind = "rename", oldUri = "file:///w/o.txt", newUri = "file:///w/m.txt" },
      { kind = "delete", uri = "file:///w/d.txt" },
    },
  }), { "file:///w/z.txt", "file:///w/n.txt", "file:///w/m.txt" })
end)

local function replace(uri, line, from, to, text)
  return {
    textDocument = { uri = uri },
    edits = { { range = { start = { line = line, character = from }, ["end"] = { line = line, character = to } }, newText = text, annotationId = "t" } },
  }
end

h.test("proposed_lines applies UTF-16 edits without touching the file", function()
  local dir = h.workspace({ ["a.txt"] = "héllo wörld\nsecond\n" })
  local uri = vim.uri_from_fname(dir .. "/a.txt")
  local lines = edits.proposed_lines(uri, replace(uri, 0, 6, 11, "there").edits, "utf-16")
  h.eq(lines, { "héllo there", "second" })
  h.eq(h.read(dir .. "/a.txt"), "héllo wörld\nsecond\n", "file untouched")
end)

h.test("apply: confirmed edits are shown as a diff, then written or rejected", function()
  for _, c in ipairs({ { "Accept", "one\nTWO\n", true }, { "Reject", "one\ntwo\n", false } }) do
    local dir = h.workspace({ ["b.txt"] = "one\ntwo\n" })
    local uri = vim.uri_from_fname(dir .. "/b.txt")
    local log = h.script_ui({ ["toolhost.edit"] = h.pick(c[1]) })
    local result = h.co(edits.apply, {
      label = "Edit b.txt",
      edit = { documentChanges = { replace(uri, 1, 0, 3, "TWO") }, changeAnnotations = { t = { label = "Edit b.txt", needsConfirmation = true } } },
    }, { offset_encoding = "utf-16" }, opts)
    h.eq(result.applied, c[3], c[1])
    if not c[3] then
      h.eq(result.failureReason, "the user rejected the edit")
    end
    h.eq(h.read(dir .. "/b.txt"), c[2], c[1] .. ": disk")
    h.eq(log[1].prompt, "Edit b.txt?")
    h.eq(log[1].diff, true, "asked from a diff window")
    h.eq(log[1].lines, { "one", "TWO" }, "proposed side shown")
  end
end)

h.test("apply: an edit without confirmation creates and writes a new file", function()
  local dir = h.workspace({})
  local path = dir .. "/c.txt"
  local uri = vim.uri_from_fname(path)
  local log = h.script_ui({})
  local result = h.co(edits.apply, {
    edit = { documentChanges = {
      { kind = "create", uri = uri },
      { textDocument = { uri = uri }, edits = { { range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 0 } }, newText = "made\n" } } },
    } },
  }, { offset_encoding = "utf-16" }, opts)
  h.eq(result, { applied = true })
  h.eq(h.read(path), "made\n", "disk")
  h.eq(#log, 0, "no dialog")
end)

h.test("apply: a write that fails after the edit still answers applied", function()
  local dir = h.workspace({ ["d.txt"] = "old\n" })
  local uri = vim.uri_from_fname(dir .. "/d.txt")
  local write_documents, notify = edits.write_documents, vim.notify
  local notices = {}
  edits.write_documents = function()
    return false, "could not write d.txt: E212"
  end
  vim.notify = function(msg)
    table.insert(notices, msg)
  end
  local ok, result = pcall(edits.apply, { edit = { documentChanges = { replace(uri, 0, 0, 3, "new") } } }, { offset_encoding = "utf-16" }, opts)
  edits.write_documents, vim.notify = write_documents, notify
  h.truthy(ok, tostring(result))
  h.eq(result, { applied = true })
  h.eq(vim.api.nvim_buf_get_lines(vim.fn.bufnr(dir .. "/d.txt"), 0, -1, false), { "new" }, "buffer")
  h.match(notices[1], "E212")
end)

h.test("apply: a buffer behind the disk is written only over the disk the change was planned on", function()
  local function rewrite(path, text)
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
  end
  local notify = vim.notify
  vim.notify = function() end
  for _, c in ipairs({
    -- A stale edit (planned on the buffer Neovim holds, not on the disk):
    -- writing it would undo the command's change.
    { name = "stale edit", edits = { replace("", 0, 0, 3, "ONE") }, hint = false, disk = "one\nTWO by bash\n" },
    -- The server saw the disk: its edit takes the buffer to the disk plus
    -- the change and says which disk that was.
    { name = "planned on the disk", edits = { replace("", 0, 0, 3, "ONE"), replace("", 1, 0, 3, "TWO by bash") }, hint = true, disk = "ONE\nTWO by bash\n" },
  }) do
    local dir = h.workspace({ ["e.txt"] = "one\ntwo\n" })
    local path = dir .. "/e.txt"
    local uri = vim.uri_from_fname(path)
    vim.cmd("edit " .. vim.fn.fnameescape(path))
    local bufnr = vim.api.nvim_get_current_buf()
    rewrite(path, "one\nTWO by bash\n") -- a command rewrites the file; Neovim does not reload
    local edits_ = {}
    for _, e in ipairs(c.edits) do
      table.insert(edits_, e.edits[1])
    end
    local params = { edit = { documentChanges = { { textDocument = { uri = uri }, edits = edits_ } } } }
    if c.hint then
      params.toolhost = { disk = { [uri] = vim.fn.sha256("one\nTWO by bash\n") } }
    end
    local result = h.co(edits.apply, params, { offset_encoding = "utf-16" }, opts)
    h.eq(result, { applied = true }, c.name)
    h.eq(h.read(path), c.disk, c.name .. ": disk")
    h.eq(vim.bo[bufnr].modified, not c.hint, c.name .. ": buffer left unsaved when not written")
    vim.cmd("bwipeout!")
  end
  vim.notify = notify
end)

h.test("format: todos, results and tools", function()
  h.eq(format.todos({
    { content = "Write", status = "completed", activeForm = "Writing" },
    { content = "Test", status = "in_progress", activeForm = "Testing" },
    { content = "Ship", status = "pending", activeForm = "Shipping" },
  }), { "Todos: 1/3 done", "[x] Write", "[~] Test — in progress: Testing", "[ ] Ship" })
  h.eq(format.todos({}), { "No todos." })
  h.eq(format.todos(format.tasks_as_todos({
    { id = "1", subject = "Write tests", status = "completed", blockedBy = {} },
    { id = "2", subject = "Fix the bug", status = "in_progress", activeForm = "Fixing the bug", owner = "me", blockedBy = { "1" } },
    { id = "3", subject = "Release", status = "pending", blockedBy = { "2" } },
  })), { "Todos: 1/3 done", "[x] #1 Write tests", "[~] #2 Fix the bug (me) — in progress: Fixing the bug", "[ ] #3 Release [blocked by #2]" })
  -- Where a change is reviewed, as :Toolhost status says it.
  for _, case in ipairs({
    { "dialog", false, "a diff tab with the permission prompt" },
    { "editor", false, "a diff tab with Accept, Reject, Deny with feedback %(edit%.reviewInEditor%)" },
    { "dialog", true, "one tab per turn" },
    { "editor", true, "one tab per turn" },
    { "turn", false, "one tab per turn" },
  }) do
    h.match(format.edit_review(case[1], case[2]), "^" .. case[3], "edit review " .. case[1] .. tostring(case[2]))
  end
  h.eq(format.result("Bash", { isError = true, durationMs = 5, content = { { type = "text", text = "Error: a\nb" } } }),
    { "# Bash — error, 5 ms", "", "Error: a", "b" })
  h.eq(format.tools({ { name = "Read", category = "core", risk = "low", docs = { short = "Reads" } }, { name = "Bash", enabled = false } })[2],
    string.format("%-20s %-9s %-8s %s", "Read", "core", "low", "Reads"))
  h.match(format.task_event({ taskId = "t1", status = "finished", exitCode = 0 }), "task t1 finished %(exit 0%)")
end)

h.test(":Toolhost completes subcommands and modes", function()
  local commands = require("toolhost.commands")
  h.eq(commands.complete("st", "Toolhost st"), { "start", "status", "stop" })
  h.eq(commands.complete("acc", "Toolhost mode acc"), { "acceptEdits" })
end)

h.test(":Toolhost run keeps the JSON's spacing", function()
  local commands = require("toolhost.commands")
  local name, json = commands.parse_run('run Bash {"command": "echo  two  spaces"} ')
  h.eq(name, "Bash")
  h.eq(json, '{"command": "echo  two  spaces"}')
  h.eq({ commands.parse_run("run Read") }, { "Read", "" })
  h.eq(commands.parse_run("tools"), nil)
end)

h.test("unsaved: the disk gets its content plus the agent's change, never the typing", function()
  local unsaved = require("toolhost.unsaved")
  local disk = { "a", "b", "c", "d", "e" }
  local buffer = { "a", "b", "TYPED", "c", "d", "e" } -- the user typed a line, unsaved
  local cases = {
    { "change after the typing", { "a", "b", "TYPED", "c", "D!", "e" }, { "a", "b", "c", "D!", "e" } },
    { "change before the typing", { "A!", "b", "TYPED", "c", "d", "e" }, { "A!", "b", "c", "d", "e" } },
    { "lines added before the typing", { "a", "new", "b", "TYPED", "c", "d", "e" }, { "a", "new", "b", "c", "d", "e" } },
    { "lines removed after the typing", { "a", "b", "TYPED", "c", "e" }, { "a", "b", "c", "e" } },
  }
  for _, c in ipairs(cases) do
    h.eq(unsaved.disk_lines(buffer, c[2], disk), c[3], c[1])
  end
  local lines, why = unsaved.disk_lines(buffer, { "a", "b", "EDITED", "c", "d", "e" }, disk)
  h.eq(lines, nil, "a change of the typed line")
  h.match(why, "without saving")
end)

h.test("permission prompt writes out invisible characters and clips the description", function()
  h.eq(dialogs.visible("rm -rf ~ #\226\128\174 hs"), "rm -rf ~ #\\u202e hs")
  h.eq(dialogs.visible("a\27[8mb\r\n\226\129\166\194\133"), "a\\x1b[8mb\\r\\n\\u2066\\u0085")
  h.eq(dialogs.visible("café ✓"), "café ✓")
  local line = dialogs.permission_prompt({
    toolName = "Bash",
    title = "Run `curl x | sh #\226\128\174 ls`?",
    input = { command = "curl x | sh", description = string.rep("List files. ", 500) },
    preview = { kind = "command", text = "curl x | sh #\226\128\174 ls" },
  })
  h.eq(line:find("\226\128\174", 1, true), nil, "a raw U+202E in " .. line)
  h.eq(#line < 400, true, "the description is not clipped: " .. #line .. " bytes")
  h.eq(line:find("curl x | sh #\\u202e ls", 1, true) ~= nil, true, "the command is not shown: " .. line)
end)

-- The escaping of prompts is one table for the server and both editors
-- (testdata/visible.json at the repository's root); the plugin shows
-- prompts on one line, the table's "line" form.
h.test("visible escapes as the shared table says", function()
  local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
  local f = assert(io.open(here .. "/../../../testdata/visible.json", "rb"))
  local table_ = vim.fn.json_decode(f:read("*a"))
  f:close()
  h.eq(#table_.cases > 0, true, "no cases in testdata/visible.json")
  for _, c in ipairs(table_.cases) do
    h.eq(dialogs.visible(c["in"]), c.line, c.name)
  end
end)

h.test("questions show invisible characters written out; the answer is the label as written", function()
  local q = { question = "Deploy\226\128\174?", options = { { label = "yes\27[8m", description = "d\226\129\166" } } }
  local item = dialogs.multi_items(q, { true }, {}, false)[1]
  local shown = dialogs.format_option(q.options[1]) .. dialogs.format_multi_item(item) .. dialogs.question_prompt(q, function() end)
  h.eq(shown:find("[\27]") == nil and shown:find("\226\128\174", 1, true) == nil and shown:find("\226\129\166", 1, true) == nil, true, "raw in " .. shown)
  h.eq(item.label, "yes\27[8m")
end)
