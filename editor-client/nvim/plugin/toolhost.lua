-- :Toolhost command. The server starts with require("toolhost").setup{}.
if vim.g.loaded_toolhost or vim.fn.has("nvim-0.7") ~= 1 then
  return
end
vim.g.loaded_toolhost = true

vim.api.nvim_create_user_command("Toolhost", function(args)
  require("toolhost.commands").run(args.fargs, args.args)
end, {
  nargs = "*",
  complete = function(arglead, cmdline)
    return require("toolhost.commands").complete(arglead, cmdline)
  end,
  desc = "toolhost: tools, run, todos, tasks, mode, status, start, stop, restart",
})
