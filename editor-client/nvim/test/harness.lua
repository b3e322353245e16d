-- A small test runner for headless Neovim: named cases, a scripted vim.ui,
-- temporary workspaces, and bounded waits.
local M = { cases = {} }

--- Registers a case.
function M.test(name, fn)
  table.insert(M.cases, { name = name, fn = fn })
end

function M.eq(got, want, what)
  if not vim.deep_equal(got, want) then
    error(string.format("%s: got %s, want %s", what or "value", vim.inspect(got), vim.inspect(want)), 2)
  end
end

function M.truthy(v, what)
  if not v then
    error((what or "expected a true value") .. ", got " .. vim.inspect(v), 2)
  end
end

function M.match(text, pattern, what)
  if type(text) ~= "string" or not text:find(pattern) then
    error(string.format("%s: %s does not contain %q", what or "text", vim.inspect(text), pattern), 2)
  end
end

--- A fresh workspace folder with `files` (name -> content) written in it.
function M.workspace(files)
  local dir = vim.fn.resolve(vim.fn.tempname())
  vim.fn.mkdir(dir, "p")
  for name, content in pairs(files or {}) do
    local path = dir .. "/" .. name
    vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
    local f = assert(io.open(path, "wb"))
    f:write(content)
    f:close()
  end
  return dir
end

function M.read(path)
  local f = io.open(path, "rb")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

--- Collects vim.notify's messages ({msg, level}) until the returned
--- restore function is called.
function M.capture_notify()
  local messages = {}
  local original = vim.notify
  vim.notify = function(msg, level)
    table.insert(messages, { msg = msg, level = level })
  end
  return messages, function()
    vim.notify = original
  end
end

--- Closes every buffer's undo block, as the user's next keystroke would:
--- headless, nothing typed closes one between an agent's edit and a rewind.
function M.close_undo_blocks()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    vim.api.nvim_buf_call(b, function()
      vim.o.undolevels = vim.o.undolevels
    end)
  end
end

--- Runs `:Toolhost rewind` and returns the message it gives ({msg, level}).
function M.rewind()
  local messages, restore = M.capture_notify()
  vim.cmd("Toolhost rewind")
  M.wait_for(function()
    return #messages > 0
  end, "the rewind's message")
  restore()
  return messages[1]
end

--- Waits (bounded) until cond() is true; fails with `what` otherwise.
function M.wait_for(cond, what, timeout_ms)
  if not vim.wait(timeout_ms or 15000, cond, 20) then
    error("timed out waiting for " .. (what or "a condition"), 2)
  end
end

--- Starts the plugin on a fresh workspace with `files` against the binary
--- in $TOOLHOST_BIN, in the default mode and without progress echoes;
--- `extra` is merged into the setup options. Returns the workspace folder.
function M.start_server(files, extra)
  local toolhost = require("toolhost")
  toolhost.stop(3000)
  local dir = M.workspace(files)
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  vim.cmd("silent! %bwipeout!")
  local opts = vim.tbl_extend("force", { cmd = { os.getenv("TOOLHOST_BIN"), "serve" }, root_dir = dir,
    permission_mode = "default", progress = false }, extra or {})
  local ok, err = toolhost.setup(opts)
  M.truthy(ok, err)
  M.wait_for(function()
    return toolhost.is_running() or toolhost.state.client_id == nil
  end, "the server to initialize")
  M.truthy(toolhost.is_running(), "the server exited with code " .. tostring(toolhost.state.exit_code))
  return dir
end

--- The buffer of the plugin's view `name` ("result", "tasks", ...), or -1.
function M.view(name)
  return require("toolhost.commands").view(name) or -1
end

--- The text of the screen's first line: the tab line when tabs show.
function M.tabline()
  vim.cmd("redraw!")
  local cells = {}
  for col = 1, vim.o.columns do
    cells[col] = vim.fn.screenstring(1, col)
  end
  return table.concat(cells)
end

--- Runs a tool on the running server and waits (bounded) for its result;
--- a JSON-RPC error fails the case.
function M.call(name, input)
  local done, err, result = false, nil, nil
  require("toolhost").call_tool(name, input, function(e, r)
    done, err, result = true, e, r
  end)
  M.wait_for(function()
    return done
  end, name .. " to return", 30000)
  M.truthy(err == nil, "no JSON-RPC error: " .. vim.inspect(err))
  return result
end

--- Runs fn(...) in a coroutine, as the server's request handlers run, and
--- waits (bounded) until it returns; returns its first result.
function M.co(fn, ...)
  local args = { ... }
  local done, ok, result = false, nil, nil
  local co = coroutine.create(function()
    ok, result = pcall(fn, unpack(args))
    done = true
  end)
  local rok, rerr = coroutine.resume(co)
  if not rok then
    error(rerr, 2)
  end
  M.wait_for(function()
    return done
  end, "the handler to return")
  if not ok then
    error(result, 2)
  end
  return result
end

--- Replaces vim.ui.select and vim.ui.input with scripted answers. `answers`
--- maps a dialog kind to a function(items_or_opts, opts) returning the
--- choice. Answers arrive through vim.schedule, like an asynchronous UI.
--- Returns the log of dialogs shown.
function M.script_ui(answers)
  local log = {}
  vim.ui.select = function(items, opts, on_choice)
    local entry = { kind = opts.kind, prompt = opts.prompt, items = items, diff = vim.wo.diff,
      lines = vim.api.nvim_buf_get_lines(0, 0, -1, false), tabs = #vim.api.nvim_list_tabpages() }
    table.insert(log, entry)
    local answer = answers[opts.kind]
    local choice = answer and answer(items, opts, entry) or nil
    vim.schedule(function()
      on_choice(choice)
    end)
  end
  vim.ui.input = function(opts, on_confirm)
    local entry = { kind = (opts.kind or "input") .. ".input", prompt = opts.prompt }
    table.insert(log, entry)
    local answer = answers[entry.kind]
    local text = answer and answer(opts, entry) or nil
    vim.schedule(function()
      on_confirm(text)
    end)
  end
  return log
end

--- Picks the item whose label (or string value) is `label`.
function M.pick(label)
  return function(items)
    for _, item in ipairs(items) do
      if item == label or (type(item) == "table" and item.label == label) then
        return item
      end
    end
    error("no item " .. label .. " in " .. vim.inspect(items))
  end
end

--- Runs every case; prints TAP-like lines and the closing count line.
function M.run()
  local passed, failed = 0, 0
  for _, case in ipairs(M.cases) do
    local ok, err = xpcall(case.fn, debug.traceback)
    if ok then
      passed = passed + 1
      io.stdout:write("ok - " .. case.name .. "\n")
    else
      failed = failed + 1
      io.stdout:write("not ok - " .. case.name .. "\n" .. tostring(err):gsub("^", "    ") .. "\n")
    end
  end
  io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
  return failed
end

--- Starts `toolhost mcp --attach` ($TOOLHOST_BIN) in cwd, as an agent
--- plugin starts its MCP server; the test is its MCP client (one JSON
--- message a line). Returns the job, a function that sends a message and
--- one that waits (bounded) for the answer with an id.
function M.mcp_job(cwd)
  local answers, partial = {}, ""
  local job = vim.fn.jobstart({ os.getenv("TOOLHOST_BIN"), "mcp", "--attach" }, {
    cwd = cwd,
    on_stdout = function(_, data)
      data[1] = partial .. data[1]
      partial = table.remove(data)
      for _, line in ipairs(data) do
        if line ~= "" then
          local ok, msg = pcall(vim.json.decode, line)
          if ok and type(msg) == "table" and msg.id ~= nil then
            answers[msg.id] = msg
          end
        end
      end
    end,
  })
  M.truthy(job > 0, "the job started")
  local function send(msg)
    msg.jsonrpc = "2.0"
    vim.fn.chansend(job, vim.json.encode(msg) .. "\n")
  end
  local function answer(id, what)
    M.wait_for(function()
      return answers[id] ~= nil
    end, what, 30000)
    return answers[id]
  end
  return job, send, answer
end

-- typescript-language-server as the specs install it: npm ci in test/lsp
-- (make deps).
local test_dir = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local tsls = test_dir .. "/lsp/node_modules/.bin/typescript-language-server"

--- Whether typescript-language-server is installed for the specs. When it
--- is not, a spec's language-server cases cannot run: under CI that is a
--- failing case named after `spec` (a missing install must not pass as a
--- skip); elsewhere a note saying what is skipped (`what`).
function M.has_tsls(spec, what)
  if vim.fn.executable(tsls) == 1 then
    return true
  end
  local missing = tsls .. " is not installed: run `npm ci` in editor-client/nvim/test/lsp (make deps)"
  if (os.getenv("CI") or "") ~= "" then
    M.test(spec .. ": typescript-language-server is installed", function()
      error(missing, 0)
    end)
  else
    io.stdout:write("# " .. missing .. " " .. what .. "\n")
  end
  return false
end

-- TypeScript's style checks (unused locals and parameters, unreachable
-- code, fallthrough, missing returns): VS Code reports them as warnings
-- (typescript.reportStyleChecksAsWarnings, on by default), tsserver as
-- errors.
local style_checks = { [6133] = true, [6138] = true, [6192] = true, [6196] = true, [6198] = true, [6199] = true,
  [6205] = true, [7027] = true, [7028] = true, [7029] = true, [7030] = true }

--- Starts typescript-language-server for the TypeScript buffers of root,
--- as a user's config (lspconfig) would. With opts.style_warnings the
--- config reports style checks as warnings, as VS Code does. Returns the
--- client id and a function that stops it.
function M.start_tsls(root, opts)
  vim.cmd("filetype on")
  local handlers
  if opts and opts.style_warnings then
    local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
    handlers = {
      ["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
        for _, d in ipairs(result and result.diagnostics or {}) do
          if d.severity == 1 and style_checks[d.code] then
            d.severity = 2
          end
        end
        return publish(err, result, ctx, config)
      end,
    }
  end
  local id = vim.lsp.start_client({
    handlers = handlers,
    name = "tsserver-test",
    cmd = { tsls, "--stdio" },
    root_dir = root,
    init_options = { tsserver = { path = test_dir .. "/lsp/node_modules/typescript/lib" } },
    -- Neovim 0.7.2 declares callHierarchy at the top of its capabilities
    -- instead of under textDocument, so servers that read the standard
    -- place (typescript-language-server) offer no call hierarchy: a
    -- user's config adds it there, as this one does (docs/editors.md).
    capabilities = vim.tbl_deep_extend("force", vim.lsp.protocol.make_client_capabilities(), {
      textDocument = { callHierarchy = { dynamicRegistration = false } },
    }),
  })
  local group = vim.api.nvim_create_augroup("harness_tsls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "typescript",
    callback = function(args)
      vim.lsp.buf_attach_client(args.buf, id)
    end,
  })
  return id, function()
    vim.api.nvim_del_augroup_by_id(group)
    vim.lsp.stop_client(id)
  end
end

return M
