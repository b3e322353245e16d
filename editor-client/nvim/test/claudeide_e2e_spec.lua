-- The real Claude Code CLI (from npm: $CLAUDE_BIN, else test/mcp's) in
-- this Neovim's job, interactive under a pseudo-terminal (util-linux
-- script), with a scripted Messages API (claude_api.lua): it connects to
-- the session by itself from the environment the plugin exported; its
-- Edit opens the review; accepting an edited proposal lands that text on
-- disk and the model is told; rejecting leaves the file; getDiagnostics
-- returns the editor's diagnostics, among them a real language server's
-- (typescript-language-server from test/lsp, as intel_spec.lua starts it);
-- a selection reaches the CLI.
local h = require("harness")
local api_mod = require("claude_api")
local ide = require("toolhost.claudeide")

local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local claude = os.getenv("CLAUDE_BIN")
if not claude or claude == "" then
  claude = vim.fn.fnamemodify(here .. "/../../../test/mcp/node_modules/.bin/claude", ":p")
end

if vim.fn.executable(claude) ~= 1 or vim.fn.executable("script") ~= 1 then
  io.stdout:write("# no Claude Code CLI (" .. claude .. ") or no script(1): skipping the journey with the real CLI\n")
  return
end

local with_tsls = h.has_tsls("claudeide e2e", "for getDiagnostics with a language server's error")

local API_KEY = "sk-ant-api03-toolhost-test-key-0000000000000000"

-- The CLI's configuration: no onboarding, the key approved, the folders
-- trusted.
local function seed_config(home, projects)
  local trusted = {}
  for _, p in ipairs(projects) do
    trusted[p] = { hasTrustDialogAccepted = true, hasCompletedProjectOnboarding = true, allowedTools = {} }
  end
  local cfg = vim.json.encode({
    hasCompletedOnboarding = true,
    lastOnboardingVersion = "2.1.330",
    theme = "dark",
    customApiKeyResponses = { approved = { API_KEY:sub(-20) }, rejected = {} },
    projects = trusted,
  })
  vim.fn.mkdir(home .. "/.claude", "p")
  for _, p in ipairs({ home .. "/.claude.json", home .. "/.claude/.claude.json" }) do
    local f = assert(io.open(p, "w"))
    f:write(cfg)
    f:close()
  end
end

-- toolhost/status's claudeCodeIde.connections, waited for.
local function connections()
  local got
  require("toolhost.client").request(require("toolhost").client(), "toolhost/status", vim.empty_dict(), function(err, st)
    got = (not err and st and st.claudeCodeIde and st.claudeCodeIde.connections) or -1
  end)
  h.wait_for(function()
    return got ~= nil
  end, "the status")
  return got
end

-- The text of the last message's tool result whose id starts with
-- prefix (any with nil), or nil.
local function tool_result(req, prefix)
  local msgs = req.messages or {}
  for i = #msgs, 1, -1 do
    local m = msgs[i]
    if m.role == "assistant" then
      return nil
    end
    for _, c in ipairs(type(m.content) == "table" and m.content or {}) do
      if type(c) == "table" and c.type == "tool_result" and (prefix == nil or vim.startswith(c.tool_use_id, prefix)) then
        return api_mod.text_of({ messages = { { content = { c } } } })
      end
    end
  end
  return nil
end

h.test("claudeide e2e: the real Claude Code CLI in Neovim's terminal reviews its edits in the editor", function()
  local home = vim.fn.resolve(vim.fn.tempname())
  -- Made before the server starts: the server makes it too (for its lock
  -- file), and a mkdir racing it fails with E739.
  vim.fn.mkdir(home .. "/.claude", "p")
  vim.env.CLAUDE_CONFIG_DIR = home .. "/.claude"
  local dir = h.start_server({
    ["a.txt"] = "one\ntwo\nthree\n",
    ["tsconfig.json"] = '{"compilerOptions": {"strict": true}, "include": ["src"]}',
    ["src/bad.ts"] = 'const total: number = "three";\nconsole.log(total);\n',
  }, {})
  local path = dir .. "/a.txt"
  local ts_path = dir .. "/src/bad.ts"
  seed_config(home, { dir, dir .. "/src" })
  h.wait_for(function()
    return vim.env.CLAUDE_CODE_SSE_PORT ~= nil
  end, "the IDE listener's port in the environment")

  -- The model: a prompt naming an action starts it; a tool's result
  -- ends the turn with a text that quotes it.
  local n, edits = 0, 0
  local api = api_mod.start(function(req)
    if not req.tools or #req.tools == 0 then
      return { { type = "text", text = "ok" } }
    end
    local msgs = req.messages
    local last = api_mod.last_text(req)
    n = n + 1
    if tool_result(req, "toolu_read") then
      -- The first edit changes "two", the next ones "one".
      edits = edits + 1
      local old = edits == 1 and "two" or "one"
      return { { type = "tool_use", id = "toolu_edit" .. n, name = "Edit", input = { file_path = path, old_string = old, new_string = old:upper() } } }
    elseif tool_result(req) then
      return { { type = "text", text = "Done." } }
    elseif last:find("EDIT", 1, true) then
      return { { type = "tool_use", id = "toolu_read" .. n, name = "Read", input = { file_path = path } } }
    elseif last:find("TSDIAG", 1, true) then
      return { { type = "tool_use", id = "toolu_tsdiag" .. n, name = "mcp__ide__getDiagnostics", input = { uri = vim.uri_from_fname(ts_path) } } }
    elseif last:find("DIAG", 1, true) then
      return { { type = "tool_use", id = "toolu_diag" .. n, name = "mcp__ide__getDiagnostics", input = { uri = vim.uri_from_fname(path) } } }
    end
    return { { type = "text", text = "Nothing to do. " .. #msgs } }
  end)

  local log = home .. "/pty.log"
  local cmd = table.concat({ vim.fn.shellescape(claude), "--permission-mode", "manual", "--model", "claude-test" }, " ")
  local cli_env = {
    HOME = home,
    ANTHROPIC_BASE_URL = "http://127.0.0.1:" .. api.port,
    ANTHROPIC_API_KEY = API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1",
    DISABLE_TELEMETRY = "1",
    DISABLE_AUTOUPDATER = "1",
    DISABLE_ERROR_REPORTING = "1",
    CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL = "1",
    ENABLE_TOOL_SEARCH = "false",
    TERM = "xterm-256color",
    COLUMNS = "120",
    LINES = "40",
  }
  -- In the editor's terminal: Neovim's environment (the plugin's
  -- CLAUDE_CODE_SSE_PORT) with the CLI's own on top.
  local job = vim.fn.jobstart({ "script", "-qfec", cmd, log }, { cwd = dir, env = cli_env })
  h.truthy(job > 0, "the CLI's job started")
  -- Whether the screen in file showed text: the terminal's control
  -- sequences and the spaces (often drawn as cursor moves) are left out on
  -- both sides.
  local function shown_in(file, text)
    local flat = (h.read(file) or ""):gsub("\27%][^\7]*\7", ""):gsub("\27%[[%d;?]*%a", ""):gsub("%s", "")
    return flat:find(text:gsub("%s", ""), 1, true) ~= nil
  end
  local function screen()
    return h.read(log) or ""
  end
  local function shown(text)
    return shown_in(log, text)
  end
  local other_job, other_log
  -- Types text and, once the CLI shows it, Enter (sent with the text the
  -- CLI would take it as part of a paste).
  local function say(text)
    vim.fn.chansend(job, text)
    h.wait_for(function()
      return shown(text)
    end, "the CLI to show the typed " .. text, 30000)
    vim.fn.chansend(job, "\r")
  end
  -- The request that carries the result of the tool call whose id starts
  -- with prefix.
  local function result_of(prefix, from)
    local found
    h.wait_for(function()
      for i = from, #api.requests do
        found = tool_result(api.requests[i], prefix)
        if found then
          return true
        end
      end
      return false
    end, "the model to get the result of " .. prefix, 30000)
    return found
  end
  local function review_open()
    h.wait_for(function()
      return next(ide.reviews) ~= nil
    end, "the CLI's openDiff to open the review", 30000)
    return vim.api.nvim_get_current_tabpage()
  end

  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local ok, err = pcall(function()
    -- It connects by itself (the lock file's pid is this Neovim, its
    -- ancestor; the port is in its environment).
    h.wait_for(function()
      return connections() == 1
    end, "the CLI to connect to the IDE listener", 30000)

    -- Accept, with a change of the user's to the proposal.
    local from = #api.requests + 1
    say("EDIT a.txt")
    review_open()
    local pbuf
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.api.nvim_buf_get_name(b):find("proposed by Claude", 1, true) then
        pbuf = b
        vim.api.nvim_set_current_win(w)
      end
    end
    h.eq(vim.api.nvim_buf_get_lines(pbuf, 0, -1, false), { "one", "TWO", "three" }, "the proposal in the review")
    vim.api.nvim_buf_set_lines(pbuf, 2, 3, false, { "three (the user's)" })
    vim.cmd("write")
    local told = result_of("toolu_edit", from)
    h.eq(h.read(path), "one\nTWO\nthree (the user's)\n", "the file after the accepted review")
    h.match(told, "user", "what the model was told of the user's change")
    h.wait_for(function()
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") == "one\nTWO\nthree (the user's)"
    end, "the buffer to follow the CLI's write")
    h.eq(vim.bo[buf].modified, false, "the buffer is in step with the disk")

    -- Reject.
    from = #api.requests + 1
    say("EDIT a.txt again")
    review_open()
    vim.api.nvim_feedkeys("gR", "x", false)
    h.wait_for(function()
      return shown("Rejected update to a.txt")
    end, "the CLI to say the edit was rejected", 30000)
    h.eq(h.read(path), "one\nTWO\nthree (the user's)\n", "the file after the rejected review")

    -- A selection made in the editor reaches the CLI, which tells the
    -- model with the next prompt.
    vim.cmd("tabfirst")
    vim.api.nvim_set_current_buf(buf)
    vim.api.nvim_win_set_cursor(0, { 2, 0 })
    vim.cmd("normal! Vj")
    h.wait_for(function()
      return shown("2 lines selected")
    end, "the CLI to show the editor's selection", 30000)
    from = #api.requests + 1
    say("What did I select?")
    h.wait_for(function()
      for i = from, #api.requests do
        local t = api_mod.last_text(api.requests[i])
        if t:find("three (the user's)", 1, true) and t:find("a.txt", 1, true) then
          return true
        end
      end
      return false
    end, "the model to be told of the selection", 30000)
    vim.cmd("normal! \27")
    -- The rejection reached the model with that turn.
    h.match(api_mod.text_of(api.requests[#api.requests]):lower(), "reject", "what the model was told of the rejection")

    -- getDiagnostics answers with the editor's diagnostics.
    local ns = vim.api.nvim_create_namespace("claudeide_e2e")
    vim.diagnostic.set(ns, buf, { { lnum = 1, col = 0, end_lnum = 1, end_col = 3, message = "TWO is shouting", severity = vim.diagnostic.severity.ERROR, source = "lint" } })
    -- The model's getDiagnostics call (prompt names it, prefix its id):
    -- its result, once the model has it.
    local function diagnostics_via_cli(prompt, prefix)
      local from_ = #api.requests + 1
      say(prompt)
      local diag
      h.wait_for(function()
        diag = nil
        for i = from_, #api.requests do
          diag = diag or tool_result(api.requests[i], prefix)
        end
        if not diag and shown("Do you want to") then
          vim.fn.chansend(job, "\r") -- allow the call, if the CLI asks
        end
        return diag ~= nil
      end, "the model to get the result of " .. prefix, 30000)
      return diag
    end
    h.match(diagnostics_via_cli("DIAG", "toolu_diag"), "TWO is shouting", "getDiagnostics' result")

    -- ... and a real language server's: typescript-language-server's type
    -- error in a TypeScript file open in the editor.
    if with_tsls then
      local _, stop_tsls = h.start_tsls(dir)
      local ok_ts, err_ts = pcall(function()
        vim.cmd("edit " .. vim.fn.fnameescape(ts_path))
        local tsbuf = vim.api.nvim_get_current_buf()
        h.wait_for(function()
          for _, d in ipairs(vim.diagnostic.get(tsbuf)) do
            if d.message:find("is not assignable", 1, true) then
              return true
            end
          end
          return false
        end, "typescript-language-server's type error in src/bad.ts", 60000)
        local diag = diagnostics_via_cli("TSDIAG", "toolu_tsdiag")
        h.match(diag, "Type 'string' is not assignable to type 'number'", "getDiagnostics' result for src/bad.ts")
        h.match(diag, "2322", "getDiagnostics' result for src/bad.ts: the error's code")
      end)
      stop_tsls()
      if not ok_ts then
        error(err_ts, 0)
      end
    end

    -- `claude --ide` from another terminal (tmux): a clean environment
    -- with no CLAUDE_CODE_SSE_PORT, started below the workspace folder. It
    -- finds the session by the lock file's workspaceFolders alone (in a
    -- terminal it does not know as an IDE's, it does not ask that the
    -- lock's pid be its ancestor).
    other_log = home .. "/other-pty.log"
    local clean = vim.tbl_extend("force", cli_env, { CLAUDE_CONFIG_DIR = vim.env.CLAUDE_CONFIG_DIR, PATH = "/usr/local/bin:/usr/bin:/bin" })
    other_job = vim.fn.jobstart({ "script", "-qfec", cmd .. " --ide", other_log }, { cwd = dir .. "/src", env = clean, clear_env = true })
    h.truthy(other_job > 0, "the other terminal's CLI started")
    h.wait_for(function()
      return connections() == 2
    end, "claude --ide from another terminal to connect by the workspace folder", 40000)
    -- Connected as this editor: the editor's selection reaches it. The
    -- server counts the connection when the WebSocket opens, before the
    -- CLI's MCP client is set up, so until the CLI shows a selection it is
    -- made anew each second (two in turn, so that each is a change).
    vim.cmd("tabfirst")
    vim.api.nvim_set_current_buf(buf)
    local reselected, whole = 0, false
    h.wait_for(function()
      if shown_in(other_log, "lines selected") then
        return true
      end
      if vim.loop.now() - reselected > 1000 then
        reselected, whole = vim.loop.now(), not whole
        vim.cmd("normal! \27")
        vim.cmd(whole and "normal! ggVG" or "normal! ggVj")
      end
      return false
    end, "the other terminal's CLI to show the editor's selection", 30000)
    vim.cmd("normal! \27")
  end)
  if other_job then
    vim.fn.jobstop(other_job)
  end
  if not ok then
    local last = api.requests[#api.requests]
    io.stdout:write("--- the last request's newest turn:\n" .. (last and api_mod.last_text(last) or "(none)"):sub(-2000) .. "\n")
    vim.fn.jobstop(job)
    api.close()
    local other = other_log and (h.read(other_log) or ""):gsub("\27%[[%d;?]*%a", ""):sub(-2000) or ""
    error(tostring(err) .. "\n--- the CLI's screen:\n" .. screen():gsub("\27%[[%d;?]*%a", ""):sub(-3000) .. "\n--- the other terminal's CLI:\n" .. other)
  end
  vim.fn.jobstop(job)
  api.close()
end)
