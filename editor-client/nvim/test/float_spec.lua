-- The plugin with a floating-window vim.ui.select and vim.ui.input, like
-- dressing.nvim, telescope-ui-select or snacks: the dialog opens a float and
-- answers only when the user presses a key in it. The keys are typed with
-- feedkeys while the prompt waits, so these tests fail if a handler blocks
-- the editor until the dialog answers.
local h = require("harness")
local toolhost = require("toolhost")
local dialogs = require("toolhost.dialogs")
local format = require("toolhost.format")
local edits = require("toolhost.edits")


local float = {}
local original_select, original_input = vim.ui.select, vim.ui.input

-- The open float's window, or nil (the plugin's own floats, the question
-- card and the progress, take no focus).
function float.win()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local config = vim.api.nvim_win_get_config(win)
    if config.relative ~= "" and config.focusable ~= false then
      return win
    end
  end
  return nil
end

local function close(win)
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_close(win, true)
  end
end

-- A float with one line per item; <CR> picks the line under the cursor,
-- <Esc> and q dismiss. Nothing answers until a key is pressed.
function float.select(items, opts, on_choice)
  local fmt = opts.format_item or tostring
  local lines = {}
  for i, item in ipairs(items) do
    lines[i] = fmt(item)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local win = vim.api.nvim_open_win(buf, true, { relative = "editor", row = 2, col = 2, width = 60, height = #lines, style = "minimal", border = "single" })
  float.last = { prompt = opts.prompt, kind = opts.kind, lines = lines }
  local function pick(choice)
    close(win)
    on_choice(choice)
  end
  vim.keymap.set("n", "<CR>", function()
    pick(items[vim.api.nvim_win_get_cursor(win)[1]])
  end, { buffer = buf })
  for _, key in ipairs({ "<Esc>", "q" }) do
    vim.keymap.set("n", key, function()
      pick(nil)
    end, { buffer = buf })
  end
end

-- A one-line float input; <CR> confirms the line, <Esc> cancels.
function float.input(opts, on_confirm)
  local buf = vim.api.nvim_create_buf(false, true)
  local win = vim.api.nvim_open_win(buf, true, { relative = "editor", row = 2, col = 2, width = 60, height = 1, style = "minimal", border = "single" })
  float.last = { prompt = opts.prompt, kind = (opts.kind or "input") .. ".input" }
  vim.keymap.set("n", "<CR>", function()
    local text = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
    close(win)
    on_confirm(text)
  end, { buffer = buf })
  vim.keymap.set("n", "<Esc>", function()
    close(win)
    on_confirm(nil)
  end, { buffer = buf })
end

-- Types keys as the user would, executing them at once.
local function type_keys(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "xt", false)
end

local function start(files, settings)
  vim.ui.select, vim.ui.input = float.select, float.input
  -- A short timeout: a handler that blocks until it passes gets a dismissal
  -- before the test can press a key.
  -- review_changes = false: the per-file review in a floating select.
  return h.start_server(files, { settings = settings or {}, dialog_timeout_ms = 4000, review_changes = false })
end

-- Starts a tool call; returns a function that waits for and returns its result.
local function call_async(name, input)
  local done, result = false, nil
  toolhost.call_tool(name, input, function(err, r)
    h.truthy(err == nil, "no JSON-RPC error: " .. vim.inspect(err))
    done, result = true, r
  end)
  return function()
    h.wait_for(function()
      return done
    end, name .. " to return", 30000)
    return result
  end
end

local function wait_float(what)
  h.wait_for(function()
    return float.win() ~= nil
  end, what or "the floating dialog")
  vim.api.nvim_set_current_win(float.win())
end

-- Moves the float's cursor to the line that starts with `label`.
local function cursor_to(label)
  local buf = vim.api.nvim_win_get_buf(float.win())
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:sub(1, #label) == label then
      vim.api.nvim_win_set_cursor(float.win(), { i, 0 })
      return
    end
  end
  error("no line " .. label .. " in the float: " .. vim.inspect(vim.api.nvim_buf_get_lines(buf, 0, -1, false)))
end

-- Types `words` into the feedback input once it opens, and confirms.
local function type_feedback(words)
  wait_float("the feedback input")
  h.match(float.last.kind, "toolhost.feedback")
  type_keys("i" .. words .. "<Esc><CR>")
end

local function cleanup()
  vim.ui.select, vim.ui.input = original_select, original_input
end

h.test("float: a permission prompt in a floating select is answered by its keys", function()
  local dir = start({})
  local result = call_async("Bash", { command = "echo ran > ran.txt", description = "write a marker" })
  wait_float("the permission float")
  local prompt = float.last.prompt
  cursor_to("Allow")
  type_keys("<CR>")
  local r = result()
  h.eq(r.isError, false, format.result_text(r))
  h.eq(h.read(dir .. "/ran.txt"), "ran\n", "the command ran")
  h.match(prompt, "write a marker", "the model's description is shown")
  cleanup()
end)

h.test("float: Deny with feedback sends the user's words to the model", function()
  local dir = start({})
  local result = call_async("Bash", { command = "echo ran > ran.txt", description = "write a marker" })
  wait_float()
  cursor_to(dialogs.DENY_FEEDBACK)
  type_keys("<CR>")
  type_feedback("use printf, not echo")
  local text = format.result_text(result())
  h.match(text, "The user denied this and said: use printf, not echo", "the words reach the model")
  h.eq(h.read(dir .. "/ran.txt"), nil, "the command did not run")
  cleanup()
end)

h.test("float: a high-risk call does not put Allow first", function()
  start({})
  local result = call_async("Bash", { command = "rm -rf build", description = "clean" })
  wait_float()
  local first = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float.win()), 0, 1, false)[1]
  type_keys("<CR>")
  local text = format.result_text(result())
  h.match(first, "^Deny", "the first item")
  h.match(text, "denied", "Enter on the first item denies")
  cleanup()
end)

h.test("float: the diff under review scrolls, searches and answers from itself", function()
  local lines = {}
  for i = 1, 200 do
    lines[i] = "line " .. i
  end
  local dir = start({ ["long.txt"] = table.concat(lines, "\n") .. "\n" }, { edit = { reviewInEditor = true } })
  local path = dir .. "/long.txt"
  local read = call_async("Read", { file_path = path })
  h.eq(read().isError, false, "Read")
  local result = call_async("Edit", { file_path = path, old_string = "line 180\n", new_string = "line 180 changed\n" })
  wait_float("the review menu")
  h.eq(float.last.lines, { edits.ACCEPT, edits.REJECT, dialogs.DENY_FEEDBACK }, "the review menu")
  -- Close the menu: the prompt keeps waiting on the diff, and says so on
  -- one line (a longer one stops at "Press ENTER", which takes the next key).
  local echoed, original_echo = {}, vim.api.nvim_echo
  vim.api.nvim_echo = function(chunks, ...)
    table.insert(echoed, chunks[1][1])
    return original_echo(chunks, ...)
  end
  type_keys("<Esc>")
  h.wait_for(function()
    return #echoed > 0
  end, "the still-waiting message")
  vim.api.nvim_echo = original_echo
  h.match(echoed[1], "^toolhost: the prompt is still waiting")
  h.truthy(vim.fn.strdisplaywidth(echoed[1]) < vim.o.columns - 11, "the message fits the command line: " .. echoed[1])
  h.truthy(float.win() == nil, "the menu closed")
  -- Readable tab names: no folder for the tab line to shorten.
  local names = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    table.insert(names, vim.fn.bufname(vim.api.nvim_win_get_buf(win)))
  end
  h.eq(names, { "toolhost review: long.txt (current)", "toolhost review: long.txt (proposed)" }, "the review's buffer names")
  h.truthy(#dialogs.pending == 1, "the prompt still waits")
  -- Two labelled panes; the user searches the proposed one for the change.
  local labels = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    table.insert(labels, vim.api.nvim_win_get_option(win, "statusline"))
  end
  h.match(table.concat(labels, "\n"), "current: long.txt", "the current pane's label")
  h.match(table.concat(labels, "\n"), "proposed: long.txt", "the proposed pane's label")
  h.match(table.concat(labels, "\n"), "a accept", "the keys in the label")
  vim.cmd("wincmd l")
  type_keys("gg/180 changed<CR>")
  h.eq(vim.api.nvim_win_get_cursor(0)[1], 180, "the search found the change")
  type_keys("a")
  local r = result()
  h.eq(r.isError, false, format.result_text(r))
  h.match(h.read(path), "line 180 changed\n", "disk")
  h.eq(#dialogs.pending, 0, "no prompt waits")
  -- Reject with feedback from the diff: f, then the words.
  result = call_async("Edit", { file_path = path, old_string = "line 7\n", new_string = "line seven\n" })
  wait_float("the second review's menu")
  type_keys("<Esc>")
  h.wait_for(function()
    return float.win() == nil
  end, "the menu to close")
  type_keys("f")
  type_feedback("keep the numbers as digits")
  local text = format.result_text(result())
  h.match(text, "the user rejected the edit and said: keep the numbers as digits", "the words reach the model")
  h.eq(h.read(path):find("line seven", 1, true), nil, "the file is unchanged")
  cleanup()
end)

h.test("float: a long question is read whole above a narrow picker; a multi-select is a checklist", function()
  start({})
  local long = "Which database should the new reporting service use for its nightly aggregates and the dashboards?"
  local result = call_async("AskUserQuestion", { questions = {
    { question = long, header = "Database", multiSelect = false,
      options = { { label = "Postgres", description = "the main cluster" }, { label = "SQLite", description = "a file" } } },
    { question = "Which checks should run before every merge into the main branch of the repository?", header = "Checks", multiSelect = true,
      options = { { label = "Tests", description = "go test" }, { label = "Lint", description = "staticcheck" }, { label = "Docs", description = "make docs" } } },
  } })
  wait_float("the first question")
  -- The picker's title fits its 60 columns; the question is whole in the card.
  local title = float.last.prompt
  h.truthy(vim.fn.strdisplaywidth(title) <= 58, "the title fits the picker: " .. title)
  local card = dialogs.card_window()
  h.truthy(card, "the question card is shown")
  h.eq(table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(card), 0, -1, false), " "), long, "the card's question")
  cursor_to("Postgres")
  type_keys("<CR>")
  -- The multi-select: options with check boxes, controls without.
  for _, label in ipairs({ "[ ] Tests — go test", "[ ] Docs — make docs" }) do
    wait_float("the checklist")
    cursor_to(label)
    type_keys("<CR>")
  end
  wait_float("the checklist")
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float.win()), 0, -1, false)
  h.eq(lines, { "[x] Tests — go test", "[ ] Lint — staticcheck", "[x] Docs — make docs", "→ Done — 2 picked", "Other… — type an answer of your own", "← Previous question" })
  h.match(float.last.prompt, "^Checks %(pick any, then Done%)$")
  cursor_to("→ Done")
  type_keys("<CR>")
  local text = format.result_text(result())
  h.match(text, "Postgres", "the single-select's answer")
  h.match(text, "Tests, Docs", "the multi-select's answer")
  h.eq(dialogs.card_window(), nil, "the card closed with the questions")
  cleanup()
end)
