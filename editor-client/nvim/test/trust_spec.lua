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
  end)

  h.test("trust: Trust folder applies the folder's settings", function()
    local dir, ran = open_hostile(trust.TRUST)
    h.eq(ran, true, "the hook ran")
    h.match(h.read(vim.env.XDG_CONFIG_HOME .. "/toolhost/trusted-folders.json") or "", vim.pesc(dir))
  end)
end
