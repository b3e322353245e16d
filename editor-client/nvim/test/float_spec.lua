-- The plugin with a floating-window vim.ui.select and vim.ui.input, like
-- dressing.nvim, telescope-ui-select or snacks: the dialog opens a float and
-- answers only when the user presses a key in it. The keys are typed with
-- feedkeys while the prompt waits, so these tests fail if a handler blocks
-- the editor until the dialog answers.
local h = require("harness")
local toolhost = require("toolhost")
local dialogs = require("toolhost.dialogs")
local format = require("toolhost.format")


local float = {}
local original_select, original_input = vim.ui.select, vim.ui.input

-- The open float's window, or nil.
function float.win()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
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
  return h.start_server(files, { settings = settings or {}, dialog_timeout_ms = 4000 })
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
  wait_float("the feedback input")
  h.match(float.last.kind, "toolhost.feedback")
  type_keys("iuse printf, not echo<Esc><CR>")
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
  -- Close the menu: the prompt keeps waiting on the diff.
  type_keys("<Esc>")
  h.truthy(float.win() == nil, "the menu closed")
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
  cleanup()
end)
