-- workspace/applyEdit: an edit that needs confirmation is shown as a diff
-- (a tab with the current and the proposed text side by side, :diffthis)
-- and the user accepts or rejects it; accepted edits are applied with
-- vim.lsp.util.apply_workspace_edit and the touched buffers are written, so
-- the disk matches before the tool returns (the client declares
-- savesAppliedEdits) — but never over a disk that changed since Neovim
-- read the buffer (M.disk_allows_write), which `:write!` would undo.
local review = require("toolhost.review")
local unsaved = require("toolhost.unsaved")

local M = {}

M.ACCEPT = "Accept"
M.REJECT = "Reject"
M.REJECTED_REASON = "the user rejected the edit"

--- Whether a change annotation of the edit asks for confirmation.
function M.needs_confirmation(edit)
  for _, a in pairs((edit and edit.changeAnnotations) or {}) do
    if type(a) == "table" and a.needsConfirmation == true then
      return true
    end
  end
  return false
end

--- URIs whose content the edit changes or creates, in order, each once.
function M.touched_uris(edit)
  local uris, seen = {}, {}
  local function add(u)
    if u and not seen[u] then
      seen[u] = true
      table.insert(uris, u)
    end
  end
  local changes = {}
  for u in pairs(edit.changes or {}) do
    table.insert(changes, u)
  end
  table.sort(changes)
  for _, u in ipairs(changes) do
    add(u)
  end
  for _, c in ipairs(edit.documentChanges or {}) do
    if c.textDocument then
      add(c.textDocument.uri)
    elseif c.kind == "create" then
      add(c.uri)
    elseif c.kind == "rename" then
      add(c.newUri)
    end
  end
  return uris
end

--- The text edits of the edit grouped by URI, in order.
function M.edits_by_uri(edit)
  local order, by = {}, {}
  local function push(uri, edits)
    if not by[uri] then
      by[uri] = {}
      table.insert(order, uri)
    end
    vim.list_extend(by[uri], edits or {})
  end
  for _, c in ipairs(edit.documentChanges or {}) do
    if c.textDocument then
      push(c.textDocument.uri, c.edits)
    elseif c.kind == "create" then
      push(c.uri, {})
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    push(uri, edits)
  end
  return order, by
end

--- Current lines of a document: its buffer when loaded, else the file.
function M.current_lines(uri)
  local fname = vim.uri_to_fname(uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  end
  if vim.fn.filereadable(fname) == 1 then
    return vim.fn.readfile(fname)
  end
  return {}
end

-- An unnamed, unlisted buffer holding `lines`, for computing a result.
local function scratch(lines)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  return buf
end

local function is_empty(lines)
  return #lines == 0 or (#lines == 1 and lines[1] == "")
end

-- An empty buffer is one empty line, so text ending in a newline inserted
-- into it leaves an extra empty last line that Neovim would write as a
-- second newline. Drop it: the buffer's end-of-line supplies that newline.
local function drop_extra_last_line(bufnr)
  local n = vim.api.nvim_buf_line_count(bufnr)
  if n > 1 and vim.api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1] == "" then
    vim.api.nvim_buf_set_lines(bufnr, n - 1, n, false, {})
  end
end

--- The lines a document would have after `edits`, computed in a scratch
--- buffer so the real one is untouched.
function M.proposed_lines(uri, edits, offset_encoding)
  local before = M.current_lines(uri)
  local buf = scratch(before)
  vim.lsp.util.apply_text_edits(edits, buf, offset_encoding)
  if is_empty(before) then
    drop_extra_last_line(buf)
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  vim.api.nvim_buf_delete(buf, { force = true })
  return lines
end

--- Opens one tab per document with the current and proposed text in diff
--- mode, each pane read-only and labelled in its status line. Returns a
--- view (see toolhost.review) with the pane labels.
function M.open_diff(edit, offset_encoding)
  local order, by = M.edits_by_uri(edit)
  local tabs, bufs, wins, labels = {}, {}, {}, {}
  for _, uri in ipairs(order) do
    local fname = vim.uri_to_fname(uri)
    local shown = review.display_path(fname)
    local before = M.current_lines(uri)
    local after = M.proposed_lines(uri, by[uri], offset_encoding)
    vim.cmd("tabnew")
    local empty = vim.api.nvim_get_current_buf()
    table.insert(tabs, vim.api.nvim_get_current_tabpage())
    -- Buffer names without a folder: the tab line shortens every folder
    -- of a name to one letter. The status lines carry the whole path.
    local tail = vim.fn.fnamemodify(fname, ":t")
    local cur = review.scratch(review.NAME_PREFIX .. tail .. " (current)", before)
    vim.api.nvim_win_set_buf(0, cur)
    if vim.api.nvim_buf_get_name(empty) == "" and empty ~= cur then
      pcall(vim.api.nvim_buf_delete, empty, { force = true })
    end
    vim.cmd("diffthis")
    table.insert(bufs, cur)
    table.insert(wins, vim.api.nvim_get_current_win())
    table.insert(labels, "current: " .. shown)
    vim.cmd("rightbelow vsplit")
    local new = review.scratch(review.NAME_PREFIX .. tail .. " (proposed)", after)
    vim.api.nvim_win_set_buf(0, new)
    vim.cmd("diffthis")
    table.insert(bufs, new)
    table.insert(wins, vim.api.nvim_get_current_win())
    table.insert(labels, "proposed: " .. shown)
    for i = #wins - 1, #wins do
      review.label(wins[i], labels[i])
    end
  end
  vim.cmd("redraw")
  local view = review.view(tabs, bufs, wins)
  view.labels = labels
  return view
end

--- The label of the edit for the prompt.
function M.label(params)
  if params.label and params.label ~= "" then
    return params.label
  end
  for _, a in pairs(params.edit.changeAnnotations or {}) do
    if type(a) == "table" and a.label then
      return a.label
    end
  end
  return "Apply the edit"
end

--- Asks the user to accept or reject an edit. Returns true when accepted;
--- else false and the user's words when they rejected it with feedback.
--- The diff stays open until the user answers, from the picker or from
--- the diff itself (a accept, d reject, f reject with feedback, <CR> the
--- picker).
function M.confirm(params, offset_encoding, opts)
  local dialogs = require("toolhost.dialogs")
  local view = M.open_diff(params.edit, offset_encoding)
  local choice, feedback
  while true do
    choice = dialogs.choose(opts, {
      items = { M.ACCEPT, M.REJECT, dialogs.DENY_FEEDBACK },
      prompt = M.label(params) .. "?",
      kind = "toolhost.edit",
      view = view,
      labels = view.labels,
      keys = {
        { lhs = "a", desc = "accept", item = M.ACCEPT },
        { lhs = "d", desc = "reject", item = M.REJECT },
        { lhs = "f", desc = "feedback", item = dialogs.DENY_FEEDBACK },
      },
    })
    if choice ~= dialogs.DENY_FEEDBACK then
      break
    end
    feedback = dialogs.input(opts, { prompt = "Why not, or what should the agent do instead? ", kind = "toolhost.feedback" })
    if feedback and vim.trim(feedback) ~= "" then
      break
    end
    -- No words typed: back to the choice.
  end
  view.close()
  return choice == M.ACCEPT, feedback and vim.trim(feedback) or nil
end

local function buf_version(bufnr)
  local versions = vim.lsp.util.buf_versions
  if type(versions) == "table" then
    return versions[bufnr]
  end
  return nil
end

--- The URI of a loaded buffer whose version differs from the edit's, if any.
function M.stale_document(edit)
  for _, c in ipairs(edit.documentChanges or {}) do
    local version = c.textDocument and c.textDocument.version
    if type(version) == "number" then
      local bufnr = vim.fn.bufnr(vim.uri_to_fname(c.textDocument.uri))
      local current = bufnr ~= -1 and buf_version(bufnr)
      if current and current ~= version then
        return c.textDocument.uri
      end
    end
  end
  return nil
end

--- The file's bytes, or nil when it cannot be read.
local function file_bytes(fname)
  local f = io.open(fname, "rb")
  if not f then
    return nil
  end
  local data = f:read("*a")
  f:close()
  return data
end

--- Whether the edited buffer of `fname` may be written over the disk:
--- the disk still holds what the buffer held before the edit (`before`,
--- its lines; nil for a buffer loaded from the disk for the edit), or the
--- content the server planned the change on (`planned`, the SHA-256 the
--- server sends for a buffer that was behind the disk). Anything else is
--- a change on disk Neovim never loaded, which saving would undo. The
--- second result is true when the disk changed since Neovim read it.
function M.disk_allows_write(fname, before, planned)
  if before == nil or vim.fn.filereadable(fname) == 0 then
    return true
  end
  if vim.deep_equal(vim.fn.readfile(fname), before) then
    return true
  end
  if planned then
    local data = file_bytes(fname)
    -- Allowed, and the buffer was behind the disk.
    return data ~= nil and vim.fn.sha256(data) == planned, true
  end
  return false
end

--- The bytes Neovim would write for the buffer, or nil for a file format
--- this does not reproduce (an encoding other than UTF-8, old Mac lines).
local function buffer_bytes(bufnr)
  local bo = vim.bo[bufnr]
  if (bo.fileencoding ~= "" and bo.fileencoding ~= "utf-8") or bo.fileformat == "mac" then
    return nil
  end
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  if #lines == 1 and lines[1] == "" then
    return ""
  end
  local nl = bo.fileformat == "dos" and "\r\n" or "\n"
  local text = table.concat(lines, nl)
  if bo.eol or bo.fixeol then
    text = text .. nl
  end
  if bo.bomb then
    text = "\239\187\191" .. text
  end
  return text
end

--- Saves a buffer whose file changed since Neovim read it, once the disk
--- was found to hold what the server planned the change on: `:write`
--- would stop at "The file has been changed since reading it" (a question
--- even with `!`), so the bytes are written here and the buffer reloaded
--- from them (the same text; the reload is one undo step).
local function save_over_checked_disk(bufnr, fname)
  local data = buffer_bytes(bufnr)
  if not data then
    return false, "its file format is not one this plugin writes"
  end
  local f, err = io.open(fname, "wb")
  if not f then
    return false, tostring(err)
  end
  f:write(data)
  f:close()
  vim.cmd("silent edit!")
  return true
end

--- Writes each touched document to disk, loading it first when needed.
--- `before` holds, by URI, the lines of buffers that were loaded before
--- the edit, and `planned` the server's hashes of the disk a change was
--- planned on (M.disk_allows_write); a document whose disk changed
--- otherwise is not written, and is named in the second result.
function M.write_documents(uris, before, planned)
  local skipped = {}
  for _, uri in ipairs(uris) do
    local fname = vim.uri_to_fname(uri)
    local allowed, behind = M.disk_allows_write(fname, (before or {})[uri], (planned or {})[uri])
    if allowed then
      local bufnr = vim.fn.bufadd(fname)
      vim.fn.bufload(bufnr)
      local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
        if behind then
          local saved, why = save_over_checked_disk(bufnr, fname)
          if not saved then
            error(why)
          end
        else
          vim.cmd("silent write!")
        end
      end)
      if not ok then
        return false, string.format("could not write %s: %s", fname, tostring(err))
      end
    else
      table.insert(skipped, fname)
    end
  end
  return true, nil, skipped
end

--- Handles workspace/applyEdit for a client.
function M.apply(params, client, opts)
  local edit = params and params.edit
  if type(edit) ~= "table" then
    return { applied = false, failureReason = "the request has no edit" }
  end
  local encoding = (client and client.offset_encoding) or "utf-16"
  local stale = M.stale_document(edit)
  if stale then
    return { applied = false, failureReason = stale .. " changed in the editor since the server read it" }
  end
  -- A buffer with unsaved typing keeps it unsaved: the disk gets its own
  -- content plus the agent's change (worked out before anything is shown).
  local to_disk, disk_at_plan = {}, {}
  local order, by = M.edits_by_uri(edit)
  for _, uri in ipairs(order) do
    local fname = vim.uri_to_fname(uri)
    local bufnr = vim.fn.bufnr(fname)
    if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified and vim.fn.filereadable(fname) == 1 then
      disk_at_plan[uri] = vim.fn.readfile(fname)
      local lines, why = unsaved.disk_lines(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false),
        M.proposed_lines(uri, by[uri], encoding), disk_at_plan[uri])
      if not lines then
        return { applied = false, failureReason = string.format("%s: %s; save or undo them, then try again", fname, why) }
      end
      to_disk[uri] = lines
    end
  end
  if M.needs_confirmation(edit) then
    local accepted, feedback = M.confirm(params, encoding, opts)
    if not accepted then
      -- The user's words reach the model as typed.
      return { applied = false, failureReason = feedback and (M.REJECTED_REASON .. " and said: " .. feedback) or M.REJECTED_REASON }
    end
  end
  local uris = M.touched_uris(edit)
  local was_empty, before = {}, {}
  for _, uri in ipairs(uris) do
    was_empty[uri] = is_empty(M.current_lines(uri))
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
    if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
      before[uri] = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    end
  end
  local ok, err = pcall(vim.lsp.util.apply_workspace_edit, edit, encoding)
  if not ok then
    return { applied = false, failureReason = tostring(err) }
  end
  for _, uri in ipairs(uris) do
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
    if was_empty[uri] and bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
      drop_extra_last_line(bufnr)
    end
  end
  -- The buffers hold the edit now, so the answer is applied even when
  -- writing fails: the server checks the disk of a client that saves
  -- applied edits and writes the file itself. "Not applied" would tell the
  -- model the file is unchanged while the buffer changed.
  local plain = {}
  for _, uri in ipairs(uris) do
    if to_disk[uri] and not vim.deep_equal(vim.fn.readfile(vim.uri_to_fname(uri)), disk_at_plan[uri]) then
      -- The disk changed while the edit was reviewed or applied: what was
      -- worked out for it would undo that change.
      vim.notify(string.format("toolhost: %s changed on disk meanwhile; the edit stays in the buffer, unsaved, and the file was not written over",
        vim.uri_to_fname(uri)), vim.log.levels.WARN)
    elseif to_disk[uri] then
      local ok_write, werr = unsaved.write_beside(vim.fn.bufnr(vim.uri_to_fname(uri)), to_disk[uri])
      if not ok_write then
        vim.notify(string.format("toolhost: the edit was applied, but %s could not be written (%s); the server writes the file",
          vim.uri_to_fname(uri), werr), vim.log.levels.WARN)
      end
    else
      table.insert(plain, uri)
    end
  end
  local planned = (type(params.toolhost) == "table" and type(params.toolhost.disk) == "table") and params.toolhost.disk or {}
  local written, werr, skipped = M.write_documents(plain, before, planned)
  if not written then
    vim.notify("toolhost: the edit was applied, but " .. werr .. "; the server writes the file", vim.log.levels.WARN)
  end
  for _, fname in ipairs(skipped or {}) do
    vim.notify(string.format("toolhost: %s changed on disk since Neovim read it; the edited buffer was not written over it", fname),
      vim.log.levels.WARN)
  end
  return { applied = true }
end

return M
