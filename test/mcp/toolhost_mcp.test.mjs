// `npm test` (run by `make test-node` with TOOLHOST_BIN set): the official
// TypeScript MCP client drives `toolhost mcp` in a temporary workspace.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.TOOLHOST_BIN;
let work;
let client;

before(async () => {
  assert.ok(bin, "set TOOLHOST_BIN to the toolhost binary (make test-node does)");
  work = mkdtempSync(join(tmpdir(), "toolhost-mcp-"));
  writeFileSync(join(work, "a.txt"), "alpha\nbeta\n");
  client = new Client({ name: "toolhost-npm-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp"], cwd: work, stderr: "inherit" }));
});

after(async () => {
  await client?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the server introduces itself as toolhost", () => {
  assert.equal(client.getServerVersion()?.name, "toolhost");
});

test("tools are listed with annotations from their side effects", async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const list = byName.get("ListMcpResources");
  assert.ok(list, `ListMcpResources missing from ${[...byName.keys()]}`);
  assert.equal(list.annotations?.readOnlyHint, true);
  assert.equal(list.inputSchema.type, "object");
  for (const t of tools) assert.match(t.name, /^[A-Za-z0-9_.-]{1,128}$/);
});

test("a tool's input error is an isError result, not a protocol error", async () => {
  const res = await client.callTool({ name: "ReadMcpResource", arguments: { server: "nowhere" } });
  assert.equal(res.isError, true);
  assert.match(res.content[0].text, /uri/);
});

test("a call with no MCP servers configured says so", async () => {
  const res = await client.callTool({ name: "ListMcpResources", arguments: {} });
  assert.equal(res.isError ?? false, false);
  assert.match(res.content[0].text, /No MCP servers are configured/);
});
