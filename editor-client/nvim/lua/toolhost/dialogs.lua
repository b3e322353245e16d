-- AskUserQuestion and permission prompts through vim.ui.select and
-- vim.ui.input. The text and answer helpers are plain functions so the
-- tests check them without a server.
local wait = require("toolhost.wait")

local M = {}

M.OTHER = "Other…"
M.ALLOW = "Allow"
M.ALLOW_ALWAYS = "Always allow"
M.DENY = "Deny"

--- Splits a typed multi-select answer ("1, 3, something else") into the
--- labels it names: numbers pick options, a label matches case-insensitively,
--- anything else is kept as free text. Returns the answer string.
---@param text string
---@param options table[] {label, description}
---@return string
function M.parse_multi(text, options)
  local parts = {}
  for _, raw in ipairs(vim.split(text or "", ",", { plain = true })) do
    local token = vim.trim(raw)
    if token ~= "" then
      local n = tonumber(token)
      local label
      if n and options[n] then
        label = options[n].label
      else
        for _, o in ipairs(options) do
          if o.label:lower() == token:lower() then
            label = o.label
          end
        end
      end
      table.insert(parts, label or token)
    end
  end
  return table.concat(parts, ", ")
end

--- The prompt of a multi-select question: the question and numbered options.
function M.multi_prompt(q)
  local items = {}
  for i, o in ipairs(q.options or {}) do
    table.insert(items, string.format("%d. %s", i, o.label))
  end
  return string.format("%s [%s] (numbers or text, comma-separated): ", q.question, table.concat(items, "  "))
end

--- How a question's option shows in the picker.
function M.format_option(item)
  if type(item) == "table" then
    if item.description and item.description ~= "" then
      return item.label .. " — " .. item.description
    end
    return item.label
  end
  return tostring(item)
end

local function ui(opts)
  return (opts and opts.ui) or {}
end

local function select(opts, items, select_opts)
  local fn = ui(opts).select or vim.ui.select
  local ok, value = wait.callback(function(done)
    fn(items, select_opts, function(choice)
      done(choice or false)
    end)
  end, opts.dialog_timeout_ms)
  if not ok or value == false then
    return nil
  end
  return value
end

--- Asks with vim.ui.select (or opts.ui.select) and waits for the choice,
--- bounded; nil when dismissed. For the other dialogs (trust.lua).
M.select = select

local function input(opts, input_opts)
  local fn = ui(opts).input or vim.ui.input
  local ok, value = wait.callback(function(done)
    fn(input_opts, function(text)
      done(text or false)
    end)
  end, opts.dialog_timeout_ms)
  if not ok or value == false then
    return nil
  end
  return value
end

--- Asks one question; returns the answer or nil when dismissed.
local function ask_one(q, opts)
  local options = q.options or {}
  if q.multiSelect then
    local text = input(opts, { prompt = M.multi_prompt(q), kind = "toolhost.question" })
    if not text then
      return nil
    end
    local answer = M.parse_multi(text, options)
    return answer ~= "" and answer or nil
  end
  local items = vim.deepcopy(options)
  table.insert(items, { label = M.OTHER, description = "type your own answer", other = true })
  local choice = select(opts, items, {
    prompt = (q.header and q.header ~= "" and (q.header .. ": ") or "") .. q.question,
    format_item = M.format_option,
    kind = "toolhost.question",
  })
  if not choice then
    return nil
  end
  if choice.other then
    local text = input(opts, { prompt = q.question .. " ", kind = "toolhost.question" })
    text = text and vim.trim(text) or ""
    return text ~= "" and text or nil
  end
  return choice.label
end

--- Handles toolhost/askUserQuestion. A dismissed dialog answers
--- {answers = {}, dismissed = true}.
function M.ask_user_question(params, opts)
  local answers = vim.empty_dict()
  for _, q in ipairs((params and params.questions) or {}) do
    local answer = ask_one(q, opts)
    if not answer then
      return { answers = vim.empty_dict(), dismissed = true }
    end
    answers[q.question] = answer
  end
  return { answers = answers }
end

--- One line describing a call's input: the command, path or URL.
function M.describe_input(tool, input_value)
  if type(input_value) ~= "table" then
    return ""
  end
  if type(input_value.command) == "string" then
    return "$ " .. input_value.command
  end
  for _, key in ipairs({ "file_path", "notebook_path", "url", "path", "pattern" }) do
    if type(input_value[key]) == "string" then
      return tool .. ": " .. input_value[key]
    end
  end
  return vim.json.encode(input_value)
end

--- The one-line prompt of a permission request.
function M.permission_prompt(p)
  local title = (p.title and p.title ~= "") and p.title or ("Allow " .. tostring(p.toolName) .. "?")
  local risk = p.risk and (" [risk: " .. tostring(p.risk) .. "]") or ""
  local what = ""
  if p.preview and p.preview.kind ~= "diff" and p.preview.text then
    what = p.preview.text
  elseif not p.preview then
    what = M.describe_input(p.toolName or "", p.input)
  end
  what = what:gsub("\n", " ⏎ ")
  if #what > 160 then
    what = what:sub(1, 157) .. "..."
  end
  return title .. risk .. (what ~= "" and (" — " .. what) or "")
end

--- Maps the chosen action (nil: dismissed) to the answer.
function M.permission_answer(choice)
  if choice == M.ALLOW then
    return { decision = "allow" }
  elseif choice == M.ALLOW_ALWAYS then
    return { decision = "allowAlways" }
  elseif choice == M.DENY then
    return { decision = "deny", message = "the user denied the call" }
  end
  return { decision = "deny", message = "the user dismissed the permission prompt" }
end

--- Handles toolhost/requestPermission. A diff preview opens in a scratch tab
--- while the choice is asked.
function M.request_permission(params, opts)
  local preview
  if params.preview and params.preview.kind == "diff" and params.preview.text then
    preview = require("toolhost.edits").open_text_tab("toolhost://permission/" .. tostring(params.callId or ""), params.preview.text, "diff")
  end
  local choice = select(opts, { M.ALLOW, M.ALLOW_ALWAYS, M.DENY }, {
    prompt = M.permission_prompt(params),
    kind = "toolhost.permission",
  })
  if preview then
    preview.close()
  end
  return M.permission_answer(choice)
end

return M
