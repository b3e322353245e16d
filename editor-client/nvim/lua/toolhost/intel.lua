-- The editor's language intelligence for the agent: toolhost/diagnostics
-- answered from vim.diagnostic (a buffer whose language server passes
-- requests on to TypeScript's server asked about its text as it is now;
-- the others waited for, within the server's bound, to follow an edit the
-- agent just made), and
-- toolhost/languageFeature answered by the language servers attached to
-- the file's buffer (loaded, unshown, when it is not open).
local async = require("toolhost.async")

local M = {}

--- How long diagnostics must stay unchanged to count as settled.
local QUIET_MS = 200
--- How often a wait for a language server to attach looks again (Neovim
--- 0.7 has no LspAttach event).
local ATTACH_POLL_MS = 50
--- How long a request without a wait (the diagnostics before an edit, the
--- getDiagnostics tool) gives TypeScript's server to answer before the
--- editor's last reports are taken instead.
local ASK_BOUND_MS = 5000
--- The command through which typescript-language-server and vtsls pass a
--- request on to TypeScript's server.
local TSSERVER_REQUEST = "typescript.tsserverRequest"

-- Per buffer: how often its diagnostics changed, and that count when the
-- agent's last edit of it began.
local changes = {}
local edited_at = {}
-- Per buffer: the server asked for its diagnostics before an edit (the
-- baseline it compares with), so diagnostics after the edit are wanted;
-- the value is the edit's bound (firstWaitMs).
local baseline_asked = {}
-- Per buffer: how long its last edit waited for the server's first
-- diagnostics, taken off the wait after that edit.
local first_waited = {}
-- Functions called on every change of diagnostics.
local listeners = {}
local augroup

--- Starts counting diagnostics changes (once per editor).
function M.setup()
  if augroup then
    return
  end
  augroup = vim.api.nvim_create_augroup("toolhost_intel", { clear = true })
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = augroup,
    callback = function(args)
      changes[args.buf] = (changes[args.buf] or 0) + 1
      for l in pairs(listeners) do
        l()
      end
    end,
  })
end

--- The language clients of bufnr other than toolhost itself.
local function language_clients(bufnr)
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name ~= "toolhost" then
      table.insert(out, c)
    end
  end
  return out
end

--- The language client of bufnr that passes requests on to TypeScript's
--- server, if one is attached.
local function tsserver_client(bufnr)
  for _, c in ipairs(language_clients(bufnr)) do
    local provider = c.server_capabilities and c.server_capabilities.executeCommandProvider
    if type(provider) == "table" and vim.tbl_contains(provider.commands or {}, TSSERVER_REQUEST) then
      return c
    end
  end
  return nil
end

local function followed(bufnr)
  local at = edited_at[bufnr]
  return at == nil or (changes[bufnr] or 0) > at
end

--- Waits, at most wait_ms, until each buffer's diagnostics changed after
--- its last edit and stayed unchanged for QUIET_MS.
local function settle(bufnrs, wait_ms)
  local pending = {}
  for _, b in ipairs(bufnrs) do
    if edited_at[b] ~= nil then
      table.insert(pending, b)
    end
  end
  if not wait_ms or wait_ms <= 0 or #pending == 0 then
    return
  end
  async.await(function(done)
    local quiet
    local listener
    local function finish()
      listeners[listener] = nil
      if quiet then
        quiet:stop()
        quiet:close()
        quiet = nil
      end
      done(true)
    end
    listener = function()
      for _, b in ipairs(pending) do
        if not followed(b) then
          return
        end
      end
      if quiet then
        quiet:stop()
        quiet:close()
      end
      quiet = vim.loop.new_timer()
      quiet:start(QUIET_MS, 0, vim.schedule_wrap(finish))
    end
    listeners[listener] = true
    listener()
    -- The deadline: async.await answers nil when wait_ms passes.
    vim.defer_fn(function()
      if listeners[listener] then
        finish()
      end
    end, wait_ms)
  end)
end

--- Marks that an edit of the documents of an applyEdit's params begins.
--- A buffer its language server has published nothing for yet first
--- waits, at most the edit's bound (the baseline request's firstWaitMs),
--- for the diagnostics of the text as the
--- edit finds it: the server may still be answering the buffer's opening,
--- and that answer, arriving after the edit, would pass for the edit's.
function M.editing(params)
  local edit = params and params.edit or {}
  local marked, first, first_ms = {}, {}, 0
  local function mark(uri)
    local bufnr = vim.uri_to_bufnr(uri)
    -- Only a buffer a language server watches will see its diagnostics
    -- change; a wait for any other would only run out its time.
    if vim.api.nvim_buf_is_loaded(bufnr) and #language_clients(bufnr) > 0 then
      table.insert(marked, bufnr)
      first_waited[bufnr] = nil
      -- Only when the server will ask for the edit's diagnostics (it took a
      -- baseline): with edit.diagnostics off nothing waits.
      -- A buffer TypeScript's server is asked about needs no first report.
      if changes[bufnr] == nil and baseline_asked[bufnr] and not tsserver_client(bufnr) then
        edited_at[bufnr] = 0
        table.insert(first, bufnr)
        first_ms = math.max(first_ms, baseline_asked[bufnr])
      end
    else
      edited_at[bufnr] = nil
    end
  end
  for uri in pairs(edit.changes or {}) do
    mark(uri)
  end
  for _, c in ipairs(edit.documentChanges or {}) do
    if c.textDocument then
      mark(c.textDocument.uri)
    end
  end
  if #first > 0 and coroutine.running() then
    local start = vim.loop.now()
    settle(first, first_ms)
    local took = vim.loop.now() - start
    for _, b in ipairs(first) do
      first_waited[b] = took
    end
  end
  for _, b in ipairs(marked) do
    edited_at[b] = changes[b] or 0
    baseline_asked[b] = nil
  end
end

local function lsp_diagnostic(d)
  local code = d.code
  if code == nil and d.user_data and d.user_data.lsp then
    code = d.user_data.lsp.code
  end
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    message = d.message,
    code = code,
    source = d.source,
  }
end

--- Asks TypeScript's server for bufnr's diagnostics as of its text now
--- and passes them to the client's publishDiagnostics handler, as if the
--- server had published them: the editor shows them, and the user's
--- handler (a severity filter, say) applies as to any report. Returns
--- whether it did; false when no attached client passes requests on to
--- TypeScript's server or it does not answer within timeout_ms.
---
--- TypeScript's language servers, like VS Code's, publish nothing when an
--- edit leaves a file's diagnostics as they were, so a wait for a change
--- would last the whole bound; asking cannot take a late report about the
--- text before the edit for the answer either. The client sends the
--- buffer's pending changes before the request.
local function ask_typescript(bufnr, uri, timeout_ms)
  if not vim.api.nvim_buf_is_loaded(bufnr) or timeout_ms <= 0 then
    return false
  end
  local client = tsserver_client(bufnr)
  if not client then
    return false
  end
  local deadline = vim.loop.now() + timeout_ms
  local found = {}
  for _, command in ipairs({ "syntacticDiagnosticsSync", "semanticDiagnosticsSync", "suggestionDiagnosticsSync" }) do
    local answer = async.await(function(done)
      local params = { command = TSSERVER_REQUEST, arguments = { command, { file = uri } } }
      local ok = client.request("workspace/executeCommand", params, function(err, result)
        done({ err = err, result = result })
      end, bufnr)
      if not ok then
        done({ err = "not sent" })
      end
    end, math.max(deadline - vim.loop.now(), 1))
    local r = answer and not answer.err and answer.result
    if type(r) ~= "table" or r.type ~= "response" or r.success ~= true or type(r.body) ~= "table" then
      return false
    end
    vim.list_extend(found, r.body)
  end
  -- What the server would publish (typescript-language-server's
  -- conversion): LSP positions count UTF-16 units from 0, tsserver's from 1.
  local severities = { error = 1, warning = 2, suggestion = 4 }
  local published = {}
  for _, d in ipairs(found) do
    local shaped = type(d) == "table" and type(d.start) == "table" and type(d["end"]) == "table"
      and type(d.text) == "string" and type(d.category) == "string"
    if not shaped then
      return false
    end
    local tags = {}
    if d.reportsUnnecessary then
      table.insert(tags, 1)
    end
    if d.reportsDeprecated then
      table.insert(tags, 2)
    end
    table.insert(published, {
      range = {
        start = { line = d.start.line - 1, character = d.start.offset - 1 },
        ["end"] = { line = d["end"].line - 1, character = d["end"].offset - 1 },
      },
      severity = severities[d.category] or 1,
      message = d.text,
      code = d.code,
      source = d.source or "typescript",
      tags = #tags > 0 and tags or nil,
    })
  end
  local method = "textDocument/publishDiagnostics"
  local handler = (client.handlers and client.handlers[method]) or vim.lsp.handlers[method]
  handler(nil, { uri = uri, diagnostics = published }, { method = method, client_id = client.id, bufnr = bufnr })
  return true
end

--- Handles toolhost/diagnostics.
function M.diagnostics(params)
  params = params or {}
  local uris = params.uris or {}
  local bufnrs = {}
  for _, uri in ipairs(uris) do
    table.insert(bufnrs, vim.uri_to_bufnr(uri))
  end
  local wait_ms = params.waitMs
  if wait_ms and wait_ms > 0 then
    -- One bound for the whole edit: what its first wait took is spent.
    local spent = 0
    for _, b in ipairs(bufnrs) do
      spent = math.max(spent, first_waited[b] or 0)
      first_waited[b] = nil
    end
    wait_ms = math.max(wait_ms - spent, 0)
  elseif (params.firstWaitMs or 0) > 0 then
    for _, b in ipairs(bufnrs) do
      baseline_asked[b] = params.firstWaitMs
    end
  end
  local started = vim.loop.now()
  local unasked = {}
  for i, b in ipairs(bufnrs) do
    local bound = (wait_ms and wait_ms > 0) and wait_ms or ASK_BOUND_MS
    if not ask_typescript(b, uris[i], bound - (vim.loop.now() - started)) then
      table.insert(unasked, b)
    end
  end
  if wait_ms and wait_ms > 0 then
    wait_ms = wait_ms - (vim.loop.now() - started)
  end
  settle(unasked, wait_ms)
  local items = {}
  if #bufnrs > 0 then
    for i, b in ipairs(bufnrs) do
      local ds = {}
      for _, d in ipairs(vim.diagnostic.get(b)) do
        table.insert(ds, lsp_diagnostic(d))
      end
      table.insert(items, { uri = uris[i], diagnostics = ds })
    end
  else
    local by_buf = {}
    for _, d in ipairs(vim.diagnostic.get()) do
      by_buf[d.bufnr] = by_buf[d.bufnr] or {}
      table.insert(by_buf[d.bufnr], lsp_diagnostic(d))
    end
    for b, ds in pairs(by_buf) do
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= "" then
        table.insert(items, { uri = vim.uri_from_bufnr(b), diagnostics = ds })
      end
    end
  end
  return { items = items }
end

--- The loaded buffer of uri with its language clients, loading it (without
--- showing it) and waiting, at most timeout_ms, for a server to attach.
local function attached_buffer(uri, timeout_ms)
  local bufnr = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    vim.fn.bufload(bufnr)
  end
  if vim.api.nvim_buf_get_option(bufnr, "filetype") == "" then
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd("filetype detect")
    end)
  end
  local function ready()
    local cs = {}
    for _, c in ipairs(language_clients(bufnr)) do
      if c.initialized then
        table.insert(cs, c)
      end
    end
    return cs
  end
  local clients = ready()
  if #clients > 0 then
    return bufnr, clients
  end
  async.await(function(done)
    local timer = vim.loop.new_timer()
    local waited = 0
    timer:start(ATTACH_POLL_MS, ATTACH_POLL_MS, vim.schedule_wrap(function()
      waited = waited + ATTACH_POLL_MS
      if #ready() > 0 or waited >= timeout_ms then
        if not timer:is_closing() then
          timer:stop()
          timer:close()
        end
        done(true)
      end
    end))
  end)
  return bufnr, ready()
end

--- Sends method to the first of clients that supports it; returns its
--- result (nil when none answered within timeout_ms) or raises its error.
local function ask(clients, bufnr, method, params, timeout_ms)
  local client
  for _, c in ipairs(clients) do
    if c.supports_method(method) then
      client = c
      break
    end
  end
  if not client then
    error("no language server attached to this file answers " .. method, 0)
  end
  local answer = async.await(function(done)
    client.request(method, params, function(err, result)
      done({ err = err, result = result })
    end, bufnr)
  end, timeout_ms)
  if answer == nil then
    error(client.name .. " did not answer " .. method .. " within " .. timeout_ms .. " ms", 0)
  end
  if answer.err then
    error(client.name .. ": " .. (answer.err.message or vim.inspect(answer.err)), 0)
  end
  return answer.result
end

local METHODS = {
  goToDefinition = "textDocument/definition",
  goToImplementation = "textDocument/implementation",
  findReferences = "textDocument/references",
  hover = "textDocument/hover",
  documentSymbol = "textDocument/documentSymbol",
  workspaceSymbol = "workspace/symbol",
  prepareCallHierarchy = "textDocument/prepareCallHierarchy",
}

--- Handles toolhost/languageFeature: the language servers' answer in
--- LSP's shape. Errors become error replies with their message.
function M.language_feature(params)
  local timeout_ms = (params and params.timeoutMs) or 10000
  local op = params.operation
  local bufnr, clients = attached_buffer(params.uri, timeout_ms)
  if #clients == 0 then
    error("no language server attached to " .. vim.uri_to_fname(params.uri) .. " within " .. timeout_ms .. " ms", 0)
  end
  local doc = { textDocument = { uri = params.uri }, position = params.position }
  if op == "findReferences" then
    doc.context = { includeDeclaration = true }
  elseif op == "documentSymbol" then
    doc = { textDocument = { uri = params.uri } }
  elseif op == "workspaceSymbol" then
    doc = { query = params.query or "" }
  end
  if METHODS[op] then
    return ask(clients, bufnr, METHODS[op], doc, timeout_ms) or vim.NIL
  end
  if op == "incomingCalls" or op == "outgoingCalls" then
    local items = ask(clients, bufnr, "textDocument/prepareCallHierarchy", doc, timeout_ms)
    if not items or #items == 0 then
      return {}
    end
    local method = op == "incomingCalls" and "callHierarchy/incomingCalls" or "callHierarchy/outgoingCalls"
    return ask(clients, bufnr, method, { item = items[1] }, timeout_ms) or {}
  end
  error("unknown operation " .. tostring(op), 0)
end

return M
