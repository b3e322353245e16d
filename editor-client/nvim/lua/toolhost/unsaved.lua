-- Keeping the user's unsaved typing theirs when the agent edits a buffer
-- that has unsaved changes: the buffer gets the agent's change on top of
-- the typing and stays unsaved; the file on disk gets its own content plus
-- the agent's change, and nothing of the typing.
--
-- The typing is the region where the buffer differs from the disk (the
-- lines between their common first and last lines). The agent's change
-- must lie outside it; then the new disk content is the agent-edited
-- lines around the disk's own middle. An edit that touches the typed
-- region is refused with a reason, since no content can honour both.
local M = {}

--- The number of leading and trailing lines a and b share (not
--- overlapping).
local function common(a, b)
  local n = math.min(#a, #b)
  local p = 0
  while p < n and a[p + 1] == b[p + 1] do
    p = p + 1
  end
  local s = 0
  while s < n - p and a[#a - s] == b[#b - s] do
    s = s + 1
  end
  return p, s
end

--- The lines to write to disk: `disk` with the change that turned `buffer`
--- into `proposed`. Returns the lines, or nil and a reason when the change
--- touches lines the user changed without saving.
function M.disk_lines(buffer, proposed, disk)
  local p, s = common(buffer, disk)
  local mid_first, mid_last = p + 1, #buffer - s -- the typed region of buffer (may be empty)
  local shift = 0 -- lines the agent added before the typed region
  local hunks = vim.diff(table.concat(buffer, "\n") .. "\n", table.concat(proposed, "\n") .. "\n", { result_type = "indices" })
  for _, hk in ipairs(hunks) do
    local start_a, count_a, count_b = hk[1], hk[2], hk[4]
    local first, last = start_a, start_a + count_a - 1
    if count_a == 0 then
      -- An insertion after line start_a.
      if start_a >= mid_first and start_a < mid_last then
        return nil, "the agent's change falls inside lines you changed without saving"
      end
      if start_a < mid_first then
        shift = shift + count_b
      end
    else
      if not (last < mid_first or first > mid_last) and mid_first <= mid_last then
        return nil, "the agent's change overlaps lines you changed without saving"
      end
      if last < mid_first then
        shift = shift + count_b - count_a
      end
    end
  end
  local out = {}
  for i = 1, p + shift do
    table.insert(out, proposed[i])
  end
  for i = p + 1, #disk - s do
    table.insert(out, disk[i])
  end
  local mid_len = math.max(mid_last - mid_first + 1, 0)
  for i = p + shift + mid_len + 1, #proposed do
    table.insert(out, proposed[i])
  end
  return out
end

--- Writes `lines` to the buffer's file while the buffer keeps its own
--- (unsaved) lines: the differing region is swapped in for the write and
--- back, joined into one undo step, so no "file changed" warning follows
--- and undo does not show the disk's text.
function M.write_beside(bufnr, lines)
  local keep = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local p, s = common(keep, lines)
  local keep_mid = vim.list_slice(keep, p + 1, #keep - s)
  local disk_mid = vim.list_slice(lines, p + 1, #lines - s)
  local views = {}
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    views[win] = vim.api.nvim_win_call(win, vim.fn.winsaveview)
  end
  local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.api.nvim_buf_set_lines(bufnr, p, #keep - s, false, disk_mid)
    vim.cmd("silent noautocmd write!")
    vim.cmd("undojoin")
    vim.api.nvim_buf_set_lines(bufnr, p, p + #disk_mid, false, keep_mid)
  end)
  for win, view in pairs(views) do
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_call(win, function()
        vim.fn.winrestview(view)
      end)
    end
  end
  if not ok then
    -- Never leave the disk's text in the buffer.
    if not vim.deep_equal(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), keep) then
      vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, keep)
    end
    return false, tostring(err)
  end
  return true
end

return M
