-- The trust question in Neovim: a hostile folder's hook is shown in the
-- vim.ui.select and does not run until the user trusts the folder.
local h = require("harness")
local toolhost = require("toolhost")
local trust = require("toolhost.trust")

local bin = os.getenv("TOOLHOST_BIN")

h.test("trust: the answer is trust only for Trust folder", function()
  h.eq(trust.answer(trust.TRUST), { trust = true }, "trust")
  h.eq(trust.answer(trust.DONT_TRUST), { trust = false }, "don't trust")
  h.eq(trust.answer(nil), { trust = false }, "dismissed")
  local prompt = trust.prompt({ folder = "/w", items = { { what = "PreToolUse hook runs: touch x" } } })
  h.match(prompt, "/w")
  h.match(prompt, "touch x")
end)

h.test("trust: what runs at once comes first, and the first choice does not trust", function()
  local prompt = trust.prompt({ folder = "/w", items = {
    { key = "permissions.allow", what = "allow rule Bash(*)", why = "grants a permission" },
    { key = "mcpServers", what = "MCP server pwn runs: sh -c x", why = "runs a command" },
    { key = "hooks", what = "PreToolUse hook runs: curl x | sh", why = "runs a command" },
  } })
  local hook, server, rule = prompt:find("curl x | sh", 1, true), prompt:find("sh -c x", 1, true), prompt:find("Bash(*)", 1, true)
  h.eq(hook ~= nil and server ~= nil and rule ~= nil, true, "every item listed:\n" .. prompt)
  h.eq(hook < rule and server < rule, true, "commands before the rule:\n" .. prompt)
  h.match(prompt, "runs its commands at once")
  -- The choices offered: the first (a select's default) is Don't trust.
  local offered
  local first = function(items, _, on_choice)
    offered = items
    on_choice(items[1], 1)
  end
  local co = coroutine.create(trust.request_trust)
  local ok, answer = coroutine.resume(co, { folder = "/w", items = {} }, { ui = { select = first } })
  h.eq(ok, true, "request_trust ran: " .. tostring(answer))
  h.eq(offered and offered[1], trust.DONT_TRUST, "first choice")
  h.eq(answer, { trust = false }, "the default answer")
end)

h.test("trust: an untrusted folder is announced once, again only when what it ignores changes", function()
  local state = {}
  local hook = { file = "/w/.toolhost/settings.json", key = "hooks", what = "PreToolUse hook runs: touch x" }
  local rule = { file = "/w/.toolhost/settings.json", key = "permissions.allow", what = "allow rule Bash(*)" }
  trust.announced = {}
  h.eq(trust.changed(state, { ignored = { hook } }, { progress = false }), true, "first trustChanged")
  h.eq(state.trust.ignored[1], hook, "kept in the state")
  -- A server restarted after a crash sends the same trust again.
  h.eq(trust.changed(state, { ignored = { hook } }, { progress = false }), false, "the same ignored settings again")
  h.eq(trust.changed(state, { ignored = { hook, rule } }, { progress = false }), true, "one more setting ignored")
  h.eq(trust.changed(state, { ignored = {} }, { progress = false }), false, "nothing ignored")
  h.eq(state.trust.ignored, {}, "the state follows every notification")
end)

-- Opens a folder whose settings run a hook on every call, answers the
-- trust question with `answer`, runs Read; returns the folder, whether the
-- hook ran, and the dialogs shown.
local function open_hostile(answer)
  toolhost.stop(3000)
  vim.env.XDG_CONFIG_HOME = vim.fn.resolve(vim.fn.tempname())
  local dir = h.workspace({
    ["a.txt"] = "a\n",
    [".toolhost/settings.json"] = '{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"touch hook-ran"}]}]}}',
  })
  local log = h.script_ui({ ["toolhost.trust"] = h.pick(answer) })
  vim.cmd("cd " .. vim.fn.fnameescape(dir))
  local ok, err = toolhost.setup({ cmd = { bin, "serve" }, root_dir = dir, progress = false })
  h.truthy(ok, err)
  h.wait_for(function()
    return toolhost.state.trust ~= nil
  end, "the trust question to be settled")
  local done = false
  toolhost.call_tool("Read", { file_path = dir .. "/a.txt" }, function()
    done = true
  end)
  h.wait_for(function()
    return done
  end, "Read to return")
  return dir, vim.fn.filereadable(dir .. "/hook-ran") == 1, log
end

if bin and bin ~= "" then
  h.test("trust: Don't trust keeps the folder's hook from running", function()
    local _, ran, log = open_hostile(trust.DONT_TRUST)
    h.eq(#log, 1, "dialogs shown")
    h.eq(log[1].kind, "toolhost.trust", "dialog kind")
    h.match(log[1].prompt, "touch hook%-ran")
    h.eq(ran, false, "the hook ran")
    h.eq(toolhost.state.trust.declined, true, "declined")
    -- The warning sends the user to :Toolhost status, which lists them.
    pcall(vim.api.nvim_buf_delete, h.view("status"), { force = true })
    vim.cmd("Toolhost status")
    h.wait_for(function()
      return h.view("status") ~= -1
    end, "the status view")
    local text = table.concat(vim.api.nvim_buf_get_lines(h.view("status"), 0, -1, false), "\n")
    h.match(text, "## 1 folder setting ignored %(the folder is not trusted%)\n%- PreToolUse hook for tools \"%*\" runs: touch hook%-ran %(.-settings%.json, hooks%): runs a command")
    h.match(text, "To apply them, trust the folder: toolhost trust ")
    -- Started again after a crash, the server asks anew: the plugin
    -- answers with the user's "Don't trust" instead of asking again.
    toolhost.state.trust = nil
    vim.loop.kill(toolhost.state.pid, 9)
    h.wait_for(function()
      return toolhost.is_running() and toolhost.state.trust ~= nil
    end, "the restarted server's trust settled")
    h.eq(#log, 1, "dialogs shown: " .. vim.inspect(log))
    h.eq(toolhost.state.trust.declined, true, "declined again")
  end)

  h.test("trust: Trust folder applies the folder's settings", function()
    local dir, ran = open_hostile(trust.TRUST)
    h.eq(ran, true, "the hook ran")
    h.match(h.read(vim.env.XDG_CONFIG_HOME .. "/toolhost/trusted-folders.json") or "", vim.pesc(dir))
  end)
end
