-- toolhost/reviewChanges: the changes of an agent's turn reviewed as one,
-- in one tab (docs/editing.md, "Reviewing a turn's changes"). The tab has
-- a file list on top (each file's state and hunks) and, below, the
-- selected file's current text (read-only) beside the agent's proposal
-- (editable) in diff mode. The user takes hunks back with Vim's own diff
-- keys (`do` in the proposal, `dp` in the current text), edits the
-- proposal freely, and decides per file (ga / gr, or :w in the proposal)
-- or for all pending files at once (gA / gR). The answer goes when no
-- file is pending; :q answers what was decided, the rest as dismissed.
local review = require("toolhost.review")
local ide = require("toolhost.claudeide")

local M = {}

-- A JSON string field, "" for null or absent.
local function str(v)
  return type(v) == "string" and v or ""
end

--- The open reviews by reviewId: their finish(), to close them when the
--- server stops.
M.open_reviews = {}

--- Handles the server's $/cancelRequest: the calls in that review were
--- all cancelled, so it closes, answered as decided so far. Matched by the
--- reviewId the cancel carries: Neovim's own transport (0.10 and later)
--- does not tell a handler its request's id.
function M.cancel(params)
  local finish = type(params) == "table" and type(params.reviewId) == "string" and M.open_reviews[params.reviewId]
  if finish then
    finish()
  end
end

-- Whether two ranges of the old text meet. A range is (start, count) as
-- vim.diff gives it; a count of 0 is an insertion after line `start`,
-- taken as the point between it and the next line.
local function meet(s1, c1, s2, c2)
  local a1, b1 = c1 == 0 and s1 + 0.5 or s1, c1 == 0 and s1 + 0.5 or s1 + c1 - 1
  local a2, b2 = c2 == 0 and s2 + 0.5 or s2, c2 == 0 and s2 + 0.5 or s2 + c2 - 1
  return a1 <= b2 and a2 <= b1
end

--- How many of the proposal's hunks (old → new) the final text kept in
--- some form (accepted) and how many it took back whole (rejected: the
--- final text does not differ from old there).
function M.hunk_counts(old, new, final)
  local proposed = vim.diff(old, new, { result_type = "indices" })
  local landed = vim.diff(old, final, { result_type = "indices" })
  local rejected = 0
  for _, h in ipairs(proposed) do
    local kept = false
    for _, l in ipairs(landed) do
      if meet(h[1], h[2], l[1], l[2]) then
        kept = true
        break
      end
    end
    if not kept then
      rejected = rejected + 1
    end
  end
  return { accepted = #proposed - rejected, rejected = rejected }
end

-- The text of a proposal buffer, ending in a newline as the proposal did.
local function buffer_text(f)
  local lines = vim.api.nvim_buf_get_lines(f.new, 0, -1, false)
  return table.concat(lines, "\n") .. (f.eol and "\n" or "")
end

--- The answer for the files as decided: accepted ones carry the text the
--- user left when it differs from the proposal, and the hunk counts;
--- pending ones are left out (the server takes them as dismissed).
function M.result(files)
  local out = {}
  for _, f in ipairs(files) do
    if f.state == "accepted" then
      local text = buffer_text(f)
      local r = { callId = f.change.callId, decision = "accept", hunks = M.hunk_counts(str(f.change.oldText), str(f.change.newText), text) }
      if text ~= str(f.change.newText) then
        r.text = text
      end
      table.insert(out, r)
    elseif f.state == "rejected" then
      table.insert(out, { callId = f.change.callId, decision = "reject", message = f.message })
    end
  end
  return { changes = out }
end

--- One line of the file list: the state, the hunks and lines the proposal
--- (as the user left it) changes, and the file.
function M.list_line(f, selected)
  local text = f.new and vim.api.nvim_buf_is_valid(f.new) and buffer_text(f) or str(f.change.newText)
  local hunks = vim.diff(str(f.change.oldText), text, { result_type = "indices" })
  local plus, minus = 0, 0
  for _, h in ipairs(hunks) do
    minus, plus = minus + h[2], plus + h[4]
  end
  local what = type(f.change.oldText) ~= "string" and "new file " or ""
  return string.format("%s %-8s %d hunk%s +%d −%d  %s%s", selected and "▸" or " ", f.state, #hunks, #hunks == 1 and "" or "s",
    plus, minus, what, review.display_path(f.change.path))
end

--- Handles toolhost/reviewChanges: opens the review tab and waits for the
--- user's decisions (in the request handler's coroutine), at most
--- opts.dialog_timeout_ms; then it answers what was decided.
function M.review_changes(params, opts)
  -- A change without a path cannot be shown: left out of the answer, it
  -- is dismissed.
  local changes = {}
  for _, c in ipairs(type(params.changes) == "table" and params.changes or {}) do
    if type(c) == "table" and type(c.path) == "string" and c.path ~= "" then
      table.insert(changes, c)
    end
  end
  if #changes == 0 then
    return { changes = {} }
  end
  local agent = (type(params.agent) == "string" and params.agent ~= "") and params.agent or "the agent"
  local title = (type(params.title) == "string" and params.title ~= "") and params.title
    or string.format("Review %d change%s by %s", #changes, #changes == 1 and "" or "s", agent)
  title = require("toolhost.dialogs").visible(title)

  local prev_tab = vim.api.nvim_get_current_tabpage()
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  local list = review.scratch(review.NAME_PREFIX .. title, {})
  vim.api.nvim_win_set_buf(0, list)
  if empty ~= list and vim.api.nvim_buf_get_name(empty) == "" then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  local list_win = vim.api.nvim_get_current_win()

  local files, bufs = {}, { list }
  for _, c in ipairs(changes) do
    local old = type(c.oldText) == "string" and c.oldText or ""
    local before = ide.split_lines(old)
    local after, eol = ide.split_lines(type(c.newText) == "string" and c.newText or "")
    local ft = ide.filetype_of(c.path)
    local shown = review.display_path(c.path)
    local cur = review.scratch(review.NAME_PREFIX .. shown .. " (current)", type(c.oldText) == "string" and before or {}, ft)
    local new = review.scratch(review.NAME_PREFIX .. shown .. " (proposed by " .. agent .. ")", after, ft, true)
    -- Kept while another file is shown: the user's edits of each proposal
    -- stay until the answer.
    vim.bo[cur].bufhidden, vim.bo[new].bufhidden = "hide", "hide"
    -- :w accepts the file: written by this module, not to a file.
    vim.bo[new].buftype = "acwrite"
    vim.bo[new].modified = false
    table.insert(files, { change = c, cur = cur, new = new, eol = eol, state = "pending", shown = shown })
    table.insert(bufs, cur)
    table.insert(bufs, new)
  end

  vim.cmd("belowright split")
  local cur_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(cur_win, files[1].cur)
  vim.cmd("rightbelow vsplit")
  local new_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(new_win, files[1].new)
  vim.api.nvim_win_set_height(list_win, math.min(#files, 10))
  vim.wo[list_win].winfixheight = true
  vim.wo[list_win].cursorline = true
  local view = review.view({ tab }, bufs, { list_win, cur_win, new_win })

  local selected, finished, done_cb, hint = 1, false, nil, ""
  local augroup = vim.api.nvim_create_augroup("toolhost_review_turn_" .. list, { clear = true })

  local function render()
    if not vim.api.nvim_buf_is_valid(list) then
      return
    end
    local lines = {}
    for i, f in ipairs(files) do
      table.insert(lines, M.list_line(f, i == selected))
    end
    vim.bo[list].modifiable = true
    vim.api.nvim_buf_set_lines(list, 0, -1, false, lines)
    vim.bo[list].modifiable = false
    local f = files[selected]
    local labels = {
      { list_win, title, hint },
      { cur_win, "current: " .. f.shown, "dp: take a hunk back" },
      { new_win, agent .. "'s proposal (editable): " .. f.shown .. " [" .. f.state .. "]", "do: take a hunk back · " .. hint },
    }
    for _, l in ipairs(labels) do
      if vim.api.nvim_win_is_valid(l[1]) then
        review.label(l[1], l[2], l[3])
      end
    end
  end

  local function select(i)
    if i < 1 or i > #files or not vim.api.nvim_win_is_valid(cur_win) or not vim.api.nvim_win_is_valid(new_win) then
      return
    end
    selected = i
    for _, pair in ipairs({ { cur_win, files[i].cur }, { new_win, files[i].new } }) do
      vim.api.nvim_win_set_buf(pair[1], pair[2])
      vim.api.nvim_win_call(pair[1], function()
        vim.cmd("diffthis")
      end)
    end
    if vim.api.nvim_win_is_valid(list_win) then
      vim.api.nvim_win_set_cursor(list_win, { i, 0 })
    end
    render()
  end

  local function close()
    pcall(vim.api.nvim_del_augroup_by_id, augroup)
    M.open_reviews[params.reviewId or list] = nil
    local proposals = {}
    for _, f in ipairs(files) do
      table.insert(proposals, f.new)
    end
    review.close_answered(view, proposals, prev_tab)
  end

  local function finish()
    if finished then
      return
    end
    finished = true
    -- The answer is read before the buffers go.
    local answer = M.result(files)
    vim.schedule(close)
    if done_cb then
      done_cb(answer)
    end
  end
  -- The server cancels the request, naming the reviewId, when every call
  -- in it was cancelled (M.cancel).
  M.open_reviews[params.reviewId or list] = finish

  -- Decides the selected file (or, with all, every pending one); answers
  -- once no file is pending, else shows the next pending one.
  local function decide(state, all, message)
    for i, f in ipairs(files) do
      if (all and f.state == "pending") or (not all and i == selected) then
        f.state, f.message = state, message
        vim.bo[f.new].modified = false
      end
    end
    for k = 0, #files - 1 do
      local i = (selected + k) % #files + 1
      if files[i].state == "pending" then
        select(i)
        return
      end
    end
    finish()
  end

  for _, f in ipairs(files) do
    vim.api.nvim_create_autocmd("BufWriteCmd", { group = augroup, buffer = f.new, callback = function()
      vim.bo[f.new].modified = false
      -- After the write: inside it, Neovim keeps the written buffer in
      -- the window, so the next file could not be shown.
      vim.schedule(function()
        if not finished and files[selected] == f then
          decide("accepted")
        end
      end)
    end })
    vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, { group = augroup, buffer = f.new, callback = render })
  end
  -- Closing a pane (:q) answers what was decided; the rest is dismissed.
  vim.api.nvim_create_autocmd("WinClosed", { group = augroup,
    pattern = { tostring(list_win), tostring(cur_win), tostring(new_win) }, callback = finish })

  local function step(d)
    return function()
      select((selected - 1 + d) % #files + 1)
    end
  end
  hint = review.bind(view, {
    { lhs = "ga", desc = "accept file (:w)", fn = function()
      decide("accepted")
    end },
    { lhs = "gr", desc = "reject file", fn = function()
      decide("rejected")
    end },
    { lhs = "gf", desc = "reject with feedback", fn = function()
      vim.ui.input({ prompt = "Why not, or what should the agent do instead? ", kind = "toolhost.feedback" }, function(text)
        if text and vim.trim(text) ~= "" and not finished then
          decide("rejected", false, text)
        end
      end)
    end },
    { lhs = "gA", desc = "accept all", fn = function()
      decide("accepted", true)
    end },
    { lhs = "gR", desc = "reject all", fn = function()
      decide("rejected", true)
    end },
    { lhs = "]f", desc = "next file", fn = step(1) },
    { lhs = "[f", desc = "previous file", fn = step(-1) },
  })
  vim.api.nvim_buf_set_keymap(list, "n", "<CR>", "", { noremap = true, nowait = true, silent = true, desc = "toolhost: show this file",
    callback = function()
      select(vim.api.nvim_win_get_cursor(list_win)[1])
    end })
  select(1)
  vim.api.nvim_set_current_win(new_win)
  vim.cmd("redraw")
  local answer = require("toolhost.async").await(function(done)
    done_cb = done
  end, opts and opts.dialog_timeout_ms)
  if answer == nil then
    -- Timed out: what was decided stands, the rest is dismissed.
    finished = true
    answer = M.result(files)
    close()
  end
  return answer
end

--- Closes every open review (the server stopped): answered as decided.
function M.on_stop()
  local open = {}
  for _, finish in pairs(M.open_reviews) do
    table.insert(open, finish)
  end
  for _, finish in ipairs(open) do
    finish()
  end
end

return M
