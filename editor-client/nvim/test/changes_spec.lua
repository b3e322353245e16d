-- Change sets against the real server: an agent's three-file turn, a file
-- the user changes after it, `:Toolhost changes` listing the turn, and
-- `:Toolhost rewind` restoring the other two (deleting the file the turn
-- created) as one edit that `u` takes back, keeping the user's file.
local h = require("harness")
local toolhost = require("toolhost")

local function ok_calls(params)
  local result, err = toolhost.request_wait("toolhost/callTools", params, 30000)
  h.truthy(result, vim.inspect(err))
  for _, r in ipairs(result.results) do
    h.eq(r.isError, false, vim.inspect(r))
  end
end

h.test("changes: :Toolhost rewind restores an agent's turn, keeps the file changed since, and u brings it back", function()
  vim.env.TOOLHOST_STATE_DIR = h.workspace({})
  local dir = h.start_server({ ["a.txt"] = "A1\n", ["b.txt"] = "B1\n" }, { permission_mode = "acceptEdits" })
  h.script_ui({ ["toolhost.edit"] = h.pick("Accept") })
  ok_calls({ calls = {
    { callId = "r1", name = "Read", input = { file_path = dir .. "/a.txt" } },
    { callId = "r2", name = "Read", input = { file_path = dir .. "/b.txt" } },
  } })
  ok_calls({ turnId = "turn-1", agent = "Test Agent", calls = {
    { callId = "w1", name = "Write", input = { file_path = dir .. "/a.txt", content = "A2\n" } },
    { callId = "w2", name = "Write", input = { file_path = dir .. "/b.txt", content = "B2\n" } },
    { callId = "w3", name = "Write", input = { file_path = dir .. "/c.txt", content = "C\n" } },
  } })
  h.eq(h.read(dir .. "/c.txt"), "C\n", "the turn's new file")
  h.close_undo_blocks()

  -- The user changes b.txt after the turn.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/b.txt"))
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { "B2 and mine" })
  vim.cmd("write")

  pcall(vim.api.nvim_buf_delete, require("toolhost.commands").view("changes") or -1, { force = true })
  vim.cmd("Toolhost changes")
  h.wait_for(function()
    local b = h.view("changes")
    return b ~= -1 and #vim.api.nvim_buf_get_lines(b, 0, -1, false) > 2
  end, "the changes list")
  local list = table.concat(vim.api.nvim_buf_get_lines(h.view("changes"), 0, -1, false), "\n")
  h.match(list, "Test Agent · .* · 3 file%(s%) %[turn%-1%]", "the turn")
  h.match(list, "changed b.txt %(changed since%)", "b.txt changed since")
  h.match(list, "created c.txt", "c.txt created")

  local message = h.rewind()
  h.match(message.msg, "Rewound 2 files%. Kept b%.txt: you changed b%.txt after the turn", "the message")
  h.eq(message.level, vim.log.levels.WARN, "a kept file warns")
  h.eq(h.read(dir .. "/a.txt"), "A1\n", "a.txt restored")
  h.eq(h.read(dir .. "/b.txt"), "B2 and mine\n", "b.txt kept")
  h.eq(h.read(dir .. "/c.txt"), nil, "c.txt, created by the turn, deleted")

  -- One edit: u in a.txt's buffer brings the agent's text back.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/a.txt"))
  h.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "A1" }, "a.txt's buffer after the rewind")
  vim.cmd("normal! u")
  h.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "A2" }, "a.txt's buffer after u")
  vim.cmd("silent! %bwipeout!")
  toolhost.stop(3000)
  vim.env.TOOLHOST_STATE_DIR = nil
end)
