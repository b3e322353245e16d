-- A chat-completions endpoint inside the test's own Neovim (http_stub): it
-- hands each POST's decoded body to a script and writes the script's
-- answer as JSON.
local M = {}

--- Starts the endpoint; `script(request)` returns the reply's message
--- (a table with role/content/tool_calls). Returns {url, requests, close}.
function M.start(script)
  local stub = { requests = {} }
  local http = require("http_stub").start(function(_, _, body)
    local ok, req = pcall(vim.json.decode, body)
    if not ok or type(req) ~= "table" or type(req.messages) ~= "table" then
      return 400, "application/json", '{"error":{"message":"not a chat-completions request"}}'
    end
    table.insert(stub.requests, req)
    local rok, message = pcall(script, req)
    if not rok then
      return 400, "application/json", vim.json.encode({ error = { message = tostring(message) } })
    end
    return 200, "application/json", vim.json.encode({ choices = { { message = message, finish_reason = "stop" } } })
  end)
  stub.url = string.format("http://127.0.0.1:%d/v1/chat/completions", http.port)
  stub.close = http.close
  return stub
end

return M
