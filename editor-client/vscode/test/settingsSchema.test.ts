import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import Ajv2020 from "ajv/dist/2020";

const root = path.resolve(__dirname, "../..");
// Generated from the Go type settings.Settings (make docs), so it names
// every key of it; jsonschema-go writes draft 2020-12.
const schema = JSON.parse(fs.readFileSync(path.join(root, "schemas/settings.schema.json"), "utf8"));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

test("a full settings file validates", () => {
  const settings = {
    permissions: { allow: ["Bash(npm run test:*)"], deny: ["Read(./.env)"], defaultMode: "acceptEdits", additionalDirectories: ["../lib"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh", timeout: 5 }] }] },
    env: { GOFLAGS: "-mod=mod" },
    tools: { disabled: ["WebSearch"] },
    bash: { defaultTimeoutMs: 1000, maskSecrets: false, compressOutput: true },
    edit: { fuzzy: true },
    webFetch: { maxBytes: 1024 },
    webSearch: { provider: "searxng", baseUrl: "http://localhost:8888" },
    agent: { endpoint: "http://localhost:8080/v1/chat/completions", model: "m", apiKeyEnv: "KEY" },
    ssh: { hosts: { box: { host: "box.lan", user: "me", port: 22 } } },
    mcpServers: { gh: { command: "gh-mcp", args: ["--stdio"] }, web: { type: "http", url: "http://localhost/mcp" } },
    enableAllProjectMcpServers: false,
    enabledMcpjsonServers: ["gh"],
    server: { maxMessageBytes: 1048576 },
  };
  assert.equal(validate(settings), true, JSON.stringify(validate.errors));
});

test("mistakes are reported", () => {
  const cases: Array<[string, unknown]> = [
    ["unknown mode", { permissions: { defaultMode: "yolo" } }],
    ["unknown top-level key", { permisions: {} }],
    ["wrong type", { bash: { defaultTimeoutMs: "10s" } }],
    ["hook without command", { hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command" }] }] } }],
    ["ssh host without host", { ssh: { hosts: { a: { user: "me" } } } }],
  ];
  for (const [name, settings] of cases) {
    assert.equal(validate(settings), false, name);
  }
});
