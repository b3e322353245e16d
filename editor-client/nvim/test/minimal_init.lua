-- Loads only this plugin, for headless tests.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local plugin_root = vim.fn.fnamemodify(here, ":h")
vim.opt.runtimepath:prepend(plugin_root)
vim.opt.swapfile = false
vim.opt.shortmess:append("F")
vim.opt.more = false
vim.cmd("runtime plugin/toolhost.lua")
-- Claude Code's IDE lock files of the tests' servers go to a folder of the
-- tests' own, never to the user's ~/.claude/ide.
vim.env.CLAUDE_CONFIG_DIR = vim.fn.tempname()
