-- A turn's changes reviewed as one (toolhost/reviewChanges): the review
-- tab's file list, `do` taking a hunk back, an edited proposal, per-file
-- and all-at-once decisions, and the answer the server gets.
local h = require("harness")
local reviewturn = require("toolhost.reviewturn")

-- Starts review_changes(params) as the server's request would (in a
-- coroutine); returns a function that waits for and returns its answer.
local function start_review(params)
  local done, answer = false, nil
  local co = coroutine.create(function()
    answer = reviewturn.review_changes(params)
    done = true
  end)
  local ok, err = coroutine.resume(co)
  h.truthy(ok, err)
  return function()
    h.wait_for(function()
      return done
    end, "the review's answer")
    return answer
  end
end

local function by_call(answer)
  local out = {}
  for _, c in ipairs(answer.changes) do
    out[c.callId] = c
  end
  return out
end

local function list_lines()
  return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(vim.fn.win_getid(1)), 0, -1, false)
end

h.test("review turn: hunk counts say which of the proposal's hunks were taken back", function()
  local old = "1\n2\n3\n4\n5\n6\n7\n8\n"
  local new = "one\n2\n3\n4\n5\n6\n7\neight\nnine\n"
  local cases = {
    { "all kept", new, 2, 0 },
    { "first taken back", "1\n2\n3\n4\n5\n6\n7\neight\nnine\n", 1, 1 },
    { "both taken back", old, 0, 2 },
    { "first edited, still accepted", "uno\n2\n3\n4\n5\n6\n7\neight\nnine\n", 2, 0 },
  }
  for _, c in ipairs(cases) do
    local got = reviewturn.hunk_counts(old, new, c[2])
    h.eq({ got.accepted, got.rejected }, { c[3], c[4] }, c[1])
  end
end)

h.test("review turn: do rejects a hunk, an edited proposal is answered as text, :w and ga accept, gR rejects the rest", function()
  local dir = h.workspace({})
  local wait = start_review({
    reviewId = "r1", agent = "Test Agent", turnId = "turn-9",
    changes = {
      { callId = "w1", toolName = "Write", path = dir .. "/a.txt", label = "Write a.txt", oldText = "one\ntwo\nthree\nfour\nfive\n", newText = "ONE\ntwo\nthree\nfour\nFIVE\n" },
      { callId = "w2", toolName = "Write", path = dir .. "/b.txt", label = "Write b.txt", oldText = "b1\nb2\n", newText = "b1\nB2\nb3\n" },
      { callId = "w3", toolName = "Write", path = dir .. "/c.txt", label = "Write c.txt", oldText = vim.NIL, newText = "c\n" },
      { callId = "w4", toolName = "Write", path = dir .. "/d.txt", label = "Write d.txt", oldText = "d\n", newText = "D\n" },
    },
  })
  -- One tab: the list and the first file's two panes, the agent named.
  h.eq(#vim.api.nvim_tabpage_list_wins(0), 3, "three windows in the review tab")
  h.match(vim.api.nvim_buf_get_name(0), "toolhost review: .*a%.txt %(proposed by Test Agent%)$", "the proposal pane's name")
  local list = list_lines()
  h.eq(#list, 4, "one list line per file")
  h.match(list[1], "^▸ pending +2 hunks %+2 −2 +.*a%.txt$", "a.txt's line")
  h.match(list[3], "pending +1 hunk %+1 −0 +new file .*c%.txt$", "c.txt's line")
  h.eq(vim.wo.diff, true, "the proposal is in diff mode")

  -- a.txt: take the first hunk back with `do`, accept with ga.
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("normal! do")
  h.eq(vim.api.nvim_buf_get_lines(0, 0, -1, false), { "one", "two", "three", "four", "FIVE" }, "do took the hunk back")
  vim.cmd("normal ga")
  h.match(list_lines()[1], "accepted +1 hunk", "a.txt accepted with one hunk")
  h.match(vim.api.nvim_buf_get_name(0), "b%.txt %(proposed by Test Agent%)$", "the next pending file is shown")

  -- b.txt: edit one line of the proposal, accept with :w.
  vim.api.nvim_buf_set_lines(0, 2, 3, false, { "b3 by me" })
  vim.cmd("write")
  -- c.txt: accept as proposed; then reject all that is left (d.txt).
  h.wait_for(function()
    return vim.api.nvim_buf_get_name(0):match("c%.txt %(proposed by Test Agent%)$")
  end, "c.txt to be shown after :w")
  vim.cmd("normal ga")
  vim.cmd("normal gR")
  local answer = by_call(wait())
  h.eq(answer.w1, { callId = "w1", decision = "accept", text = "one\ntwo\nthree\nfour\nFIVE\n", hunks = { accepted = 1, rejected = 1 } }, "a.txt")
  h.eq(answer.w2, { callId = "w2", decision = "accept", text = "b1\nB2\nb3 by me\n", hunks = { accepted = 1, rejected = 0 } }, "b.txt")
  h.eq(answer.w3, { callId = "w3", decision = "accept", hunks = { accepted = 1, rejected = 0 } }, "c.txt as proposed: no text")
  h.eq(answer.w4, { callId = "w4", decision = "reject" }, "d.txt rejected by gR")
  h.wait_for(function()
    return #vim.api.nvim_list_tabpages() == 1
  end, "the review tab to close")
end)

h.test("review turn: gf rejects with the user's words; :q dismisses the files not decided yet (and one without a path)", function()
  local dir = h.workspace({})
  local wait = start_review({
    reviewId = "r2", agent = "Test Agent",
    changes = {
      { callId = "x1", toolName = "Edit", path = dir .. "/x.txt", label = "Edit x.txt", oldText = "x\n", newText = "X\n" },
      { callId = "x2", toolName = "Edit", path = dir .. "/y.txt", label = "Edit y.txt", oldText = "y\n", newText = "Y\n" },
      { callId = "x3", toolName = "Edit", label = "a change without a path", newText = "?" },
    },
  })
  h.eq(#list_lines(), 2, "the change without a path is not shown")
  h.script_ui({ ["toolhost.feedback.input"] = function()
    return "keep the lower case"
  end })
  vim.cmd("normal gf")
  h.wait_for(function()
    return vim.api.nvim_buf_get_name(0):match("y%.txt %(proposed by") ~= nil
  end, "y.txt after x.txt's feedback")
  vim.cmd("quit")
  h.eq(wait(), { changes = { { callId = "x1", decision = "reject", message = "keep the lower case" } } }, "x.txt rejected with the words, y.txt left out (dismissed)")
  h.wait_for(function()
    return #vim.api.nvim_list_tabpages() == 1
  end, "the review tab to close")
end)

if (os.getenv("TOOLHOST_BIN") or "") == "" then
  return
end

local toolhost = require("toolhost")

local function result_text(r)
  local parts = {}
  for _, c in ipairs(r.content or {}) do
    table.insert(parts, c.text or "")
  end
  return table.concat(parts, "\n")
end

h.test("review turn (server): three Writes arrive as one review; one hunk rejected and one line edited land exactly; :Toolhost rewind restores all three; a cancelled call closes its review", function()
  vim.env.TOOLHOST_STATE_DIR = h.workspace({})
  local dir = h.start_server({ ["a.txt"] = "one\ntwo\nthree\nfour\nfive\n", ["b.txt"] = "b1\nb2\n", ["c.txt"] = "c1\n" })
  local reads, rerr = toolhost.request_wait("toolhost/callTools", { calls = {
    { callId = "r1", name = "Read", input = { file_path = dir .. "/a.txt" } },
    { callId = "r2", name = "Read", input = { file_path = dir .. "/b.txt" } },
    { callId = "r3", name = "Read", input = { file_path = dir .. "/c.txt" } },
  } }, 30000)
  h.truthy(reads, vim.inspect(rerr))
  local done, err, result = false, nil, nil
  toolhost.request("toolhost/callTools", { turnId = "turn-r", agent = "Test Agent", calls = {
    { callId = "w1", name = "Write", input = { file_path = dir .. "/a.txt", content = "ONE\ntwo\nthree\nfour\nFIVE\n" } },
    { callId = "w2", name = "Write", input = { file_path = dir .. "/b.txt", content = "b1\nB2\nb3\n" } },
    { callId = "w3", name = "Write", input = { file_path = dir .. "/c.txt", content = "C1\n" } },
  } }, function(e, r)
    done, err, result = true, e, r
  end)
  h.wait_for(function()
    return vim.api.nvim_buf_get_name(0):match("a%.txt %(proposed by Test Agent%)$") ~= nil
  end, "the review tab")
  h.eq(#list_lines(), 3, "the three files in one review")
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd("normal! do")
  vim.cmd("normal ga")
  h.match(vim.api.nvim_buf_get_name(0), "b%.txt %(proposed by Test Agent%)$", "b.txt next")
  vim.api.nvim_buf_set_lines(0, 2, 3, false, { "b3 by me" })
  vim.cmd("normal ga")
  vim.cmd("normal ga")
  h.wait_for(function()
    return done
  end, "the Writes to return", 30000)
  h.truthy(err == nil, vim.inspect(err))
  h.eq(h.read(dir .. "/a.txt"), "one\ntwo\nthree\nfour\nFIVE\n", "a.txt: the first hunk rejected")
  h.eq(h.read(dir .. "/b.txt"), "b1\nB2\nb3 by me\n", "b.txt: the edited line")
  h.eq(h.read(dir .. "/c.txt"), "C1\n", "c.txt as proposed")
  local a, b, c = result.results[1], result.results[2], result.results[3]
  h.eq(a.isError, false, result_text(a))
  h.match(result_text(a), "accepted your change with modifications: 1 of 2 hunks rejected", "a.txt's result")
  h.match(result_text(b), "accepted your change with modifications; the file now differs.*%+b3 by me", "b.txt's result")
  h.eq(c.isError, false, result_text(c))
  h.truthy(not result_text(c):find("modifications", 1, true), "c.txt's result: no modification")

  h.close_undo_blocks()
  h.match(h.rewind().msg, "Rewound 3 files", "the message")
  h.eq(h.read(dir .. "/a.txt"), "one\ntwo\nthree\nfour\nfive\n", "a.txt rewound")
  h.eq(h.read(dir .. "/b.txt"), "b1\nb2\n", "b.txt rewound")
  h.eq(h.read(dir .. "/c.txt"), "c1\n", "c.txt rewound")

  -- Bash's change of a file open in Neovim is in the journal: its turn's
  -- rewind restores the file.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/a.txt"))
  h.script_ui({ ["toolhost.permission"] = h.pick(require("toolhost.dialogs").ALLOW) })
  local bash, berr = toolhost.request_wait("toolhost/callTools", { turnId = "turn-bash", calls = {
    { callId = "b1", name = "Bash", input = { command = "printf 'by bash\\n' > a.txt" } },
  } }, 30000)
  h.truthy(bash and not bash.results[1].isError, vim.inspect(berr or bash))
  h.eq(h.read(dir .. "/a.txt"), "by bash\n", "Bash rewrote a.txt")
  h.match(h.rewind().msg, "^toolhost: Rewound a%.txt%.$", "the Bash turn's rewind: no warning")
  h.eq(h.read(dir .. "/a.txt"), "one\ntwo\nthree\nfour\nfive\n", "a.txt as before the command")

  -- A review whose call is cancelled closes: the server cancels its request.
  h.call("Read", { file_path = dir .. "/c.txt" })
  local cancelled = false
  toolhost.call_tool("Write", { file_path = dir .. "/c.txt", content = "C2\n" }, function()
    cancelled = true
  end)
  h.wait_for(function()
    return vim.api.nvim_buf_get_name(0):match("c%.txt %(proposed by") ~= nil
  end, "the lone Write's review")
  toolhost.cancel()
  h.wait_for(function()
    return cancelled and #vim.api.nvim_list_tabpages() == 1
  end, "the review to close when its call is cancelled")
  h.eq(h.read(dir .. "/c.txt"), "c1\n", "nothing written")
  vim.cmd("silent! %bwipeout!")
  toolhost.stop(3000)
  vim.env.TOOLHOST_STATE_DIR = nil
end)
