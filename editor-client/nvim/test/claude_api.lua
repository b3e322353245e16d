-- A scripted Anthropic Messages API on 127.0.0.1 for driving the real
-- Claude Code CLI offline: each POST /v1/messages is answered, as a
-- server-sent event stream, with the content blocks script(request)
-- returns ({type = "text", text} or {type = "tool_use", name, input}).
-- Every request body is kept in api.requests (decoded).
local uv = vim.loop

local M = {}

local function event(name, data)
  return "event: " .. name .. "\ndata: " .. vim.json.encode(data) .. "\n\n"
end

-- The event stream of one assistant message made of blocks.
local function stream(blocks, model)
  local out = { event("message_start", { type = "message_start", message = { id = "msg_" .. tostring(uv.hrtime()), type = "message", role = "assistant",
    model = model or "claude-test", content = {}, stop_reason = vim.NIL, stop_sequence = vim.NIL, usage = { input_tokens = 10, output_tokens = 1 } } }) }
  local stop = "end_turn"
  for i, b in ipairs(blocks) do
    local index = i - 1
    if b.type == "tool_use" then
      stop = "tool_use"
      table.insert(out, event("content_block_start", { type = "content_block_start", index = index,
        content_block = { type = "tool_use", id = b.id or ("toolu_" .. tostring(uv.hrtime())), name = b.name, input = vim.empty_dict() } }))
      table.insert(out, event("content_block_delta", { type = "content_block_delta", index = index,
        delta = { type = "input_json_delta", partial_json = vim.json.encode(b.input) } }))
    else
      table.insert(out, event("content_block_start", { type = "content_block_start", index = index, content_block = { type = "text", text = "" } }))
      table.insert(out, event("content_block_delta", { type = "content_block_delta", index = index, delta = { type = "text_delta", text = b.text } }))
    end
    table.insert(out, event("content_block_stop", { type = "content_block_stop", index = index }))
  end
  table.insert(out, event("message_delta", { type = "message_delta", delta = { stop_reason = stop, stop_sequence = vim.NIL }, usage = { output_tokens = 5 } }))
  table.insert(out, event("message_stop", { type = "message_stop" }))
  return table.concat(out)
end

--- Starts the API; returns {port, requests, close()}.
function M.start(script)
  local api = { requests = {} }
  local http = require("http_stub").start(function(method, path, body)
    if method == "POST" and path:match("^/v1/messages/count_tokens") then
      return 200, "application/json", '{"input_tokens":10}'
    elseif method == "POST" and path:match("^/v1/messages") then
      local req = vim.json.decode(body)
      table.insert(api.requests, req)
      local ok, blocks = pcall(script, req)
      if not ok then
        blocks = { { type = "text", text = "stub error: " .. tostring(blocks) } }
      end
      return 200, "text/event-stream", stream(blocks, req.model)
    end
    return 200, "application/json", "{}"
  end)
  api.port, api.close = http.port, http.close
  return api
end

--- The text of a request's messages (tool results and reminders
--- included), for the test to read what the model was told.
function M.text_of(req)
  local parts = {}
  local function add(content)
    if type(content) == "string" then
      table.insert(parts, content)
    elseif type(content) == "table" then
      for _, c in ipairs(content) do
        if type(c) == "table" then
          if c.text then
            table.insert(parts, c.text)
          end
          if c.content then
            add(c.content)
          end
        end
      end
    end
  end
  for _, m in ipairs(req.messages or {}) do
    add(m.content)
  end
  return table.concat(parts, "\n")
end

--- The text of a request's messages after the last assistant message (the
--- user's newest turn, with the reminders the CLI adds).
function M.last_text(req)
  local msgs = req.messages or {}
  local first = #msgs
  while first > 1 and msgs[first - 1].role ~= "assistant" do
    first = first - 1
  end
  return M.text_of({ messages = vim.list_slice(msgs, first) })
end

return M
