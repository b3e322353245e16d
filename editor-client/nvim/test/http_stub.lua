-- The HTTP side of the tests' scripted endpoints, inside the test's own
-- Neovim on vim.loop (libuv) TCP: it reads one request per connection (a
-- Content-Length body) and answers with Connection: close. vim.wait runs
-- its callbacks while a test waits. Enough HTTP for Go's client and
-- Claude Code's.
local M = {}

--- Starts a server on 127.0.0.1; handle(method, path, body) returns
--- status (number), content type and body. Returns {port, close()}.
function M.start(handle)
  local uv = vim.loop
  local server = uv.new_tcp()
  assert(server:bind("127.0.0.1", 0))
  local function answer(sock, status, ctype, body)
    local resp = string.format("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n%s",
      status, status == 200 and "OK" or "Bad Request", ctype, #body, body)
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
        if not sock:is_closing() then
          sock:close()
        end
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
      local method, path = buf:match("^(%u+) (%S+)")
      -- The handler runs on the main loop: it may call the editor's API.
      vim.schedule(function()
        local ok, status, ctype, out = pcall(handle, method, path, body:sub(1, len))
        if not ok then
          status, ctype, out = 400, "application/json", vim.json.encode({ error = { message = tostring(status) } })
        end
        answer(sock, status, ctype, out)
      end)
    end)
  end))
  local stub = { port = server:getsockname().port }
  function stub.close()
    if not server:is_closing() then
      server:close()
    end
  end
  return stub
end

return M
