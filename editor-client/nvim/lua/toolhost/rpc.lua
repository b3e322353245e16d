-- The JSON-RPC transport of the toolhost client on Neovim before 0.10.
--
-- The server asks the user things (permission, questions, edit review) as
-- requests, and the answer is whatever the handler returns. Neovim 0.10 and
-- later run each server request's handler in a coroutine, so a handler can
-- yield until a dialog's callback resumes it while the editor keeps taking
-- keys. Neovim 0.7 to 0.9 call the handler synchronously from a scheduled
-- function: the only way to wait there is vim.wait, which takes no typed
-- keys, so a floating-window vim.ui.select never gets its answer. This
-- transport replaces vim.lsp.rpc.start for the toolhost client only, with
-- the same client object, and runs each server request in a coroutine like
-- the newer Neovim does.
local uv = vim.loop

local M = {}

local function frame(payload)
  local body = vim.json.encode(payload)
  return "Content-Length: " .. #body .. "\r\n\r\n" .. body
end

--- Splits the next framed message off `buffer`. Returns body, rest (body
--- nil when the message is incomplete), or false and a message for a bad
--- header.
function M.next_message(buffer)
  local head_end = buffer:find("\r\n\r\n", 1, true)
  if not head_end then
    return nil, buffer
  end
  local header = buffer:sub(1, head_end - 1)
  local length
  for line in vim.gsplit(header, "\r\n", true) do
    local key, value = line:match("^%s*([^:]+):%s*(.-)%s*$")
    if key and key:lower() == "content-length" then
      length = tonumber(value)
    end
  end
  if not length then
    return false, "a message header without Content-Length: " .. header
  end
  local start = head_end + 4
  if #buffer < start + length - 1 then
    return nil, buffer
  end
  return buffer:sub(start, start + length - 1), buffer:sub(start + length)
end

--- Whether this Neovim needs the transport (it calls server request
--- handlers outside a coroutine).
function M.needed()
  return vim.fn.has("nvim-0.10") == 0
end

--- Starts `cmd` with `cmd_args` and returns the RPC client object
--- vim.lsp.start_client expects: {pid, handle, request, notify,
--- is_closing, terminate}. `dispatchers` are vim.lsp's {notification,
--- server_request, on_error, on_exit}.
function M.start(cmd, cmd_args, dispatchers, extra)
  local errors = vim.lsp.rpc.client_errors
  local protocol = vim.lsp.protocol
  local stdin, stdout, stderr = uv.new_pipe(false), uv.new_pipe(false), uv.new_pipe(false)
  local next_id = 0
  local callbacks, reply_callbacks = {}, {}
  local handle, pid

  -- Errors may come from libuv callbacks, where most of the API is off
  -- limits: report them from the main loop.
  local on_error = vim.schedule_wrap(function(kind, ...)
    pcall(dispatchers.on_error, kind, ...)
  end)

  local spawn = { args = cmd_args, stdio = { stdin, stdout, stderr } }
  if extra and extra.cwd then
    spawn.cwd = extra.cwd
  end
  if extra and extra.env then
    local env = {}
    for k, v in pairs(vim.fn.environ()) do
      env[k] = v
    end
    for k, v in pairs(extra.env) do
      env[k] = tostring(v)
    end
    spawn.env = {}
    for k, v in pairs(env) do
      table.insert(spawn.env, k .. "=" .. v)
    end
  end
  handle, pid = uv.spawn(cmd, spawn, function(code, signal)
    stdin:close()
    stdout:close()
    stderr:close()
    handle:close()
    callbacks, reply_callbacks = {}, {}
    dispatchers.on_exit(code, signal)
  end)
  if not handle then
    stdin:close()
    stdout:close()
    stderr:close()
    vim.notify(string.format("toolhost: could not start %s: %s", cmd, tostring(pid)), vim.log.levels.ERROR)
    return nil
  end

  local function send(payload)
    if handle:is_closing() then
      return false
    end
    stdin:write(frame(payload))
    return true
  end

  local function respond(id, err, result)
    return send({ jsonrpc = "2.0", id = id, error = err, result = result })
  end

  local function request(method, params, callback, notify_reply_callback)
    next_id = next_id + 1
    local id = next_id
    if not send({ jsonrpc = "2.0", id = id, method = method, params = params }) then
      return false
    end
    callbacks[id] = vim.schedule_wrap(callback)
    if notify_reply_callback then
      reply_callbacks[id] = vim.schedule_wrap(notify_reply_callback)
    end
    return true, id
  end

  local function notify(method, params)
    return send({ jsonrpc = "2.0", method = method, params = params })
  end

  -- A server request runs in its own coroutine: its handler may yield until
  -- the user answers, and the answer is sent when it returns.
  local function serve_request(decoded)
    local run = coroutine.wrap(function()
      local ok, result, err = pcall(dispatchers.server_request, decoded.method, decoded.params)
      if not ok then
        on_error(errors.SERVER_REQUEST_HANDLER_ERROR, result)
        err, result = vim.lsp.rpc.rpc_response_error(protocol.ErrorCodes.InternalError, tostring(result)), nil
      elseif result == nil and err == nil then
        err = vim.lsp.rpc.rpc_response_error(protocol.ErrorCodes.InternalError, "no answer for " .. decoded.method)
      end
      if err ~= nil then
        result = nil
      end
      respond(decoded.id, err, result)
    end)
    vim.schedule(run)
  end

  local function handle_body(body)
    local ok, decoded = pcall(vim.json.decode, body, { luanil = { object = true } })
    if not ok or type(decoded) ~= "table" then
      on_error(errors.INVALID_SERVER_JSON, decoded)
      return
    end
    if type(decoded.method) == "string" and decoded.id ~= nil then
      serve_request(decoded)
    elseif decoded.id ~= nil then
      local id = tonumber(decoded.id)
      local reply = reply_callbacks[id]
      reply_callbacks[id] = nil
      if reply then
        reply(id)
      end
      local callback = callbacks[id]
      callbacks[id] = nil
      if decoded.error and decoded.error.code == protocol.ErrorCodes.RequestCancelled then
        return
      end
      if callback then
        if decoded.error then
          setmetatable(decoded.error, { __tostring = vim.lsp.rpc.format_rpc_error })
        end
        callback(decoded.error, decoded.result)
      else
        on_error(errors.NO_RESULT_CALLBACK_FOUND, decoded)
      end
    elseif type(decoded.method) == "string" then
      vim.schedule(function()
        local nok, nerr = pcall(dispatchers.notification, decoded.method, decoded.params)
        if not nok then
          on_error(errors.NOTIFICATION_HANDLER_ERROR, nerr)
        end
      end)
    else
      on_error(errors.INVALID_SERVER_MESSAGE, decoded)
    end
  end

  local buffer = ""
  stdout:read_start(function(err, chunk)
    if err then
      on_error(errors.READ_ERROR, err)
      return
    end
    if not chunk then
      return
    end
    buffer = buffer .. chunk
    while true do
      local body, rest = M.next_message(buffer)
      if body == false then
        on_error(errors.INVALID_SERVER_MESSAGE, rest)
        buffer = ""
        return
      end
      if not body then
        return
      end
      buffer = rest
      handle_body(body)
    end
  end)
  stderr:read_start(function() end)

  return {
    pid = pid,
    handle = handle,
    request = request,
    notify = notify,
    is_closing = function()
      return handle:is_closing()
    end,
    terminate = function()
      if not handle:is_closing() then
        handle:kill(15)
      end
    end,
  }
end

--- Calls start_client(config) with this transport in place of
--- vim.lsp.rpc.start for that one call.
function M.start_client(config)
  local lsp_rpc = require("vim.lsp.rpc")
  local original = lsp_rpc.start
  lsp_rpc.start = M.start
  local ok, id = pcall(vim.lsp.start_client, config)
  lsp_rpc.start = original
  if not ok then
    error(id, 0)
  end
  return id
end

return M
