-- A second Neovim, with its own terminal UI, run in a :terminal of the test
-- Neovim: the specs type into it as a user does and read its screen as the
-- terminal draws it (floats, tab line, messages and all), which the
-- headless test Neovim cannot show of itself. Captures of the screen go to
-- a folder for docs/editors.md, whose copies are checked against them.
local M = {}

local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
M.repo = vim.fn.fnamemodify(here, ":h:h:h")
M.plugin = vim.fn.fnamemodify(here, ":h")

--- Keys as a terminal sends them.
M.ENTER, M.ESC, M.CTRL_C, M.DOWN = "\r", "\27", "\3", "\27[B"

-- Where the captures of this run go: $TOOLHOST_SCREENS, else a temporary
-- folder.
M.dir = os.getenv("TOOLHOST_SCREENS") or vim.fn.tempname()
vim.fn.mkdir(M.dir, "p")

-- The captures this run took, in order (name -> text).
M.taken, M.order = {}, {}

local Screen = {}
Screen.__index = Screen

--- Starts `argv` (a Neovim) in a terminal `width` x `height` in folder
--- `cwd`. `root` is the folder whose path the captures write as /tmp/work,
--- so that they do not change from run to run.
function M.start(argv, opts)
  local width, height = opts.width or 140, opts.height or 20
  local saved = { columns = vim.o.columns, lines = vim.o.lines }
  -- The test Neovim has no UI, so its size is whatever it is told; the
  -- terminal is a float of exactly the size the captures have.
  vim.o.columns = math.max(vim.o.columns, width + 2)
  vim.o.lines = math.max(vim.o.lines, height + 4)
  local buf = vim.api.nvim_create_buf(false, true)
  local win = vim.api.nvim_open_win(buf, true, { relative = "editor", row = 0, col = 0, width = width,
    height = height, style = "minimal" })
  local job = vim.fn.termopen(argv, { cwd = opts.cwd, env = { TERM = "xterm-256color" } })
  if job <= 0 then
    error("cannot start " .. table.concat(argv, " "))
  end
  return setmetatable({ buf = buf, win = win, job = job, height = height, root = opts.root, saved = saved }, Screen)
end

--- The screen's text now: one line per row, without trailing blanks.
function Screen:text()
  local lines = vim.api.nvim_buf_get_lines(self.buf, -self.height - 1, -1, false)
  while #lines > self.height do
    table.remove(lines, 1)
  end
  for i, line in ipairs(lines) do
    lines[i] = line:gsub("%s+$", "")
  end
  return table.concat(lines, "\n")
end

--- Types `keys` (raw terminal bytes).
function Screen:keys(keys)
  vim.fn.chansend(self.job, keys)
end

--- Types an Ex command and Enter.
function Screen:cmd(command)
  self:keys(":" .. command .. M.ENTER)
end

--- Waits (bounded) until the screen shows every text in `wanted` (plain
--- strings); fails with the screen otherwise. Returns the screen.
function Screen:wait(wanted, timeout_ms)
  wanted = type(wanted) == "table" and wanted or { wanted }
  local text
  local ok = vim.wait(timeout_ms or 20000, function()
    text = self:text()
    for _, want in ipairs(wanted) do
      if not text:find(want, 1, true) then
        return false
      end
    end
    return true
  end, 20)
  if not ok then
    error(string.format("the screen never showed %s; it shows:\n%s", vim.inspect(wanted), text), 2)
  end
  return text
end

--- Waits (bounded) until the screen no longer shows `gone`. Returns the
--- screen.
function Screen:wait_gone(gone, timeout_ms)
  local text
  if not vim.wait(timeout_ms or 20000, function()
    text = self:text()
    return not text:find(gone, 1, true)
  end, 20) then
    error(string.format("the screen still shows %q:\n%s", gone, text), 2)
  end
  return text
end

--- Captures the screen as `name`: written to M.dir/name.txt, with the
--- run's folder written as /tmp/work. Returns the capture.
function Screen:shot(name)
  local text = self:text()
  if self.root then
    text = text:gsub(vim.pesc(self.root), "/tmp/work")
  end
  vim.fn.writefile(vim.split(text, "\n", { plain = true }), M.dir .. "/" .. name .. ".txt")
  if not M.taken[name] then
    table.insert(M.order, name)
  end
  M.taken[name] = text
  return text
end

--- Ends the Neovim in the terminal and waits for it; puts the test
--- Neovim's size back.
function Screen:close()
  vim.fn.jobstop(self.job)
  vim.fn.jobwait({ self.job }, 5000)
  pcall(vim.api.nvim_win_close, self.win, true)
  pcall(vim.api.nvim_buf_delete, self.buf, { force = true })
  vim.o.columns, vim.o.lines = self.saved.columns, self.saved.lines
end

-- The marker in docs/editors.md before the ```text block of capture NAME.
local MARKER = "<!%-%- screen: ([%w%-]+) %-%->"

--- The captures docs/editors.md holds: a list of {name, first, last} where
--- first..last are the block's lines (the fences excluded), and the lines.
function M.doc_blocks(lines)
  local blocks = {}
  for i, line in ipairs(lines) do
    local name = line:match("^" .. MARKER .. "$")
    if name then
      if lines[i + 1] ~= "```text" then
        error("docs/editors.md: the marker of screen " .. name .. " is not followed by a ```text block")
      end
      local last = i + 2
      while lines[last] and lines[last] ~= "```" do
        last = last + 1
      end
      table.insert(blocks, { name = name, first = i + 2, last = last - 1 })
    end
  end
  return blocks
end

--- A capture as the docs check compares it: durations ("4 ms", "0s ago",
--- "1.2s") and the runs of blanks they shift are not the screen's content.
function M.normalize(text)
  text = text:gsub("%d[%d%.]*%s?[mnµ]*s%f[^%w]", "T"):gsub("[ \t]+", " ")
  return vim.trim(text)
end

M.DOC = M.repo .. "/docs/editors.md"

--- Checks that docs/editors.md holds every capture this run took, as it
--- was taken; with $TOOLHOST_SCREENS_UPDATE=1 it writes them there instead
--- (make nvim-screens). Returns a list of problems.
function M.check_docs()
  local lines = vim.fn.readfile(M.DOC)
  local blocks = M.doc_blocks(lines)
  local update = os.getenv("TOOLHOST_SCREENS_UPDATE") == "1"
  local problems, seen = {}, {}
  -- From the last block up, so that replacing one keeps the line numbers
  -- of those above it.
  for i = #blocks, 1, -1 do
    local b = blocks[i]
    seen[b.name] = true
    local taken = M.taken[b.name]
    if not taken then
      table.insert(problems, "docs/editors.md shows screen " .. b.name .. ", which no spec captures")
    else
      local doc = table.concat(vim.list_slice(lines, b.first, b.last), "\n")
      if M.normalize(doc) ~= M.normalize(taken) then
        if update then
          for _ = b.first, b.last do
            table.remove(lines, b.first)
          end
          for j, l in ipairs(vim.split(taken, "\n", { plain = true })) do
            table.insert(lines, b.first + j - 1, l)
          end
        else
          table.insert(problems, string.format("docs/editors.md's screen %s is stale: run `make nvim-screens`. The suite took (also in %s/%s.txt):\n%s",
            b.name, M.dir, b.name, taken))
        end
      end
    end
  end
  for _, name in ipairs(M.order) do
    if not seen[name] then
      table.insert(problems, "screen " .. name .. " is captured but docs/editors.md has no block for it (<!-- screen: " .. name .. " --> before a ```text block)")
    end
  end
  if update then
    vim.fn.writefile(lines, M.DOC)
  end
  return problems
end

return M
