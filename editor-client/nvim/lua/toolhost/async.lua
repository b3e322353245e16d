-- Waiting for a dialog without blocking the editor.
--
-- The server's requests are handled in a coroutine (Neovim 0.10 and later
-- do that themselves; before, toolhost.rpc does). A handler that shows a
-- dialog yields here, returns to the event loop so the user's keys work in
-- any vim.ui implementation (floating windows included), and is resumed
-- from the dialog's callback.
local M = {}

--- Runs start(done) and yields until done(value) is called, or until
--- timeout_ms passes (value nil). Returns the value. Must run in a
--- coroutine; outside one it raises an error rather than block the editor.
---@param start fun(done: fun(value: any))
---@param timeout_ms integer|nil
function M.await(start, timeout_ms)
  local co = coroutine.running()
  if not co then
    error("toolhost: a dialog was opened outside a coroutine; answer it from a server request handler", 2)
  end
  local finished, value, waiting = false, nil, false
  local timer
  local function done(v)
    if finished then
      return
    end
    finished, value = true, v
    if timer then
      timer:stop()
      timer:close()
      timer = nil
    end
    if waiting then
      -- Resume from the main loop, not from inside the dialog's callback,
      -- which may still be closing its window.
      vim.schedule(function()
        local ok, err = coroutine.resume(co)
        if not ok then
          vim.notify("toolhost: " .. tostring(err), vim.log.levels.ERROR)
        end
      end)
    end
  end
  start(done)
  if finished then
    return value
  end
  if timeout_ms and timeout_ms > 0 then
    timer = vim.loop.new_timer()
    timer:start(timeout_ms, 0, vim.schedule_wrap(function()
      done(nil)
    end))
  end
  waiting = true
  coroutine.yield()
  return value
end

return M
