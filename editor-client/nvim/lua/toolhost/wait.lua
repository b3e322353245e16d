-- Turning callback dialogs into answers a request handler can return.
--
-- Neovim answers a server's request with the return value of its handler,
-- so a dialog that reports through a callback (vim.ui.select, vim.ui.input)
-- is awaited here with vim.wait: bounded, and polling a condition, never
-- sleeping. vim.ui implementations that answer at once (the built-in ones,
-- scripted ones in tests) and ones that answer from scheduled callbacks
-- both work.
local M = {}

--- Runs start(done) and waits until done(value) is called or timeout_ms
--- passes. Returns finished, value.
---@param start fun(done: fun(value: any))
---@param timeout_ms integer
function M.callback(start, timeout_ms)
  local finished, value = false, nil
  start(function(v)
    if not finished then
      finished, value = true, v
    end
  end)
  if not finished then
    vim.wait(timeout_ms, function()
      return finished
    end, 20)
  end
  return finished, value
end

return M
