-- The docs name only :Toolhost subcommands that exist: the :help file, the
-- editors page and the README of the repository.
local h = require("harness")
local commands = require("toolhost.commands")

local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local repo = vim.fn.fnamemodify(here, ":h:h:h")

h.test("docs: every :Toolhost subcommand they name exists", function()
  local pages = { here .. "/../doc/toolhost.txt", repo .. "/docs/editors.md", repo .. "/README.md" }
  local named = 0
  for _, page in ipairs(pages) do
    local text = table.concat(vim.fn.readfile(page), "\n")
    for sub in text:gmatch(":Toolhost ([%a_]+)") do
      named = named + 1
      h.truthy(commands.subcommands[sub], page .. " names :Toolhost " .. sub .. ", which is no subcommand")
    end
  end
  h.truthy(named > 10, "the pages name :Toolhost subcommands (found " .. named .. ")")
end)
