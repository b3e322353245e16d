-- Review views: the tab a change is shown in while its prompt waits. The
-- views are ordinary read-only buffers, so the user scrolls and searches
-- them as usual, and answers from them with buffer-local keys (or
-- :Toolhost allow/deny/...). Each pane's status line says what it shows and
-- which keys answer.
local M = {}

--- How review buffers are named, so a tab line reads "toolhost review:
--- a.txt (proposed)".
M.NAME_PREFIX = "toolhost review: "

local used = {}

--- A scratch buffer named `name` (made unique), read-only unless told.
function M.scratch(name, lines, filetype, modifiable)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local n = (used[name] or 0) + 1
  used[name] = n
  local unique = n == 1 and name or string.format("%s (%d)", name, n)
  if not pcall(vim.api.nvim_buf_set_name, buf, unique) then
    pcall(vim.api.nvim_buf_set_name, buf, unique .. " " .. tostring(buf))
  end
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  if filetype and filetype ~= "" then
    vim.bo[buf].filetype = filetype
  end
  vim.bo[buf].modifiable = modifiable == true
  return buf
end

--- A path as the user would write it: relative to the working directory
--- or the home folder when it is under them.
function M.display_path(fname)
  return vim.fn.fnamemodify(fname, ":~:.")
end

local function escape_statusline(text)
  return (text:gsub("%%", "%%%%"))
end

--- Sets a window's status line to `label` (left) and `keys` (right). A
--- narrow pane cuts the keys' end, never the label: what the pane shows
--- matters most, and the menu (<CR>) lists every answer.
function M.label(win, label, keys)
  keys = keys or ""
  local room = vim.api.nvim_win_get_width(win) - vim.fn.strdisplaywidth(label) - 4
  if vim.fn.strdisplaywidth(keys) > room then
    keys = room > 1 and (vim.fn.strcharpart(keys, 0, room - 1) .. "…") or ""
  end
  local text = "%#StatusLine# " .. escape_statusline(label) .. " %=" .. escape_statusline(keys) .. " "
  vim.api.nvim_win_set_option(win, "statusline", text)
end

--- A view over `tabs` (tab pages) and `bufs`; close() closes its tabs.
function M.view(tabs, bufs, wins)
  return {
    tabs = tabs,
    bufs = bufs,
    wins = wins,
    close = function()
      for i = #tabs, 1, -1 do
        local tab = tabs[i]
        if vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
          vim.cmd("tabclose " .. vim.api.nvim_tabpage_get_number(tab))
        end
      end
      for _, buf in ipairs(bufs) do
        if vim.api.nvim_buf_is_valid(buf) then
          pcall(vim.api.nvim_buf_delete, buf, { force = true })
        end
      end
    end,
  }
end

--- Closes an answered review's view and returns to the tab page the user
--- was on (prev_tab). The proposals (editable buffers) are marked
--- unmodified first: their edits were answered and must not stop the
--- tab closing.
function M.close_answered(view, proposals, prev_tab)
  for _, buf in ipairs(proposals) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.bo[buf].modified = false
    end
  end
  view.close()
  if vim.api.nvim_tabpage_is_valid(prev_tab) then
    pcall(vim.api.nvim_set_current_tabpage, prev_tab)
  end
end

--- Opens a tab showing `text` (a unified diff, say) in one read-only pane
--- labelled `label`. Returns a view.
function M.open_text(name, text, filetype, label)
  vim.cmd("tabnew")
  local tab = vim.api.nvim_get_current_tabpage()
  local empty = vim.api.nvim_get_current_buf()
  local buf = M.scratch(name, vim.split(text, "\n", { plain = true }), filetype)
  vim.api.nvim_win_set_buf(0, buf)
  if empty ~= buf and vim.api.nvim_buf_is_valid(empty) and vim.api.nvim_buf_get_name(empty) == "" then
    pcall(vim.api.nvim_buf_delete, empty, { force = true })
  end
  local win = vim.api.nvim_get_current_win()
  M.label(win, label or name)
  vim.cmd("redraw")
  return M.view({ tab }, { buf }, { win })
end

--- Binds `keys` ({lhs, desc, fn}) in every buffer of the view and writes
--- them into each pane's status line after its label.
function M.bind(view, keys, labels)
  local parts = {}
  for _, k in ipairs(keys) do
    table.insert(parts, k.lhs .. " " .. k.desc)
    for _, buf in ipairs(view.bufs) do
      if vim.api.nvim_buf_is_valid(buf) then
        vim.api.nvim_buf_set_keymap(buf, "n", k.lhs, "", {
          noremap = true,
          nowait = true,
          silent = true,
          desc = "toolhost: " .. k.desc,
          callback = k.fn,
        })
      end
    end
  end
  local hint = table.concat(parts, " · ")
  for i, win in ipairs(view.wins) do
    if vim.api.nvim_win_is_valid(win) then
      M.label(win, (labels and labels[i]) or "", hint)
    end
  end
  return hint
end

return M
