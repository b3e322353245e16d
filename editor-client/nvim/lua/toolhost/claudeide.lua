-- Claude Code's IDE protocol in Neovim. The server (toolhost serve) runs
-- the WebSocket and the lock file; this module
--  * puts CLAUDE_CODE_SSE_PORT and ENABLE_IDE_INTEGRATION in the
--    environment, so `claude` started in a :terminal or job of this
--    Neovim connects by itself;
--  * answers the tools only the editor can (toolhost/ideTool): openDiff as
--    a review tab whose proposed side is editable, close_tab and
--    closeAllDiffTabs (only these reviews), getDiagnostics,
--    getOpenEditors, getCurrentSelection, saveDocument, openFile;
--  * reports the selection (debounced) and :Toolhost mention
--    (toolhost/ideNotify).
local review = require("toolhost.review")

local M = {}

--- Variables the CLI reads to find this editor.
M.PORT_ENV = "CLAUDE_CODE_SSE_PORT"
M.ENABLE_ENV = "ENABLE_IDE_INTEGRATION"

--- The listener's status (toolhost/status → claudeCodeIde), or nil.
M.listener = nil

--- Milliseconds the selection must rest before it is reported.
M.SELECTION_DEBOUNCE_MS = 150

-- The values this module put in the environment, to clear only its own.
local exported = {}

--- Open reviews by tab name: {view, finish = fun(answer)}.
M.reviews = {}

--- The latest selection in a file window (selection_changed params).
M.latest = nil

local group, timer, last_sent

local function client_mod()
  return require("toolhost.client")
end

local function set_env(name, value)
  vim.env[name] = value
  exported[name] = value
end

--- Takes the listener from toolhost/status and exports its port.
function M.on_status(client, status)
  local ide = type(status) == "table" and status.claudeCodeIde or nil
  if type(ide) ~= "table" or not ide.port then
    return -- off (server.claudeCodeIde = false)
  end
  M.listener = ide
  set_env(M.PORT_ENV, tostring(ide.port))
  set_env(M.ENABLE_ENV, "true")
  M.track_selection(client)
end

--- Forgets the listener when the server stops; closes its reviews.
function M.on_stop()
  for name, value in pairs(exported) do
    if vim.env[name] == value then
      vim.env[name] = nil
    end
  end
  exported = {}
  M.listener = nil
  for _, r in pairs(M.reviews) do
    r.finish({ saved = false })
  end
  if group then
    pcall(vim.api.nvim_del_augroup_by_id, group)
    group = nil
  end
  if timer then
    timer:stop()
    timer:close()
    timer = nil
  end
  last_sent = nil
end

-- A window showing a file of the user's (not a terminal, review or help).
local function file_window(win)
  local buf = vim.api.nvim_win_get_buf(win)
  return vim.bo[buf].buftype == "" and vim.api.nvim_buf_get_name(buf) ~= ""
end

--- A text's lines and whether it ends with a newline (the buffer's 'eol').
function M.split_lines(text)
  local lines = vim.split(text, "\n", { plain = true })
  local eol = lines[#lines] == ""
  if eol and #lines > 1 then
    table.remove(lines)
  end
  return lines, eol
end

--- The selection of the current window as selection_changed params
--- (0-based lines and characters), or nil outside a file window.
function M.selection()
  local win = vim.api.nvim_get_current_win()
  if not file_window(win) then
    return nil
  end
  local buf = vim.api.nvim_win_get_buf(win)
  local path = vim.api.nvim_buf_get_name(buf)
  local mode = vim.api.nvim_get_mode().mode
  local cur = vim.api.nvim_win_get_cursor(win)
  local sel = { start = { line = cur[1] - 1, character = cur[2] }, ["end"] = { line = cur[1] - 1, character = cur[2] }, isEmpty = true }
  local text = ""
  if mode == "v" or mode == "V" or mode == "\22" then
    local v = vim.fn.getpos("v")
    local s, e = { v[2], v[3] }, { cur[1], cur[2] + 1 }
    if s[1] > e[1] or (s[1] == e[1] and s[2] > e[2]) then
      s, e = e, s
    end
    local lines = vim.api.nvim_buf_get_lines(buf, s[1] - 1, e[1], false)
    if mode == "V" then
      s[2], e[2] = 1, #(lines[#lines] or "")
    end
    if #lines > 0 then
      lines[#lines] = lines[#lines]:sub(1, e[2])
      lines[1] = lines[1]:sub(s[2])
    end
    text = table.concat(lines, "\n")
    sel = { start = { line = s[1] - 1, character = s[2] - 1 }, ["end"] = { line = e[1] - 1, character = e[2] }, isEmpty = text == "" }
  end
  return { text = text, filePath = path, fileUrl = vim.uri_from_fname(path), selection = sel }
end

local function notify(client, method, params)
  client_mod().notify(client, "toolhost/ideNotify", { method = method, params = params })
end

--- Reports the selection of file windows as selection_changed once it
--- rested SELECTION_DEBOUNCE_MS, and only when it changed.
function M.track_selection(client)
  group = vim.api.nvim_create_augroup("toolhost_claudeide", { clear = true })
  timer = timer or vim.loop.new_timer()
  local function report()
    local sel = M.selection()
    if not sel then
      return -- the terminal (Claude itself) has the focus: keep the last one
    end
    M.latest = sel
    local key = vim.json.encode(sel)
    if key ~= last_sent and not client_mod().is_stopped(client) then
      last_sent = key
      notify(client, "selection_changed", sel)
    end
  end
  vim.api.nvim_create_autocmd({ "CursorMoved", "CursorMovedI", "ModeChanged", "BufEnter" }, {
    group = group,
    callback = function()
      if timer then
        timer:stop()
        timer:start(M.SELECTION_DEBOUNCE_MS, 0, vim.schedule_wrap(report))
      end
    end,
  })
end

--- :Toolhost mention — sends the lines (0-based, inclusive) of the
--- current file as at_mentioned, for Claude to take as context.
function M.mention(line1, line2)
  local client = require("toolhost").client()
  if not client or not M.listener then
    vim.notify("toolhost: Claude Code's IDE listener is not running (server.claudeCodeIde = false, or the server is stopped)", vim.log.levels.WARN)
    return false
  end
  local path = vim.api.nvim_buf_get_name(0)
  if vim.bo.buftype ~= "" or path == "" then
    vim.notify("toolhost: :Toolhost mention works in a file's window", vim.log.levels.WARN)
    return false
  end
  notify(client, "at_mentioned", { filePath = path, lineStart = line1 - 1, lineEnd = line2 - 1 })
  return true
end

-- Reloads the buffer of path once the CLI wrote the accepted text: the
-- folder is watched (the file may be replaced by a rename) for a while.
local function follow_write(path)
  local buf = vim.fn.bufnr(path)
  if buf == -1 or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  local watcher, stop_timer = vim.loop.new_fs_event(), vim.loop.new_timer()
  local function stop()
    if watcher and not watcher:is_closing() then
      watcher:stop()
      watcher:close()
    end
    if stop_timer and not stop_timer:is_closing() then
      stop_timer:stop()
      stop_timer:close()
    end
  end
  local name = vim.fn.fnamemodify(path, ":t")
  watcher:start(vim.fn.fnamemodify(path, ":h"), {}, function(err, fname)
    if err or fname ~= name then
      return
    end
    vim.schedule(function()
      stop()
      if vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].modified then
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent! checktime")
        end)
      end
    end)
  end)
  stop_timer:start(30000, 0, vim.schedule_wrap(stop))
end

-- The file type of path for the review's highlighting: its buffer's, else
-- vim.filetype.match's (its table form is Neovim 0.8's; 0.7 gets none).
function M.filetype_of(path)
  local buf = vim.fn.bufnr(path)
  if buf ~= -1 and vim.bo[buf].filetype ~= "" then
    return vim.bo[buf].filetype
  end
  local ok, ft = pcall(vim.filetype.match, { filename = path })
  return ok and type(ft) == "string" and ft or ""
end

--- openDiff: a tab with the current text (read-only) and the proposal
--- (editable) in diff mode. :w or ga accepts with the proposal as the user
--- left it; :q, gR or closing the tab rejects; `do` on a hunk of the
--- proposal takes the current text back for that hunk.
function M.open_diff(args)
  local path = args.old_file_path or args.new_file_path
  local name = args.tab_name or path
  if M.reviews[name] then
    M.reviews[name].finish({ saved = false })
  end
  local before = require("toolhost.edits").current_lines(vim.uri_from_fname(path))
  local after, eol = M.split_lines(args.new_file_contents or "")
  local ft = M.filetype_of(path)
  local shown = review.display_path(path)
  local prev_tab = vim.api.nvim_get_current_tabpage()
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  local cur = review.scratch(shown .. " (current)", before, ft)
  vim.api.nvim_win_set_buf(0, cur)
  if empty ~= cur and vim.api.nvim_buf_get_name(empty) == "" then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  vim.cmd("diffthis")
  local left = vim.api.nvim_get_current_win()
  vim.cmd("rightbelow vsplit")
  local new = review.scratch(shown .. " (proposed by Claude)", after, ft, true)
  -- :w accepts: the buffer is written by this module, not to a file.
  vim.bo[new].buftype = "acwrite"
  vim.bo[new].modified = false
  vim.api.nvim_win_set_buf(0, new)
  vim.cmd("diffthis")
  local right = vim.api.nvim_get_current_win()
  local view = review.view({ tab }, { cur, new }, { left, right })

  local finished = false
  local finish
  local augroup = vim.api.nvim_create_augroup("toolhost_claude_review_" .. new, { clear = true })
  local function close()
    pcall(vim.api.nvim_del_augroup_by_id, augroup)
    M.reviews[name] = nil
    review.close_answered(view, { new }, prev_tab)
  end
  local done_cb
  finish = function(answer)
    if finished then
      return
    end
    finished = true
    if answer.saved then
      local lines = vim.api.nvim_buf_get_lines(new, 0, -1, false)
      answer.text = table.concat(lines, "\n") .. (eol and "\n" or "")
      follow_write(path)
    end
    vim.schedule(close)
    if done_cb then
      done_cb(answer)
    end
  end
  M.reviews[name] = { view = view, finish = finish }
  vim.api.nvim_create_autocmd("BufWriteCmd", { group = augroup, buffer = new, callback = function()
    finish({ saved = true })
  end })
  -- Closing either pane (:q), or wiping the buffers, rejects.
  vim.api.nvim_create_autocmd("WinClosed", { group = augroup, pattern = { tostring(left), tostring(right) }, callback = function()
    finish({ saved = false })
  end })
  vim.api.nvim_create_autocmd("BufWipeout", { group = augroup, buffer = new, callback = function()
    finish({ saved = false })
  end })
  review.bind(view, {
    { lhs = "ga", desc = "accept (:w)", fn = function()
      finish({ saved = true })
    end },
    { lhs = "gR", desc = "reject (:q)", fn = function()
      finish({ saved = false })
    end },
  }, { "current: " .. shown, "Claude's proposal (editable; do: keep a hunk as it is): " .. shown })
  vim.cmd("redraw")
  return require("toolhost.async").await(function(done)
    done_cb = done
  end)
end

local function close_review(name)
  local r = M.reviews[name]
  if r then
    r.finish({ saved = false })
    return true
  end
  return false
end

local severities = { "Error", "Warning", "Information", "Hint" }

local function buffer_diagnostics(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, {
      message = d.message,
      severity = severities[d.severity] or "Error",
      source = d.source,
      code = d.code,
      range = { start = { line = d.lnum, character = d.col }, ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col } },
    })
  end
  return out
end

--- getDiagnostics: Neovim's diagnostics (its language servers') of one
--- file URI, or of every buffer that has some.
function M.diagnostics(uri)
  local bufs = {}
  if type(uri) == "string" and uri ~= "" then
    local b = vim.fn.bufnr(vim.uri_to_fname(uri))
    if b ~= -1 then
      table.insert(bufs, b)
    end
  else
    local seen = {}
    for _, d in ipairs(vim.diagnostic.get(nil)) do
      if not seen[d.bufnr] then
        seen[d.bufnr] = true
        table.insert(bufs, d.bufnr)
      end
    end
  end
  local out = {}
  for _, b in ipairs(bufs) do
    local name = vim.api.nvim_buf_get_name(b)
    if name ~= "" then
      table.insert(out, { uri = vim.uri_from_fname(name), diagnostics = buffer_diagnostics(b) })
    end
  end
  return out
end

local function active_file_buffer()
  local win = vim.api.nvim_get_current_win()
  if file_window(win) then
    return vim.api.nvim_win_get_buf(win)
  end
  if M.latest then
    local b = vim.fn.bufnr(M.latest.filePath)
    return b ~= -1 and b or nil
  end
  return nil
end

function M.open_editors()
  local active = active_file_buffer()
  local tabs = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buflisted and vim.bo[b].buftype == "" and name ~= "" then
      table.insert(tabs, { uri = vim.uri_from_fname(name), isActive = b == active, label = vim.fn.fnamemodify(name, ":t"),
        languageId = vim.bo[b].filetype, isDirty = vim.bo[b].modified })
    end
  end
  return { tabs = tabs }
end

function M.save_document(path)
  local b = vim.fn.bufnr(path)
  if b == -1 or not vim.api.nvim_buf_is_loaded(b) then
    return { success = false, message = "Document not open: " .. path }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, b, function()
    vim.cmd("silent write")
  end)
  if not ok then
    return { success = false, filePath = path, saved = false, message = tostring(err) }
  end
  return { success = true, filePath = path, saved = true, message = "Document saved successfully" }
end

-- A window to show a file in: the current one when it shows a file, else
-- the first that does, else a new split (never the terminal Claude runs in).
local function target_window()
  if file_window(vim.api.nvim_get_current_win()) then
    return vim.api.nvim_get_current_win()
  end
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if file_window(w) then
      return w
    end
  end
  vim.cmd("aboveleft new")
  return vim.api.nvim_get_current_win()
end

function M.open_file(args)
  local path = args.filePath
  local front = args.makeFrontmost ~= false
  local prev = vim.api.nvim_get_current_win()
  local win = target_window()
  vim.api.nvim_set_current_win(win)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if type(args.startText) == "string" and args.startText ~= "" then
    local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
    for i, l in ipairs(lines) do
      local s = l:find(args.startText, 1, true)
      if s then
        vim.api.nvim_win_set_cursor(win, { i, s - 1 })
        local last_line, last_col = i, s + #args.startText - 1
        if type(args.endText) == "string" and args.endText ~= "" then
          for j = i, #lines do
            local e = lines[j]:find(args.endText, j == i and s or 1, true)
            if e then
              last_line, last_col = j, e + #args.endText - 1
              break
            end
          end
        end
        if args.selectToEndOfLine then
          last_col = #lines[last_line]
        end
        vim.cmd("normal! v")
        vim.api.nvim_win_set_cursor(win, { last_line, math.max(last_col - 1, 0) })
        break
      end
    end
  end
  if not front and vim.api.nvim_win_is_valid(prev) then
    vim.api.nvim_set_current_win(prev)
  end
  return { success = true, filePath = path, languageId = vim.bo[buf].filetype, lineCount = vim.api.nvim_buf_line_count(buf) }
end

--- Answers toolhost/ideTool.
function M.ide_tool(params)
  local name, args = params.name, params.arguments or {}
  if name == "openDiff" then
    return M.open_diff(args)
  elseif name == "close_tab" then
    close_review(args.tab_name)
    return vim.empty_dict()
  elseif name == "closeAllDiffTabs" then
    local n = 0
    for tab_name in pairs(vim.deepcopy(M.reviews)) do
      if close_review(tab_name) then
        n = n + 1
      end
    end
    return { closed = n }
  elseif name == "getDiagnostics" then
    return M.diagnostics(args.uri)
  elseif name == "getOpenEditors" then
    return M.open_editors()
  elseif name == "getCurrentSelection" then
    local sel = M.selection() or M.latest
    if not sel then
      return { success = false, message = "No active editor found" }
    end
    return vim.tbl_extend("force", { success = true }, sel)
  elseif name == "saveDocument" then
    return M.save_document(args.filePath)
  elseif name == "openFile" then
    return M.open_file(args)
  end
  return nil, { code = -32601, message = "toolhost.nvim does not answer the IDE tool " .. tostring(name) }
end

return M
