-- AskUserQuestion and permission prompts through vim.ui.select and
-- vim.ui.input. Every dialog is asynchronous: the handler yields (see
-- toolhost.async) until the dialog's callback answers, so any vim.ui
-- implementation works and the editor stays usable while a prompt waits. A
-- change under review is shown in a tab that answers from its own keys. The
-- text and answer helpers are plain functions so the tests check them
-- without a server.
local async = require("toolhost.async")
local review = require("toolhost.review")

local M = {}

M.OTHER = "Other…"
M.ALLOW = "Allow"
M.ALLOW_ALWAYS = "Always allow"
M.DENY = "Deny"
M.DENY_FEEDBACK = "Deny with feedback…"
M.BACK = "← Previous question"
M.DONE = "→ Done"

--- How a question's option shows in the picker.
function M.format_option(item)
  if type(item) == "table" then
    if item.description and item.description ~= "" then
      return M.visible(item.label) .. " — " .. M.visible(item.description)
    end
    return M.visible(item.label)
  end
  return tostring(item)
end

local function ui(opts)
  return (opts and opts.ui) or {}
end

-- The prompts waiting for an answer, newest last; :Toolhost allow, deny,
-- always, feedback and answer act on the newest.
M.pending = {}

local function remove_pending(p)
  for i = #M.pending, 1, -1 do
    if M.pending[i] == p then
      table.remove(M.pending, i)
    end
  end
end

--- Runs show() and returns the floating windows it opened: those a
--- replaced vim.ui opened for a dialog, to close when the call it asks for
--- is cancelled (M.cancel).
local function floats_opened_by(show)
  local before = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    before[w] = true
  end
  show()
  local opened = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if not before[w] and vim.api.nvim_win_get_config(w).relative ~= "" then
      table.insert(opened, w)
    end
  end
  return opened
end

--- Closes the windows of wins that are still open.
local function close_windows(wins)
  for _, w in ipairs(wins or {}) do
    if vim.api.nvim_win_is_valid(w) then
      vim.api.nvim_win_close(w, true)
    end
  end
end

-- The questions being asked (toolhost/askUserQuestion), each
-- {call_id, done, wins, cancelled}: the dialog on screen, so that the
-- server's $/cancelRequest for the call closes it (M.cancel).
M.asking = {}

--- Runs show(done) (a picker or an input) and yields until it answers.
--- Within a question (opts.asking), the dialog is recorded so a cancel of
--- the call closes it, and nothing more opens once the call is cancelled.
local function await_dialog(opts, show)
  local asking = opts.asking
  if asking and asking.cancelled then
    return nil
  end
  return async.await(function(done)
    if not asking then
      show(done)
      return
    end
    asking.done = done
    asking.wins = floats_opened_by(function()
      show(done)
    end)
  end, opts.dialog_timeout_ms)
end

--- Shows a picker and yields until it answers. Returns the item or nil.
local function select(opts, items, select_opts)
  local fn = ui(opts).select or vim.ui.select
  return await_dialog(opts, function(done)
    fn(items, select_opts, done)
  end)
end

M.select = select

--- Shows an input and yields until it answers. Returns the text or nil.
local function input(opts, input_opts)
  local fn = ui(opts).input or vim.ui.input
  return await_dialog(opts, function(done)
    fn(input_opts, done)
  end)
end
M.input = input

--- Asks for a choice among `spec.items` and yields until it comes. With
--- spec.view (a review tab), the tab's buffers answer too: spec.keys
--- ({lhs, desc, item}) pick an item, <CR> opens the picker again and q
--- dismisses; closing the picker then leaves the prompt waiting on the
--- view, so the user can scroll and search the change before answering.
--- Returns the chosen item, or nil when dismissed.
function M.choose(opts, spec)
  local prompt = { spec = spec }
  table.insert(M.pending, prompt)
  local answer = async.await(function(done)
    prompt.answer = done
    local fn = ui(opts).select or vim.ui.select
    local function menu()
      prompt.wins = floats_opened_by(function()
        fn(spec.items, { prompt = spec.prompt, kind = spec.kind, format_item = spec.format_item }, function(choice)
          if choice ~= nil then
            done(choice)
          elseif not spec.view then
            done(nil)
          else
            require("toolhost.client").echo("toolhost: the prompt is still waiting — " .. (spec.hint or ""), "WarningMsg")
          end
        end)
      end)
    end
    prompt.menu = menu
    if spec.view then
      local keys = {}
      for _, k in ipairs(spec.keys or {}) do
        table.insert(keys, { lhs = k.lhs, desc = k.desc, fn = function()
          done(k.item)
        end })
      end
      table.insert(keys, { lhs = "<CR>", desc = "menu", fn = menu })
      table.insert(keys, { lhs = "q", desc = "dismiss", fn = function()
        done(nil)
      end })
      spec.hint = review.bind(spec.view, keys, spec.labels)
    end
    menu()
  end, opts.dialog_timeout_ms)
  remove_pending(prompt)
  return answer
end

--- Handles the server's $/cancelRequest for a permission prompt or a
--- question: the call it asks about (spec.call_id) was cancelled, so the
--- prompt closes, its picker's floats with it, answered as dismissed.
--- Matched by the callId the cancel carries, which every Neovim version
--- sees (docs/protocol.md).
function M.cancel(params)
  local call_id = type(params) == "table" and params.callId or nil
  if type(call_id) ~= "string" or call_id == "" then
    return
  end
  -- A question of the cancelled call closes the same way, answered as
  -- dismissed (the server ignores the answer).
  for _, a in ipairs(vim.list_slice(M.asking)) do
    if a.call_id == call_id and not a.cancelled then
      a.cancelled = true
      close_windows(a.wins)
      if a.done then
        a.done(nil)
      end
    end
  end
  for _, p in ipairs(vim.list_slice(M.pending)) do
    if p.spec.call_id == call_id and p.answer then
      close_windows(p.wins)
      p.answer(nil)
    end
  end
end

--- Answers the newest waiting prompt with the item labelled `label` (or,
--- with no label, opens its picker again). Returns false and a message when
--- nothing waits or no item matches.
function M.answer_pending(label)
  local p = M.pending[#M.pending]
  if not p or not p.answer then
    return false, "no toolhost prompt is waiting"
  end
  if not label then
    p.menu()
    return true
  end
  for _, item in ipairs(p.spec.items) do
    local l = type(item) == "table" and item.label or item
    if l == label then
      p.answer(item)
      return true
    end
  end
  return false, "the waiting prompt has no answer " .. label
end

--- Whether `fn` is Neovim's own vim.ui.select / vim.ui.input, which show
--- the prompt in the command line, wrapped, whatever its length.
local function builtin(fn)
  local info = debug.getinfo(fn, "S")
  return info ~= nil and info.source:find("vim/ui%.lua$") ~= nil
end

--- `text` broken at spaces into lines of at most `width` cells (a longer
--- word keeps its own line).
function M.wrap(text, width)
  local out = {}
  local line = ""
  for word in text:gmatch("%S+") do
    if line == "" then
      line = word
    elseif vim.fn.strdisplaywidth(line .. " " .. word) <= width then
      line = line .. " " .. word
    else
      table.insert(out, line)
      line = word
    end
  end
  table.insert(out, line)
  return out
end

-- The question card's window, while a question is asked through a
-- replaced vim.ui.
local card_win

--- The question card's window, or nil.
function M.card_window()
  return card_win and vim.api.nvim_win_is_valid(card_win) and card_win or nil
end

local function close_card()
  if M.card_window() then
    vim.api.nvim_win_close(card_win, true)
  end
  card_win = nil
end

--- Shows `lines` wrapped in a float at the top of the editor, above where
--- pickers open, so a question a narrow picker's title would cut is read
--- whole. Not focusable; the picker keeps the keys.
local function open_card(lines)
  close_card()
  local width = math.max(math.min(vim.o.columns - 6, 80), 20)
  local wrapped = {}
  for _, l in ipairs(lines) do
    vim.list_extend(wrapped, M.wrap(l, width))
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, wrapped)
  card_win = vim.api.nvim_open_win(buf, false, {
    relative = "editor", row = 0, col = math.floor((vim.o.columns - width) / 2) - 1,
    width = width, height = math.min(#wrapped, math.max(vim.o.lines - 6, 1)),
    style = "minimal", border = "single", focusable = false, zindex = 45, noautocmd = true,
  })
  vim.wo[card_win].wrap = true
end

-- A picker's prompt longer than this is likely cut by a floating picker's
-- title; the question then goes to the card.
M.MAX_PROMPT = 40

--- The picker prompt of question q and whether the question needs the
--- card: the whole "header: question" when the picker is Neovim's own or
--- it is short, else the header alone.
function M.question_prompt(q, select_fn)
  local header = (q.header and q.header ~= "") and q.header or nil
  local whole = M.visible((header and (header .. ": ") or "") .. q.question)
  if builtin(select_fn) or vim.fn.strdisplaywidth(whole) <= M.MAX_PROMPT then
    return whole, false
  end
  return M.visible(header or "Question"), true
end

--- How an item of a multi-select question shows: options with a check
--- box, the controls (Other…, Done, Previous question) with their own mark.
function M.format_multi_item(item)
  if item.control then
    return item.label .. (item.description and (" — " .. item.description) or "")
  end
  return (item.checked and "[x] " or "[ ] ") .. M.format_option(item)
end

--- The items of a multi-select question: the options (and answers typed
--- with Other…) checked as `picked` says, then the controls.
function M.multi_items(q, picked, typed, can_go_back)
  local items = {}
  for i, o in ipairs(q.options or {}) do
    table.insert(items, { label = o.label, description = o.description, index = i, checked = picked[i] == true })
  end
  for i, t in ipairs(typed) do
    table.insert(items, { label = t, typed = i, checked = true })
  end
  local n = vim.tbl_count(picked) + #typed
  table.insert(items, { label = M.DONE, description = n == 1 and "1 picked" or (n .. " picked"), control = "done" })
  table.insert(items, { label = M.OTHER, description = "type an answer of your own", control = "other" })
  if can_go_back then
    table.insert(items, { label = M.BACK, control = "back" })
  end
  return items
end

--- A multi-select question as a checklist: picking an option ticks or
--- unticks it and shows the list again; Done answers with the ticked
--- labels in the options' order, then the typed answers.
local function ask_multi(q, opts, can_go_back, prompt)
  local picked, typed = {}, {}
  local shown = false
  while true do
    -- Neovim's own picker lists in the command line, after what the last
    -- one left there: the list shown again starts on a clean screen.
    if shown and builtin(ui(opts).select or vim.ui.select) then
      vim.cmd("redraw")
    end
    shown = true
    local choice = select(opts, M.multi_items(q, picked, typed, can_go_back), {
      prompt = prompt .. " (pick any, then Done)",
      format_item = M.format_multi_item,
      kind = "toolhost.question",
    })
    if not choice then
      return nil
    elseif choice.control == "back" then
      return M.BACK
    elseif choice.control == "other" then
      local text = input(opts, { prompt = "Your answer: ", kind = "toolhost.question" })
      if text and vim.trim(text) ~= "" then
        table.insert(typed, vim.trim(text))
      end
    elseif choice.control == "done" then
      local labels = {}
      for i, o in ipairs(q.options or {}) do
        if picked[i] then
          table.insert(labels, o.label)
        end
      end
      vim.list_extend(labels, typed)
      if #labels > 0 then
        return table.concat(labels, ", ")
      end
      require("toolhost.client").echo("toolhost: pick at least one answer, then Done", "WarningMsg")
    elseif choice.typed then
      table.remove(typed, choice.typed)
    else
      picked[choice.index] = not picked[choice.index] or nil
    end
  end
end

--- Asks one question; returns the answer, M.BACK, or nil when dismissed.
--- Through a replaced (floating) vim.ui whose title would cut a long
--- question, the question is shown whole in a card above the picker.
local function ask_one(q, opts, can_go_back)
  local prompt, card = M.question_prompt(q, ui(opts).select or vim.ui.select)
  if card or (q.multiSelect and not builtin(ui(opts).select or vim.ui.select)) then
    open_card({ M.visible(q.question) })
  end
  local answer = (function()
    if q.multiSelect then
      return ask_multi(q, opts, can_go_back, prompt)
    end
    local items = vim.deepcopy(q.options or {})
    table.insert(items, { label = M.OTHER, description = "type your own answer", other = true })
    if can_go_back then
      table.insert(items, { label = M.BACK, back = true })
    end
    local choice = select(opts, items, { prompt = prompt, format_item = M.format_option, kind = "toolhost.question" })
    if not choice then
      return nil
    end
    if choice.back then
      return M.BACK
    end
    if choice.other then
      local text = input(opts, { prompt = card and "Your answer: " or (M.visible(q.question) .. " "), kind = "toolhost.question" })
      text = text and vim.trim(text) or ""
      return text ~= "" and text or nil
    end
    return choice.label
  end)()
  close_card()
  return answer
end

--- Handles toolhost/askUserQuestion. A dismissed dialog answers
--- {answers = {}, dismissed = true}.
function M.ask_user_question(params, opts)
  local asking = { call_id = type(params) == "table" and params.callId or nil }
  table.insert(M.asking, asking)
  opts = vim.tbl_extend("force", opts or {}, { asking = asking })
  local answers = vim.empty_dict()
  local questions = (params and params.questions) or {}
  local i = 1
  local dismissed = false
  while i <= #questions do
    local q = questions[i]
    local answer = ask_one(q, opts, i > 1)
    if not answer then
      dismissed = true
      break
    end
    if answer == M.BACK then
      i = i - 1
    else
      answers[q.question] = answer
      i = i + 1
    end
  end
  for k = #M.asking, 1, -1 do
    if M.asking[k] == asking then
      table.remove(M.asking, k)
    end
  end
  if dismissed then
    return { answers = vim.empty_dict(), dismissed = true }
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

--- Longest description of the agent shown in a permission prompt: it
--- comes before the command and must not push it out of view.
M.MAX_DESCRIPTION = 120

--- text on one line with every character that changes how text shows
--- written out: control characters (terminal escapes, newlines), C1
--- controls, bidirectional marks, embeddings, overrides and isolates, and
--- line separators ("Trojan Source"), so the user sees what they approve.
function M.visible(text)
  text = text:gsub("[%z\1-\31\127]", function(c)
    local named = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
    return named[c] or string.format("\\x%02x", c:byte())
  end)
  text = text:gsub("\194[\128-\159]", function(c)
    return string.format("\\u%04x", c:byte(2))
  end)
  text = text:gsub("\226\128[\142\143\168-\174]", function(c)
    return string.format("\\u%04x", 0x2000 + c:byte(3) - 0x80)
  end)
  text = text:gsub("\226\129[\166-\169]", function(c)
    return string.format("\\u%04x", 0x2040 + c:byte(3) - 0x80)
  end)
  return (text:gsub("\216\156", "\\u061c"))
end

--- The one-line prompt of a permission request: the risk in brackets
--- first (a narrow float's title cut at its end never hides it), then the
--- question, the model's description of the call, and what it runs,
--- unless the question shows that already: the command appears once.
function M.permission_prompt(p)
  local title = (p.title and p.title ~= "") and p.title or ("Allow " .. tostring(p.toolName) .. "?")
  title = M.visible(title)
  local risk = p.risk and ("[risk: " .. tostring(p.risk) .. "]  ") or ""
  local why = ""
  if type(p.input) == "table" and type(p.input.description) == "string" and p.input.description ~= "" then
    local d = p.input.description
    if #d > M.MAX_DESCRIPTION then
      d = d:sub(1, M.MAX_DESCRIPTION - 3) .. "..."
    end
    why = " (" .. M.visible(d) .. ")"
  end
  local what = ""
  if p.preview and p.preview.kind ~= "diff" and p.preview.text then
    what = p.preview.text
  elseif not p.preview then
    what = M.describe_input(p.toolName or "", p.input)
  end
  what = M.visible((what:gsub("\n", " ⏎ ")))
  if #what > 160 then
    what = what:sub(1, 157) .. "..."
  end
  -- The server's question names a short command itself ("Run `ls`?").
  if what ~= "" and title:find(what:sub(1, 60), 1, true) then
    what = ""
  end
  return risk .. title .. why .. (what ~= "" and (" — " .. what) or "")
end

--- Whether a call's risk is high enough that the first (default) item of
--- the picker must not allow it.
function M.is_high_risk(p)
  return p.risk == "high" or p.risk == "critical"
end

--- The items of a permission prompt: tables {label, detail?}. "Always
--- allow" names the rules it would save; a high-risk call lists Deny first,
--- so Enter on the picker's first item never approves it.
function M.permission_items(p)
  local always = { label = M.ALLOW_ALWAYS }
  if type(p.suggestions) == "table" and #p.suggestions > 0 then
    always.detail = "saves " .. table.concat(p.suggestions, ", ")
  end
  local items = { { label = M.ALLOW }, always, { label = M.DENY }, { label = M.DENY_FEEDBACK, detail = "tell the agent why, or what to do instead" } }
  if M.is_high_risk(p) then
    items = { items[3], items[4], items[1], items[2] }
  end
  return items
end

--- How a permission item shows in the picker.
function M.format_permission_item(item)
  if type(item) ~= "table" then
    return tostring(item)
  end
  return item.detail and (item.label .. " — " .. item.detail) or item.label
end

--- Maps the chosen action (nil: dismissed) and the feedback typed with
--- "Deny with feedback…" to the answer. A plain denial carries no words: the
--- server says the user denied it; feedback reaches the model verbatim.
function M.permission_answer(choice, feedback)
  local label = type(choice) == "table" and choice.label or choice
  if label == M.ALLOW then
    return { decision = "allow" }
  elseif label == M.ALLOW_ALWAYS then
    return { decision = "allowAlways" }
  elseif label == M.DENY_FEEDBACK and feedback and vim.trim(feedback) ~= "" then
    return { decision = "deny", message = feedback }
  elseif label == M.DENY or label == M.DENY_FEEDBACK then
    return { decision = "deny" }
  end
  return nil
end

--- The rule choices of "Always allow": the suggestions (as narrow as the
--- call) first, then each broader suggestion on its own.
function M.rule_choices(p)
  local out = {}
  if type(p.suggestions) == "table" and #p.suggestions > 0 then
    table.insert(out, { label = table.concat(p.suggestions, ", "), detail = "exactly this call from now on", rules = p.suggestions })
  end
  for _, r in ipairs(p.broaderSuggestions or {}) do
    table.insert(out, { label = r, detail = "every call with this prefix", rules = { r } })
  end
  return out
end

--- Which rules "Always allow" saves: the only choice, or the one the user
--- picks when broader ones are offered. Returns the rules (an empty list
--- when none are offered), or nil when the picker was closed.
function M.pick_rules(p, opts)
  local choices = M.rule_choices(p)
  if #choices <= 1 then
    return choices[1] and choices[1].rules or {}
  end
  local picked = select(opts, choices, {
    prompt = "Always allow: which rule to save?",
    kind = "toolhost.rules",
    format_item = function(c)
      return c.label .. " — " .. c.detail
    end,
  })
  return picked and picked.rules or nil
end

--- Handles toolhost/requestPermission. A diff preview opens in a tab that
--- stays open, scrollable and searchable, until the user answers from it
--- (a allow, A always allow, d deny, f deny with feedback, <CR> the menu)
--- or from the picker. A dismissed prompt answers null, which the server
--- reports as dismissed.
function M.request_permission(params, opts)
  local view
  if params.preview and params.preview.kind == "diff" and params.preview.text then
    local title = (params.title and params.title ~= "") and params.title or (tostring(params.toolName) .. "?")
    local name = params.preview.path and vim.fn.fnamemodify(params.preview.path, ":t") or title
    view = review.open_text(review.NAME_PREFIX .. name, params.preview.text, "diff")
  end
  local items = M.permission_items(params)
  local by = {}
  for _, item in ipairs(items) do
    by[item.label] = item
  end
  local answer
  while true do
    local choice = M.choose(opts, {
      items = items,
      call_id = params.callId,
      prompt = M.permission_prompt(params),
      kind = "toolhost.permission",
      format_item = M.format_permission_item,
      view = view,
      labels = view and { "review: " .. M.permission_prompt(params) } or nil,
      keys = {
        { lhs = "a", desc = "allow", item = by[M.ALLOW] },
        { lhs = "A", desc = "always allow", item = by[M.ALLOW_ALWAYS] },
        { lhs = "d", desc = "deny", item = by[M.DENY] },
        { lhs = "f", desc = "feedback", item = by[M.DENY_FEEDBACK] },
      },
    })
    if choice == nil then
      break
    end
    if choice.label == M.ALLOW_ALWAYS then
      local rules = M.pick_rules(params, opts)
      if rules then
        answer = #rules > 0 and { decision = "allowAlways", rules = rules } or { decision = "allowAlways" }
        break
      end
      -- The rule picker was closed: back to the choice.
    elseif choice.label ~= M.DENY_FEEDBACK then
      answer = M.permission_answer(choice)
      break
    end
    if choice.label == M.DENY_FEEDBACK then
      local text = input(opts, { prompt = "Why not, or what should the agent do instead? ", kind = "toolhost.feedback" })
      if text and vim.trim(text) ~= "" then
        answer = M.permission_answer(choice, text)
        break
      end
      -- No words typed: back to the choice.
    end
  end
  if view then
    view.close()
  end
  return answer or vim.NIL
end

return M
