-- The running calls as the user sees them: a small float in the bottom
-- right corner with each call's title and the tail of its output, line by
-- line, and a key that cancels them (options.cancel_key, <C-c> unless the
-- user mapped that key already) while any call runs.
local M = {}

-- The float's window and buffer while a call shows progress.
local win, buf
-- Whether the cancel key is our mapping now.
local armed = false

--- The float's lines for the calls in `progress` (token -> {title,
--- message}), in the order they began, and the hint on how to cancel.
function M.lines(progress, key)
  local tokens = vim.tbl_keys(progress)
  table.sort(tokens, function(a, b)
    return progress[a].seq < progress[b].seq
  end)
  local lines = {}
  for _, token in ipairs(tokens) do
    local p = progress[token]
    table.insert(lines, "toolhost: " .. p.title)
    for _, line in ipairs(vim.split(p.message or "", "\n", { plain = true })) do
      if line ~= "" then
        table.insert(lines, "  " .. line)
      end
    end
  end
  table.insert(lines, (key and (key .. " or ") or "") .. ":Toolhost cancel stops " .. (#tokens > 1 and "them" or "it"))
  return lines
end

local function close()
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_close(win, true)
  end
  win = nil
end

--- Shows (or closes, when nothing runs) the progress float.
function M.render(state, opts)
  if not opts.progress or vim.tbl_isempty(state.progress) then
    close()
    return
  end
  local lines = M.lines(state.progress, armed and opts.cancel_key or nil)
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.bo[buf].bufhidden = "hide"
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local config = {
    relative = "editor",
    anchor = "SE",
    -- Above the status line and the command line.
    row = math.max(vim.o.lines - vim.o.cmdheight - 1, 1),
    col = vim.o.columns,
    width = math.max(math.min(width, vim.o.columns - 4), 10),
    height = math.min(#lines, math.max(vim.o.lines - 4, 1)),
    style = "minimal",
    border = "single",
    focusable = false,
    -- Below the dialogs (floats default to 50), which must stay in view.
    zindex = 40,
  }
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_set_config(win, config)
  else
    config.noautocmd = true
    win = vim.api.nvim_open_win(buf, false, config)
  end
end

--- The window of the progress float, or nil.
function M.window()
  return win and vim.api.nvim_win_is_valid(win) and win or nil
end

--- Maps the cancel key while a call runs (the server's progress or a call
--- made here waits), and removes the mapping when none does. A key the
--- user mapped already is left alone.
function M.update_key(state, opts)
  local key = opts.cancel_key
  local busy = not vim.tbl_isempty(state.progress) or not vim.tbl_isempty(state.running)
  if not key or key == "" then
    return
  end
  if busy and not armed and vim.fn.maparg(key, "n") == "" then
    vim.keymap.set("n", key, function()
      require("toolhost.commands").run({ "cancel" }, "cancel")
    end, { desc = "toolhost: cancel the running tool calls" })
    armed = true
  elseif not busy and armed then
    pcall(vim.keymap.del, "n", key)
    armed = false
  end
end

-- Begin order of the calls, so the float lists them as they came.
local seq = 0

--- $/progress: begin, report and end of the server's work-done progress.
--- Returns the text to echo for an end (how the call ended), else nil.
function M.on_progress(state, opts, token, value)
  local ended
  if value.kind == "begin" then
    seq = seq + 1
    state.progress[token] = { title = value.title or "", message = value.message, seq = seq }
  elseif value.kind == "report" and state.progress[token] then
    state.progress[token].message = value.message
  elseif value.kind == "end" then
    local p = state.progress[token]
    state.progress[token] = nil
    ended = "toolhost: " .. (p and p.title or "") .. (value.message and (" — " .. value.message) or " — done")
  end
  M.update_key(state, opts)
  M.render(state, opts)
  return ended
end

--- Closes the float and drops the key (the server stopped).
function M.reset(state, opts)
  state.progress = {}
  M.update_key(state, opts)
  close()
end

return M
