-- Issue 28's findings in Neovim, driven through a real Neovim's screen: a
-- second Neovim runs the plugin in a terminal, the cases type what a user
-- types, check what the screen shows and capture it for docs/editors.md.
-- The last case fails when the docs' copies are not what this run took.
local h = require("harness")
local screen = require("screen")

local s, root, project

local function init_lua(bin)
  return string.format([==[
vim.opt.runtimepath:prepend(%q)
vim.opt.swapfile = false
vim.opt.laststatus = 2
require("toolhost").setup({
  cmd = { %q, "serve" },
  permission_mode = "default",
  -- The per-file review tab is what finding 7 shows.
  review_changes = false,
  settings = { edit = { reviewInEditor = true } },
})
-- A floating vim.ui.select of fixed width, as dressing.nvim or snacks give
-- (:lua FloatUI()): one line per item, <CR> picks, <Esc> dismisses.
function FloatUI()
  vim.ui.select = function(items, opts, on_choice)
    local lines = {}
    for i, item in ipairs(items) do
      lines[i] = (opts.format_item or tostring)(item)
    end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    local win = vim.api.nvim_open_win(buf, true, { relative = "editor", row = 6, col = 10, width = 60, height = #lines,
      style = "minimal", border = "single" })
    -- Neovim 0.7 floats have no title: the prompt goes on the top border's
    -- line as the plugins draw it, cut to the float's width.
    local title = vim.api.nvim_open_win(vim.api.nvim_create_buf(false, true), false, { relative = "editor", row = 5, col = 11,
      width = 58, height = 1, style = "minimal", focusable = false, zindex = 60 })
    vim.api.nvim_buf_set_lines(vim.api.nvim_win_get_buf(title), 0, -1, false, { " " .. opts.prompt })
    local function pick(choice)
      vim.api.nvim_win_close(title, true)
      vim.api.nvim_win_close(win, true)
      on_choice(choice)
    end
    vim.keymap.set("n", "<CR>", function() pick(items[vim.api.nvim_win_get_cursor(win)[1]]) end, { buffer = buf })
    vim.keymap.set("n", "<Esc>", function() pick(nil) end, { buffer = buf })
  end
end
]==], screen.plugin, bin)
end

-- Each case starts from one window on sample.txt, so its screen does not
-- depend on what the one before left open.
local function one_window()
  s:cmd("silent! tabonly | silent! only | buffer sample.txt | echo")
end

h.test("screens: a Neovim in a terminal runs the plugin on sample.txt; the folder's hook waits for trust", function()
  root = h.workspace({ ["project/sample.txt"] = "The quick brown fox\njumps over the lazy dog.\n",
    -- A setting the untrusted folder's trust question lists and :Toolhost
    -- status shows ignored (finding 5).
    ["project/.toolhost/settings.json"] = '{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"make lint"}]}]}}',
    ["init.lua"] = init_lua(os.getenv("TOOLHOST_BIN")) })
  project = root .. "/project"
  s = screen.start({ "nvim", "--clean", "-u", root .. "/init.lua", "sample.txt" }, { cwd = project, root = root })
  s:wait({ "make lint", "1: Don't trust" })
  s:keys("1" .. screen.ENTER)
  local after = s:wait({ "lazy dog", "1 of its settings are ignored (:Toolhost status)" })
  h.truthy(not after:find("Press ENTER", 1, true), "one line, no prompt that eats the next key:\n" .. after)
end)

h.test("screens: finding 1, a long Bash shows its output line by line and <C-c> stops it; finding 2, the risk apart from the question", function()
  -- The issue's own long-running loop: low risk, Allow first.
  s:cmd([[Toolhost run Bash {"command": "for i in $(seq 1 30); do echo step $i; sleep 1; done", "description": "Count slowly"}]])
  local prompt = s:wait("Always allow")
  h.match(prompt, "%[risk: low%]  Run `for i in %$%(seq 1 30%); do echo step %$i; sleep 1; done`%? %(Count slowly%)\n1: Allow\n")
  h.eq(select(2, prompt:gsub("sleep 1; done`", "")), 1, "the command shown once in the question")
  s:shot("nvim-permission-medium")
  s:keys("1" .. screen.ENTER)
  local progress = s:wait({ "step 1", "step 2", "<C-c> or :Toolhost cancel stops it" })
  h.truthy(not progress:find("\\n", 1, true), "no literal \\n in the progress:\n" .. progress)
  s:shot("nvim-progress")
  s:keys(screen.CTRL_C)
  s:wait_gone("step 2")
  -- "cancelled Bash" from the key, then the progress's end.
  local after = s:wait("done — cancelled after")
  h.truthy(not after:find("Press ENTER", 1, true), "one message, no prompt that eats the next key:\n" .. after)

  s:cmd([[Toolhost run Bash {"command": "rm -rf build", "description": "Remove the build folder"}]])
  local high = s:wait("Always allow")
  h.match(high, "%[risk: high%]  Run `rm %-rf build`%?")
  h.match(high, "1: Deny\n2: Deny with feedback")
  s:shot("nvim-permission")
  s:keys("1" .. screen.ENTER)
  s:wait("denied")
  -- The issue's other example: waiting is not a risk either.
  s:cmd([[Toolhost run Bash {"command": "sleep 40; echo finished"}]])
  h.match(s:wait("Always allow"), "%[risk: low%]  Run `sleep 40; echo finished`%?\n1: Allow\n")
  s:keys("3" .. screen.ENTER)
  s:wait("`sleep 40; echo finished` did not run")
end)

h.test("screens: finding 5, :Toolhost status says where an edit is reviewed and lists the folder setting ignored", function()
  one_window()
  s:cmd("Toolhost status")
  s:wait("toolhost status")
  -- The status split alone, so its lists are in view.
  s:cmd("only")
  local status = s:wait({ "edit review: a diff tab with Accept, Reject, Deny with feedback (edit.reviewInEditor)",
    "## 1 folder setting ignored (the folder is not trusted)", "make lint" })
  h.truthy(not status:find("edit review: dialog", 1, true), "the server's word is not shown as it is:\n" .. status)
  -- From the root down: the binary's path, version and pid change from
  -- run to run.
  s:keys(":6\r:normal! zt\r:echo\r")
  s:wait_gone("- pid:")
  s:shot("nvim-status")
end)

h.test("screens: finding 7, the review tab and the result split have readable names, and the menu offers feedback", function()
  one_window()
  s:cmd(string.format([[Toolhost run Read {"file_path": "%s/sample.txt"}]], project))
  s:wait("toolhost result: Read")
  s:cmd(string.format([[Toolhost run Edit {"file_path": "%s/sample.txt", "old_string": "lazy dog", "new_string": "sleepy cat"}]], project))
  local menu = s:wait({ "1: Accept", "3: Deny with feedback" })
  local tabline = vim.split(menu, "\n")[1]
  h.match(tabline, "toolhost result: Read", "the tab line")
  h.match(tabline, "toolhost review: sample.txt %(proposed%)", "the tab line")
  h.truthy(not tabline:find("//", 1, true) and not tabline:find("Scratch", 1, true), "no shortened or scratch names: " .. tabline)
  s:shot("nvim-review-menu")
  s:keys(screen.ESC)
  s:wait("still waiting")
  s:keys(screen.ENTER)
  s:wait({ "proposed: sample.txt  a accept", "jumps over the sleepy cat." })
  s:shot("nvim-review")
  -- The first key after <Esc> is taken: no "Press ENTER" ate it.
  s:keys("a")
  s:wait("# Edit — ok")
  h.eq(h.read(project .. "/sample.txt"), "The quick brown fox\njumps over the sleepy cat.\n", "sample.txt after a")
end)

h.test("screens: finding 6, a multi-select is a checklist with the default and a floating vim.ui; a long question shows whole above the floating one", function()
  one_window()
  -- With Neovim's own vim.ui.select a multi-select is a checklist too:
  -- the controls have no check box.
  s:cmd([[Toolhost run AskUserQuestion {"questions": [{"question": "Which checks should run before every merge?", "header": "Checks", "multiSelect": true, "options": [{"label": "Tests", "description": "go test"}, {"label": "Lint", "description": "staticcheck"}]}]}]])
  s:wait("1: [ ] Tests — go test")
  s:keys("1" .. screen.ENTER)
  local default = s:wait({ "1: [x] Tests — go test", "3: → Done — 1 picked", "4: Other… — type an answer of your own" })
  h.match(default, "Checks: Which checks should run before every merge%? %(pick any, then Done%)")
  h.eq(select(2, default:gsub("Checks: Which", "")), 1, "the list shown again on a clean screen:\n" .. default)
  s:shot("nvim-checklist-default")
  s:keys("3" .. screen.ENTER)
  s:wait("# AskUserQuestion — ok")
  one_window()
  s:cmd("lua FloatUI()")
  s:cmd([[Toolhost run AskUserQuestion {"questions": [{"question": "Which database should the new reporting service use for its nightly aggregates and dashboards?", "header": "Database", "multiSelect": false, "options": [{"label": "Postgres", "description": "the main cluster"}, {"label": "SQLite", "description": "a file next to the service"}]}, {"question": "Which checks should run before every merge?", "header": "Checks", "multiSelect": true, "options": [{"label": "Tests", "description": "go test"}, {"label": "Lint", "description": "staticcheck"}]}]}]])
  local question = s:wait({ "Postgres — the main cluster", "and dashboards?" })
  h.match(question, "Which database should the new reporting service use for its nightly aggregates")
  s:shot("nvim-question")
  s:keys(screen.ENTER)
  s:wait("[ ] Tests")
  s:keys(screen.ENTER)
  local checklist = s:wait({ "[x] Tests — go test", "→ Done — 1 picked", "← Previous question" })
  h.match(checklist, "Which checks should run before every merge%?")
  s:shot("nvim-checklist")
  s:keys(screen.DOWN .. screen.DOWN .. screen.ENTER)
  s:wait("# AskUserQuestion — ok")
end)

h.test("screens: finding 8, :Toolhost tasks shows a task's output", function()
  one_window()
  s:cmd("Toolhost mode bypassPermissions")
  -- Set before the call, which would otherwise ask.
  s:wait("permission mode bypassPermissions")
  s:cmd([[Toolhost run Bash {"command": "echo indexing; : >indexed; sleep 60", "run_in_background": true}]])
  s:wait("bash-1")
  h.wait_for(function()
    return vim.loop.fs_stat(project .. "/indexed") ~= nil
  end, "the task to print its line")
  s:cmd("Toolhost tasks")
  s:wait("x stop")
  s:keys(screen.DOWN .. screen.ENTER)
  -- The line may reach the task's output a moment after the file: ask
  -- again from the list (<C-w>p) while the output view has none.
  local tasks
  local shown = vim.wait(20000, function()
    tasks = s:text()
    if tasks:find("(no output yet)", 1, true) and tasks:find("TaskOutput — done", 1, true) then
      s:keys(":echo\r\23p\r")
    end
    return tasks:find("\nindexing\n") ~= nil and tasks:find("TaskOutput — done", 1, true) ~= nil
  end, 20)
  h.truthy(shown, "the task's output in the view; the screen shows:\n" .. tasks)
  h.match(tasks, "toolhost task%-output: bash%-1")
  s:shot("nvim-tasks")
end)

h.test("screens: finding 4, a killed server is started again by itself and says what ended with it", function()
  s:cmd([[lua vim.loop.kill(require("toolhost").state.pid, 9)]])
  local restarted = s:wait("was restarted")
  h.match(restarted, "the server stopped %(signal 9%) and was restarted; its background tasks ended")
  s:shot("nvim-restarted")
end)

h.test("screens: finding 7, an agent's terminal tab is named for the agent", function()
  local claude = root .. "/claude"
  vim.fn.writefile({ "#!/bin/sh", 'echo "Claude Code (stand-in)"; sleep 60' }, claude)
  vim.fn.setfperm(claude, "rwxr-xr-x")
  s:cmd("tabnew | terminal " .. claude)
  local term
  local named = vim.wait(20000, function()
    term = s:text()
    return term:find("stand-in", 1, true) and vim.split(term, "\n")[1]:find("toolhost terminal: claude", 1, true)
  end, 20)
  h.truthy(named, "the tab line names the agent's terminal; the screen shows:\n" .. term)
  s:shot("nvim-terminal")
end)

h.test("screens: docs/editors.md shows the screens this run took", function()
  if s then
    s:close()
  end
  local problems = screen.check_docs()
  h.truthy(#problems == 0, table.concat(problems, "\n\n"))
end)
