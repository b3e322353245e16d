import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import Ajv from "ajv";

const root = path.resolve(__dirname, "../..");
const schema = JSON.parse(fs.readFileSync(path.join(root, "schemas/settings.schema.json"), "utf8"));
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** Every property name declared anywhere in the schema. */
function schemaKeys(node: unknown, out = new Set<string>()): Set<string> {
  if (node && typeof node === "object") {
    const props = (node as { properties?: Record<string, unknown> }).properties;
    for (const [k, v] of Object.entries(props ?? {})) {
      out.add(k);
      schemaKeys(v, out);
    }
    for (const [k, v] of Object.entries(node)) {
      if (k !== "properties") {
        schemaKeys(v, out);
      }
    }
  }
  return out;
}

test("the schema names every JSON key of the Go Settings type", () => {
  const goFile = path.resolve(root, "../../settings/settings.go");
  const source = fs.readFileSync(goFile, "utf8");
  const tags = Array.from(source.matchAll(/json:"([A-Za-z0-9_]+)/g), (m) => m[1]);
  assert.ok(tags.length > 30, "found the settings' JSON tags");
  const keys = schemaKeys(schema);
  const missing = tags.filter((t) => !keys.has(t));
  assert.deepEqual(missing, [], "keys of settings.go missing from the schema");
});

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
