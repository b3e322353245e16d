-- What the server asks, and what it does not: checks that cannot depend on
-- the answer fail before any prompt, and "Always allow" saves the rule the
-- user picked, shown before saving.
local h = require("harness")
local toolhost = require("toolhost")
local format = require("toolhost.format")

local function start(files)
  -- review_changes = false: these cases answer the per-file prompt.
  return h.start_server(files, { settings = { permissions = { saveAlwaysAllow = false } }, review_changes = false })
end

local function call(name, input)
  local done, result = false, nil
  toolhost.call_tool(name, input, function(_, r)
    done, result = true, r
  end)
  h.wait_for(function()
    return done
  end, name .. " to return", 30000)
  return result
end

h.test("ask: an Edit of a file changed since it was read fails without a prompt", function()
  local dir = start({ ["a.txt"] = "one\ntwo\n" })
  local log = h.script_ui({ ["toolhost.permission"] = h.pick("Allow") })
  call("Read", { file_path = dir .. "/a.txt" })
  -- The change removes old_string: a changed file whose old_string still
  -- matches once would take the edit (Claude Code's rule).
  local f = assert(io.open(dir .. "/a.txt", "wb"))
  f:write("uno\ntwo\nthree\n")
  f:close()
  local result = call("Edit", { file_path = dir .. "/a.txt", old_string = "one", new_string = "ONE" })
  h.eq(result.isError, true, format.result_text(result))
  h.eq(#log, 0, "prompts shown: " .. vim.inspect(log))
end)

h.test("ask: Always allow shows the rules and saves the one picked", function()
  start({})
  local rules_prompt
  local log = h.script_ui({
    ["toolhost.permission"] = h.pick("Always allow"),
    ["toolhost.rules"] = function(items, o)
      rules_prompt = vim.tbl_map(o.format_item, items)
      return items[2]
    end,
  })
  local first = call("Bash", { command = "printf %s one" })
  h.eq(first.isError, false, format.result_text(first))
  h.eq(rules_prompt, { "Bash(printf %s one) — exactly this call from now on", "Bash(printf:*) — every call with this prefix" })
  local second = call("Bash", { command = "printf %s two" })
  h.eq(second.isError, false, format.result_text(second))
  h.eq(#log, 2, "one permission prompt and one rule picker: " .. vim.inspect(log))
end)

h.test("unsaved: an applied edit writes disk + the change; the buffer keeps the typing, unsaved", function()
  local dir = start({ ["a.txt"] = "one\ntwo\nthree\nfour\n" })
  h.script_ui({ ["toolhost.permission"] = h.pick("Allow"), ["toolhost.edit"] = h.pick("Accept") })
  local path = dir .. "/a.txt"
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  toolhost.attach(bufnr)
  vim.api.nvim_buf_set_lines(bufnr, 1, 1, false, { "my unsaved note" })
  call("Read", { file_path = path })
  local result = call("Edit", { file_path = path, old_string = "four", new_string = "FOUR" })
  h.eq(result.isError, false, format.result_text(result))
  h.eq(h.read(path), "one\ntwo\nthree\nFOUR\n", "disk: its content plus the agent's change")
  h.eq(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), { "one", "my unsaved note", "two", "three", "FOUR" }, "buffer")
  h.eq(vim.bo[bufnr].modified, true, "the typing is still unsaved")
  vim.cmd("bwipeout!")
end)

h.test("disk truth: a Bash rewrite under an unmodified buffer is kept by Read and Edit", function()
  local dir = start({ ["n.txt"] = "# Notes\nold line\n" })
  h.script_ui({ ["toolhost.permission"] = h.pick("Allow"), ["toolhost.edit"] = h.pick("Accept") })
  local path = dir .. "/n.txt"
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  toolhost.attach(bufnr)
  local bash = call("Bash", { command = "printf '# Notes\\nfrom bash\\n' > n.txt" })
  h.eq(bash.isError, false, format.result_text(bash))
  local read = call("Read", { file_path = path })
  h.match(format.result_text(read), "from bash")
  local result = call("Edit", { file_path = path, old_string = "from bash", new_string = "from bash, edited" })
  h.eq(result.isError, false, format.result_text(result))
  h.eq(h.read(path), "# Notes\nfrom bash, edited\n", "disk: Bash's change and the edit")
  h.eq(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), { "# Notes", "from bash, edited" }, "buffer brought up to date")
  h.eq(vim.bo[bufnr].modified, false, "buffer saved")
  -- Unsaved typing, then another rewrite: the Edit is refused, both kept.
  vim.api.nvim_buf_set_lines(bufnr, 2, 2, false, { "typed" })
  call("Bash", { command = "printf 'bash again\\n' > n.txt" })
  local refused = call("Edit", { file_path = path, old_string = "typed", new_string = "gone" })
  h.eq(refused.isError, true, format.result_text(refused))
  h.eq(h.read(path), "bash again\n", "disk: the second rewrite kept")
  h.eq(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), { "# Notes", "from bash, edited", "typed" }, "typing kept")
  vim.cmd("bwipeout!")
end)
