-- The agent's work as change sets: `:Toolhost changes` lists the server's
-- change journal (turns, newest first, and their files), `:Toolhost rewind`
-- rewinds the last turn and `:Toolhost rewind file` the current buffer's
-- file in it. In the list, `r` on a turn or a file rewinds it. The server
-- applies a rewind as one workspace/applyEdit, so `u` in a buffer brings
-- the agent's change back; a file changed after the turn is kept, and the
-- message says so.
local M = {}

local function err_text(err)
  return require("toolhost.commands").err_text(err)
end

local STATE = { asLeft = "", rewound = " (rewound)", changedSince = " (changed since)" }

--- The lines of the list and, by line number, the turn or file each names.
function M.lines(turns)
  local lines, targets = {}, {}
  if #turns == 0 then
    return { "No changes yet: each turn of an agent that changes files is listed here." }, targets
  end
  table.insert(lines, "Changes (r: rewind the turn or file under the cursor)")
  for _, t in ipairs(turns) do
    table.insert(lines, string.format("%s · %s · %d file(s) [%s]", t.agent, (t.started or ""):sub(1, 16):gsub("T", " "), #t.files, t.id))
    targets[#lines] = { turn = t.id }
    for _, f in ipairs(t.files) do
      local what = f.created and "created" or "changed"
      local state = STATE[f.state or ""] or ""
      if not f.rewindable then
        state = state .. " (too large to rewind)"
      end
      table.insert(lines, string.format("  %s %s%s", what, vim.fn.fnamemodify(f.path, ":~:."), state))
      targets[#lines] = { turn = t.id, path = f.path }
    end
  end
  return lines, targets
end

--- Rewinds a turn (nil: the last) or one file of it, and reports.
function M.rewind(params, done)
  require("toolhost").request("toolhost/rewind", params or vim.empty_dict(), function(err, result)
    if err then
      vim.notify("toolhost: " .. err_text(err), vim.log.levels.ERROR)
    else
      local level = (#(result.kept or {}) > 0) and vim.log.levels.WARN or vim.log.levels.INFO
      vim.notify("toolhost: " .. result.message, level)
    end
    if done then
      done(err, result)
    end
  end)
end

--- `:Toolhost rewind [file]`.
function M.rewind_command(args)
  if args[1] == "file" then
    local path = vim.api.nvim_buf_get_name(0)
    if path == "" then
      vim.notify("toolhost: this buffer has no file to rewind; open the file, or use :Toolhost changes", vim.log.levels.ERROR)
      return
    end
    M.rewind({ path = vim.fn.fnamemodify(path, ":p") })
    return
  end
  if args[1] and args[1] ~= "" then
    vim.notify("usage: :Toolhost rewind [file]", vim.log.levels.ERROR)
    return
  end
  M.rewind(nil)
end

--- `:Toolhost changes`: the list in a scratch split.
function M.show()
  require("toolhost").request("toolhost/changes", { limit = 50 }, function(err, result)
    if err then
      vim.notify("toolhost: " .. err_text(err), vim.log.levels.ERROR)
      return
    end
    local lines, targets = M.lines(result.turns or {})
    local bufnr = require("toolhost.commands").show("changes", lines)
    vim.keymap.set("n", "r", function()
      local target = targets[vim.api.nvim_win_get_cursor(0)[1]]
      if not target then
        return
      end
      M.rewind(target, function()
        M.show()
      end)
    end, { buffer = bufnr, desc = "toolhost: rewind the turn or file under the cursor" })
  end)
end

return M
