-- The editor's language intelligence in Neovim 0.7.2, with a real language
-- server the test's own config starts: typescript-language-server from
-- test/lsp (npm ci there). An Edit introducing a type error returns it, the
-- Edit fixing it reports none, an Edit changing no diagnostics answers
-- without waiting (TypeScript's server asked), the same with a server that
-- cannot be asked (its reports waited for), LSP goToDefinition and
-- findReferences are answered by the server attached to the file's buffer.
local h = require("harness")

if not h.has_tsls("intel", "to run the language-server cases") then
  return
end

-- shape.ts gives the other operations something to find: an interface
-- with an implementation, and a method calling add.
local SHAPE = table.concat({
  'import { add } from "./util";',
  "export interface Shape {",
  "  area(): number;",
  "}",
  "export class Square implements Shape {",
  "  area(): number {",
  "    return add(2, 2);",
  "  }",
  "}",
  "",
}, "\n")

--- Makes an Edit of file; returns its result, its text whole and the
--- milliseconds it took.
local function timed_edit(file, old, new)
  local started = vim.loop.hrtime()
  local res = h.call("Edit", { file_path = file, old_string = old, new_string = new })
  local ms = (vim.loop.hrtime() - started) / 1e6
  local all = ""
  for _, c in ipairs(res.content) do
    all = all .. (c.text or "") .. "\n"
  end
  return res, all, ms
end

--- Starts the server on the TypeScript project (util.ts, app.ts using
--- its add, shape.ts) with the edit settings given; returns its folder.
local function start_project(edit)
  return h.start_server({
    ["tsconfig.json"] = '{"compilerOptions": {"strict": true, "noUnusedLocals": true}, "include": ["src"]}',
    ["src/util.ts"] = "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    ["src/app.ts"] = 'import { add } from "./util";\nconst total: number = add(1, 2);\nconsole.log(total);\n',
    ["src/shape.ts"] = SHAPE,
  }, { permission_mode = "acceptEdits", settings = { edit = edit } })
end

h.test("intel: an Edit reports the type error it made and none once fixed; LSP answers all nine operations", function()
  -- A bound generous enough for a loaded machine: the wait ends as soon
  -- as the diagnostics settle, so it costs nothing when the server is quick.
  local dir = start_project({ diagnosticsWaitMs = 15000 })
  local id, stop_tsls = h.start_tsls(dir)
  local app = dir .. "/src/app.ts"
  -- How often the language server reported on app.ts: the Edit below is
  -- made once it has (as by a user who opened the file a moment before),
  -- so that its report on the opened text cannot pass for the Edit's.
  local reports = 0
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = vim.api.nvim_create_augroup("intel_spec_reports", { clear = true }),
    callback = function(args)
      if vim.api.nvim_buf_get_name(args.buf) == app then
        reports = reports + 1
      end
    end,
  })
  vim.cmd("edit " .. vim.fn.fnameescape(app))
  h.wait_for(function()
    local c = vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end, "typescript-language-server to start", 60000)

  local def
  h.wait_for(function()
    def = h.call("LSP", { operation = "goToDefinition", filePath = "src/app.ts", line = 2, character = 23 })
    return def.content[1].text:find("src/util.ts", 1, true) ~= nil
  end, "goToDefinition to reach util.ts", 60000)
  h.match(def.content[1].text, "Defined in src/util%.ts:1:17", "goToDefinition")

  local refs = h.call("LSP", { operation = "findReferences", filePath = "src/app.ts", line = 2, character = 23 })
  local text = refs.content[1].text
  h.match(text, "^Found 5 references across 3 files:", "findReferences")
  h.match(text, "src/app%.ts:", "findReferences")
  h.match(text, "Line 2:23", "findReferences")

  -- The other seven operations, each in Claude Code's shape.
  local function lsp(input)
    local res = h.call("LSP", input)
    h.truthy(not res.isError, input.operation .. ": " .. res.content[1].text)
    return res.content[1].text
  end
  h.match(lsp({ operation = "hover", filePath = "src/app.ts", line = 2, character = 23 }),
    "^Hover info at 2:23:\n\n.*add%(a: number, b: number%): number", "hover")
  local symbols = lsp({ operation = "documentSymbol", filePath = "src/shape.ts", line = 1, character = 1 })
  h.match(symbols, "Square %(Class%) %- Line 5", "documentSymbol")
  h.match(symbols, "area %(Method%) %- Line 6", "documentSymbol")
  local found = lsp({ operation = "workspaceSymbol", filePath = "src/shape.ts", line = 1, character = 1, query = "Square" })
  h.match(found, "^Found %d+ symbols? in workspace:\n\nsrc/shape%.ts:\n  Square %(Class%) %- Line 5", "workspaceSymbol")
  h.match(lsp({ operation = "goToImplementation", filePath = "src/shape.ts", line = 2, character = 18 }),
    "^Defined in src/shape%.ts:5:", "goToImplementation")
  h.match(lsp({ operation = "prepareCallHierarchy", filePath = "src/util.ts", line = 1, character = 17 }),
    "^Call hierarchy item: add %(Function%) %- src/util%.ts:1", "prepareCallHierarchy")
  local incoming = lsp({ operation = "incomingCalls", filePath = "src/util.ts", line = 1, character = 17 })
  h.match(incoming, "^Found %d incoming calls?:", "incomingCalls")
  h.match(incoming, "src/shape%.ts:\n  area %(Method%) %- Line 6 %[calls at: 7:12%]", "incomingCalls")
  h.match(lsp({ operation = "outgoingCalls", filePath = "src/shape.ts", line = 6, character = 3 }),
    "^Found 1 outgoing call:\n\nsrc/util%.ts:\n  add %(Function%) %- Line 1 %[called from: 7:12%]", "outgoingCalls")

  h.wait_for(function()
    return reports > 0
  end, "the language server's first report on app.ts", 60000)
  h.truthy(not h.call("Read", { file_path = app }).isError, "Read")
  local broke, all, broke_ms = timed_edit(app, "= add(1, 2);", '= "three";')
  h.match(all, "%[Line 2:7%] Type 'string' is not assignable to type 'number'%. %[2322%]", "the breaking Edit")
  io.stdout:write(string.format("# intel: the breaking Edit took %d ms (diagnostics bound 15000 ms)\n", broke_ms))

  local _, fixed_all, fixed_ms = timed_edit(app, '= "three";', "= add(1, 2);")
  h.truthy(not fixed_all:find("2322", 1, true), "the fixing Edit reports no error: " .. fixed_all)
  io.stdout:write(string.format("# intel: the fixing Edit took %d ms (diagnostics bound 15000 ms)\n", fixed_ms))

  -- An Edit leaving the diagnostics as they were: the server publishes
  -- nothing for it, so a wait for its report would last the whole bound;
  -- TypeScript's server, asked, answers at once.
  local _, same_all, same_ms = timed_edit(app, "console.log(total);", "console.log(total); // sum")
  h.truthy(not same_all:find("diagnostic", 1, true) and same_ms < 7500,
    string.format("the Edit changing no diagnostics took %d ms (bound 15000 ms): %s", same_ms, same_all))
  io.stdout:write(string.format("# intel: an Edit changing no diagnostics took %d ms (diagnostics bound 15000 ms)\n", same_ms))

  -- A language server that cannot pass requests on to TypeScript's (any
  -- other language's): the plugin waits for its reports instead.
  local provider = vim.lsp.get_client_by_id(id).server_capabilities.executeCommandProvider
  provider.commands = vim.tbl_filter(function(c)
    return c ~= "typescript.tsserverRequest"
  end, provider.commands)
  local _, waited_all, waited_ms = timed_edit(app, "= add(1, 2);", '= "three";')
  h.match(waited_all, "%[Line 2:7%] Type 'string' is not assignable to type 'number'%. %[2322%]", "the breaking Edit, waiting")
  local _, rewaited_all, rewaited_ms = timed_edit(app, '= "three";', "= add(1, 2);")
  h.truthy(not rewaited_all:find("2322", 1, true), "the fixing Edit, waiting, reports no error: " .. rewaited_all)
  io.stdout:write(string.format("# intel: waiting for the reports, the Edits took %d and %d ms\n", waited_ms, rewaited_ms))
  vim.api.nvim_del_augroup_by_name("intel_spec_reports")
  stop_tsls()
end)

h.test("intel: edit.diagnostics on, errors and off each add exactly what they say; an attached agent gets the same", function()
  local dir = start_project({ diagnosticsWaitMs = 15000 })
  -- Unused locals are style checks: warnings, as VS Code reports them.
  local id, stop_tsls = h.start_tsls(dir, { style_warnings = true })
  local app = dir .. "/src/app.ts"
  local reports = 0
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = vim.api.nvim_create_augroup("intel_spec_modes", { clear = true }),
    callback = function(args)
      if vim.api.nvim_buf_get_name(args.buf) == app then
        reports = reports + 1
      end
    end,
  })
  vim.cmd("edit " .. vim.fn.fnameescape(app))
  h.wait_for(function()
    local c = vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end, "typescript-language-server to start", 60000)
  h.wait_for(function()
    return reports > 0
  end, "the language server's first report on app.ts", 60000)
  h.truthy(not h.call("Read", { file_path = app }).isError, "Read")

  -- The agent attached through toolhost mcp --attach, as Claude Code would be.
  local job, send, answer = h.mcp_job(dir)
  send({ id = 1, method = "initialize", params = { protocolVersion = "2025-06-18", capabilities = vim.empty_dict(),
    clientInfo = { name = "claude-code", version = "1" } } })
  answer(1, "the MCP handshake")
  send({ method = "notifications/initialized" })
  local next_id = 1
  local function agent_call(name, args)
    next_id = next_id + 1
    send({ id = next_id, method = "tools/call", params = { name = name, arguments = args } })
    local res = answer(next_id, "the agent's " .. name).result
    local all = ""
    for _, c in ipairs(res.content) do
      all = all .. (c.text or "") .. "\n"
    end
    return res, all
  end
  local def_res, def = agent_call("LSP", { operation = "goToDefinition", filePath = "src/app.ts", line = 2, character = 23 })
  h.truthy(not def_res.isError, "the agent's LSP: " .. def)
  h.match(def, "Defined in src/util%.ts:1:17", "the agent's goToDefinition")
  local _, refs = agent_call("LSP", { operation = "findReferences", filePath = "src/app.ts", line = 2, character = 23 })
  h.match(refs, "^Found 5 references across 3 files:", "the agent's findReferences")
  h.truthy(not agent_call("Read", { file_path = app }).isError, "the agent's Read")

  local err = "%[Line 2:7%] Type 'string' is not assignable to type 'number'%. %[2322%]"
  local warn = "⚠ %[Line 3:7%] 'unused' is declared but its value is never read%. %[6133%]"
  local breaking = '= "three";\nconst unused = 1;'
  local client = vim.lsp.get_client_by_id(require("toolhost").state.client_id)
  for _, mode in ipairs({ "on", "errors", "off" }) do
    -- A client changes settings while the server runs with
    -- workspace/didChangeConfiguration.
    client.notify("workspace/didChangeConfiguration", { settings = { edit = { diagnostics = mode, diagnosticsWaitMs = 15000 } } })
    for _, by in ipairs({ "editor", "agent" }) do
      local started = vim.loop.hrtime()
      local res, all
      if by == "editor" then
        res, all = timed_edit(app, "= add(1, 2);", breaking)
      else
        res, all = agent_call("Edit", { file_path = app, old_string = "= add(1, 2);", new_string = breaking })
      end
      local ms = (vim.loop.hrtime() - started) / 1e6
      local what = string.format("edit.diagnostics %s, the %s's Edit", mode, by)
      h.truthy(not res.isError, what .. ": " .. all)
      if mode == "off" then
        h.truthy(not all:find("diagnostic", 1, true), what .. " added diagnostics: " .. all)
      else
        h.match(all, "<new%-diagnostics>", what)
        h.match(all, "✖ " .. err, what)
        if mode == "on" then
          h.match(all, warn, what)
        else
          h.truthy(not all:find("6133", 1, true), what .. " added the warning: " .. all)
        end
      end
      io.stdout:write(string.format("# intel: %s took %d ms (diagnostics bound 15000 ms)\n", what, ms))
      local _, fixed = timed_edit(app, breaking, "= add(1, 2);")
      h.truthy(not fixed:find("2322", 1, true) and not fixed:find("6133", 1, true), what .. ", the fixing Edit: " .. fixed)
    end
  end
  -- With off the error is there all the same: getDiagnostics (not an
  -- edit's wait) reports what the server checked.
  h.truthy(not timed_edit(app, "= add(1, 2);", breaking).isError, "the last breaking Edit")
  h.wait_for(function()
    local d = h.call("getDiagnostics", { uri = "src/app.ts" })
    return d.content[1].text:find("2322", 1, true) ~= nil
  end, "typescript-language-server to report the error", 60000)
  vim.fn.jobstop(job)
  vim.api.nvim_del_augroup_by_name("intel_spec_modes")
  stop_tsls()
end)
