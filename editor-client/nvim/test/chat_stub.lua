-- A chat-completions endpoint inside the test's own Neovim, on vim.loop
-- (libuv) TCP: it reads one POST per connection, hands the decoded body to
-- a script, and writes the script's answer as JSON. vim.wait runs its
-- callbacks while a test waits. Enough HTTP for Go's client: a
-- Content-Length body and Connection: close.
local M = {}

--- Starts the endpoint; `script(request)` returns the reply's message
--- (a table with role/content/tool_calls). Returns {url, requests, close}.
function M.start(script)
  local uv = vim.loop
  local server = uv.new_tcp()
  assert(server:bind("127.0.0.1", 0))
  local stub = { requests = {} }
  local function answer(sock, status, body)
    local resp = string.format("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
      status, status == 200 and "OK" or "Bad Request", #body, body)
    sock:write(resp, function()
      sock:shutdown(function()
        sock:close()
      end)
    end)
  end
  assert(server:listen(16, function(err)
    if err then
      return
    end
    local sock = uv.new_tcp()
    server:accept(sock)
    local buf = ""
    sock:read_start(function(rerr, chunk)
      if rerr or not chunk then
        sock:close()
        return
      end
      buf = buf .. chunk
      local head_end = buf:find("\r\n\r\n", 1, true)
      if not head_end then
        return
      end
      local len = tonumber(buf:sub(1, head_end):lower():match("content%-length:%s*(%d+)")) or 0
      local body = buf:sub(head_end + 4)
      if #body < len then
        return
      end
      sock:read_stop()
      local ok, req = pcall(vim.json.decode, body:sub(1, len))
      if not ok or type(req) ~= "table" or type(req.messages) ~= "table" then
        answer(sock, 400, '{"error":{"message":"not a chat-completions request"}}')
        return
      end
      table.insert(stub.requests, req)
      local rok, message = pcall(script, req)
      if not rok then
        answer(sock, 400, vim.json.encode({ error = { message = tostring(message) } }))
        return
      end
      answer(sock, 200, vim.json.encode({ choices = { { message = message, finish_reason = "stop" } } }))
    end)
  end))
  local addr = server:getsockname()
  stub.url = string.format("http://127.0.0.1:%d/v1/chat/completions", addr.port)
  function stub.close()
    if not server:is_closing() then
      server:close()
    end
  end
  return stub
end

return M
