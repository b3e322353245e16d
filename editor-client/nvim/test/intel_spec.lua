-- The editor's language intelligence in Neovim 0.7.2, with a real language
-- server the test's own config starts: typescript-language-server from
-- test/lsp (npm ci there). An Edit introducing a type error returns it, the
-- Edit fixing it reports none, LSP goToDefinition and findReferences are
-- answered by the server attached to the file's buffer.
local h = require("harness")

if not h.has_tsls("intel", "to run the language-server cases") then
  return
end

h.test("intel: an Edit reports the type error it made and none once fixed; LSP finds definition and references", function()
  local dir = h.start_server({
    ["tsconfig.json"] = '{"compilerOptions": {"strict": true}, "include": ["src"]}',
    ["src/util.ts"] = "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    ["src/app.ts"] = 'import { add } from "./util";\nconst total: number = add(1, 2);\nconsole.log(total);\n',
  }, {
    permission_mode = "acceptEdits",
    -- A bound generous enough for a loaded machine: the wait ends as soon
    -- as the diagnostics settle, so it costs nothing when the server is quick.
    settings = { edit = { diagnosticsWaitMs = 15000 } },
  })
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
  h.match(text, "across 2 files", "findReferences")
  h.match(text, "src/app%.ts:", "findReferences")
  h.match(text, "Line 2:23", "findReferences")

  h.wait_for(function()
    return reports > 0
  end, "the language server's first report on app.ts", 60000)
  h.truthy(not h.call("Read", { file_path = app }).isError, "Read")
  local started = vim.loop.hrtime()
  local broke = h.call("Edit", { file_path = app, old_string = "= add(1, 2);", new_string = '= "three";' })
  local broke_ms = (vim.loop.hrtime() - started) / 1e6
  local all = ""
  for _, c in ipairs(broke.content) do
    all = all .. (c.text or "") .. "\n"
  end
  h.match(all, "%[Line 2:7%] Type 'string' is not assignable to type 'number'%. %[2322%]", "the breaking Edit")
  io.stdout:write(string.format("# intel: the breaking Edit took %d ms (diagnostics bound 15000 ms)\n", broke_ms))

  started = vim.loop.hrtime()
  local fixed = h.call("Edit", { file_path = app, old_string = '= "three";', new_string = "= add(1, 2);" })
  local fixed_ms = (vim.loop.hrtime() - started) / 1e6
  all = ""
  for _, c in ipairs(fixed.content) do
    all = all .. (c.text or "") .. "\n"
  end
  h.truthy(not all:find("2322", 1, true), "the fixing Edit reports no error: " .. all)
  io.stdout:write(string.format("# intel: the fixing Edit took %d ms (diagnostics bound 15000 ms)\n", fixed_ms))
  vim.api.nvim_del_augroup_by_name("intel_spec_reports")
  stop_tsls()
end)
