-- :Toolhost command. The server starts with require("toolhost").setup{}.
if vim.g.loaded_toolhost or vim.fn.has("nvim-0.7") ~= 1 then
  return
end
vim.g.loaded_toolhost = true

-- :help toolhost works straight after a checkout: make the help tags when
-- they are missing and the folder is writable (plugin managers make them
-- too).
local doc = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h") .. "/doc"
if vim.fn.filereadable(doc .. "/tags") == 0 and vim.fn.filewritable(doc) == 2 then
  pcall(vim.cmd, "silent helptags " .. vim.fn.fnameescape(doc))
end

vim.api.nvim_create_user_command("Toolhost", function(args)
  require("toolhost.commands").run(args.fargs, args.args, args)
end, {
  nargs = "*",
  range = true,
  complete = function(arglead, cmdline)
    return require("toolhost.commands").complete(arglead, cmdline)
  end,
  desc = "toolhost: tools, run, todos, tasks, mode, status, start, stop, restart, allow, deny, ...",
})

-- A key for the running calls: map it, e.g.
-- vim.keymap.set("n", "<leader>tc", "<Plug>(toolhost-cancel)").
vim.keymap.set("n", "<Plug>(toolhost-cancel)", function()
  require("toolhost.commands").run({ "cancel" }, "cancel")
end, { desc = "toolhost: cancel the running tool calls" })
