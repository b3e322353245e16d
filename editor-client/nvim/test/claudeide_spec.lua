-- Claude Code's IDE protocol in Neovim: the terminals' environment, the
-- review openDiff opens (editable proposal, accept, reject, per hunk), the
-- other editor tools, against the real server. The journey with the real
-- Claude Code CLI is in claudeide_e2e_spec.lua.
local h = require("harness")
local ide = require("toolhost.claudeide")

local function start(files)
  -- The lock file goes to a folder of the test's own.
  vim.env.CLAUDE_CONFIG_DIR = vim.fn.tempname()
  local dir = h.start_server(files or {}, {})
  h.wait_for(function()
    return vim.env.CLAUDE_CODE_SSE_PORT ~= nil
  end, "the IDE listener's port in the environment")
  return dir
end

-- Runs openDiff as the server's request handler does and returns a
-- function that waits for its answer.
local function open_diff(args)
  local answer, done = nil, false
  local co = coroutine.create(function()
    answer = ide.ide_tool({ name = "openDiff", arguments = args })
    done = true
  end)
  assert(coroutine.resume(co))
  return function()
    h.wait_for(function()
      return done
    end, "openDiff's answer")
    return answer
  end
end

local function proposal_buffer()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.api.nvim_buf_get_name(b):find("proposed by Claude", 1, true) then
      return b, w
    end
  end
  error("no proposal pane in the current tab")
end

h.test("claudeide: terminals get the port, and the lock file names this Neovim", function()
  local dir = start()
  local port = vim.env.CLAUDE_CODE_SSE_PORT
  h.eq(vim.env.ENABLE_IDE_INTEGRATION, "true", "ENABLE_IDE_INTEGRATION")
  local lock = vim.json.decode(h.read(vim.env.CLAUDE_CONFIG_DIR .. "/ide/" .. port .. ".lock"))
  h.eq(lock.pid, vim.fn.getpid(), "the lock file's pid (this Neovim)")
  h.eq(lock.workspaceFolders, { dir }, "workspaceFolders")
  h.eq(lock.transport, "ws", "transport")
  h.eq(vim.fn.getfperm(vim.env.CLAUDE_CONFIG_DIR .. "/ide/" .. port .. ".lock"), "rw-------", "the lock file's mode")
  -- A :terminal started now inherits them.
  local out = vim.fn.system({ "sh", "-c", "echo $CLAUDE_CODE_SSE_PORT $ENABLE_IDE_INTEGRATION" })
  h.eq(vim.trim(out), port .. " true", "a job's environment")
  require("toolhost").stop(3000)
  h.eq(vim.env.CLAUDE_CODE_SSE_PORT, nil, "the port after the server stopped")
  h.eq(h.read(vim.env.CLAUDE_CONFIG_DIR .. "/ide/" .. port .. ".lock"), nil, "the lock file after the server stopped")
end)

h.test("claudeide: openDiff accepted with :w answers the proposal as the user edited it", function()
  local dir = start({ ["a.txt"] = "one\ntwo\nthree\n" })
  local path = dir .. "/a.txt"
  local tabs = #vim.api.nvim_list_tabpages()
  local wait = open_diff({ old_file_path = path, new_file_path = path, new_file_contents = "one\nTWO\nthree\n", tab_name = "review a" })
  h.eq(#vim.api.nvim_list_tabpages(), tabs + 1, "tabs while the review is open")
  local buf = proposal_buffer()
  h.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "one", "TWO", "three" }, "the proposal")
  h.truthy(vim.bo[buf].modifiable, "the proposal is editable")
  vim.api.nvim_buf_set_lines(buf, 2, 3, false, { "three, as the user wants it" })
  vim.cmd("write")
  h.eq(wait(), { saved = true, text = "one\nTWO\nthree, as the user wants it\n" }, "openDiff's answer")
  h.wait_for(function()
    return #vim.api.nvim_list_tabpages() == tabs
  end, "the review to close")
  h.eq(h.read(path), "one\ntwo\nthree\n", "the file (the CLI writes it, not the editor)")
end)

h.test("claudeide: openDiff rejected by :q, by gR, and by close_tab; closeAllDiffTabs closes only reviews", function()
  local dir = start({ ["a.txt"] = "x\n" })
  local path = dir .. "/a.txt"
  local args = { old_file_path = path, new_file_path = path, new_file_contents = "y\n", tab_name = "t" }
  local wait = open_diff(args)
  local _, win = proposal_buffer()
  vim.api.nvim_set_current_win(win)
  vim.cmd("quit")
  h.eq(wait(), { saved = false }, ":q")
  wait = open_diff(args)
  vim.api.nvim_feedkeys("gR", "x", false)
  h.eq(wait(), { saved = false }, "gR")
  wait = open_diff(args)
  h.eq(ide.ide_tool({ name = "close_tab", arguments = { tab_name = "t" } }), vim.empty_dict(), "close_tab")
  h.eq(wait(), { saved = false }, "close_tab")
  -- Someone else's tab stays.
  vim.cmd("tabnew")
  local other = vim.api.nvim_get_current_tabpage()
  local w1 = open_diff(vim.tbl_extend("force", args, { tab_name = "t1" }))
  local w2 = open_diff(vim.tbl_extend("force", args, { tab_name = "t2" }))
  h.eq(ide.ide_tool({ name = "closeAllDiffTabs", arguments = {} }), { closed = 2 }, "closeAllDiffTabs")
  h.eq(w1(), { saved = false }, "the first review")
  h.eq(w2(), { saved = false }, "the second review")
  h.wait_for(function()
    return next(ide.reviews) == nil
  end, "the reviews to close")
  h.truthy(vim.api.nvim_tabpage_is_valid(other), "the user's own tab is still open")
  h.eq(h.read(path), "x\n", "the file")
end)

h.test("claudeide: per hunk: `do` keeps the current text of one hunk, the other is accepted", function()
  local dir = start({ ["a.txt"] = "a\nb\nc\nd\ne\nf\ng\nh\n" })
  local path = dir .. "/a.txt"
  local wait = open_diff({ old_file_path = path, new_file_path = path, new_file_contents = "A\nb\nc\nd\ne\nf\ng\nH\n", tab_name = "hunks" })
  local buf, win = proposal_buffer()
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_cursor(win, { 8, 0 })
  vim.cmd("diffget")
  h.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { "A", "b", "c", "d", "e", "f", "g", "h" }, "after diffget on the last hunk")
  vim.api.nvim_feedkeys("ga", "x", false)
  h.eq(wait(), { saved = true, text = "A\nb\nc\nd\ne\nf\ng\nh\n" }, "openDiff's answer")
end)

h.test("claudeide: the current side shows the unsaved buffer, not the disk", function()
  local dir = start({ ["a.txt"] = "on disk\n" })
  local path = dir .. "/a.txt"
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "unsaved" })
  local wait = open_diff({ old_file_path = path, new_file_path = path, new_file_contents = "new\n", tab_name = "u" })
  local cur
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.api.nvim_buf_get_name(b):find("(current)", 1, true) then
      cur = b
    end
  end
  h.eq(vim.api.nvim_buf_get_lines(cur, 0, -1, false), { "unsaved" }, "the current side")
  ide.ide_tool({ name = "closeAllDiffTabs", arguments = {} })
  h.eq(wait(), { saved = false }, "closed")
  vim.cmd("edit!")
end)

h.test("claudeide: getDiagnostics, getOpenEditors, saveDocument, openFile, getCurrentSelection", function()
  local dir = start({ ["a.go"] = "package a\n\nfunc f() { y }\n", ["b.txt"] = "b\n" })
  local a = dir .. "/a.go"
  vim.cmd("edit " .. vim.fn.fnameescape(a))
  local buf = vim.api.nvim_get_current_buf()
  local ns = vim.api.nvim_create_namespace("claudeide_test")
  vim.diagnostic.set(ns, buf, { { lnum = 2, col = 11, end_lnum = 2, end_col = 12, message = "undefined: y", severity = vim.diagnostic.severity.ERROR, source = "compiler" } })
  local d = ide.ide_tool({ name = "getDiagnostics", arguments = { uri = vim.uri_from_fname(a) } })
  h.eq(d, { { uri = vim.uri_from_fname(a), diagnostics = { { message = "undefined: y", severity = "Error", source = "compiler",
    range = { start = { line = 2, character = 11 }, ["end"] = { line = 2, character = 12 } } } } } }, "getDiagnostics")
  h.eq(#ide.ide_tool({ name = "getDiagnostics", arguments = {} }), 1, "getDiagnostics of every file")
  vim.diagnostic.reset(ns, buf)

  vim.api.nvim_buf_set_lines(buf, 0, 1, false, { "package b" })
  local eds = ide.ide_tool({ name = "getOpenEditors", arguments = {} }).tabs
  h.eq(#eds, 1, "open editors")
  h.eq({ eds[1].label, eds[1].isActive, eds[1].isDirty, eds[1].languageId }, { "a.go", true, true, "go" }, "the open editor")
  h.eq(ide.ide_tool({ name = "saveDocument", arguments = { filePath = a } }).saved, true, "saveDocument")
  h.eq(h.read(a), "package b\n\nfunc f() { y }\n", "the file after saveDocument")
  h.eq(ide.ide_tool({ name = "saveDocument", arguments = { filePath = dir .. "/b.txt" } }).success, false, "saveDocument of a file not open")

  local r = ide.ide_tool({ name = "openFile", arguments = { filePath = dir .. "/b.txt", startText = "b", endText = "b" } })
  h.eq({ r.success, r.lineCount }, { true, 1 }, "openFile")
  h.eq(vim.api.nvim_buf_get_name(0), dir .. "/b.txt", "the current buffer after openFile")
  vim.cmd("normal! \27")

  vim.cmd("edit " .. vim.fn.fnameescape(a))
  vim.api.nvim_win_set_cursor(0, { 3, 0 })
  vim.cmd("normal! vllll")
  local sel = ide.ide_tool({ name = "getCurrentSelection", arguments = {} })
  h.eq({ sel.success, sel.text, sel.filePath, sel.selection.start, sel.selection["end"] }, { true, "func ", a, { line = 2, character = 0 }, { line = 2, character = 5 } }, "getCurrentSelection")
  vim.cmd("normal! \27")
end)
