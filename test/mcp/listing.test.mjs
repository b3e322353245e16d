// `npm test` (run by `make test-node` with TOOLHOST_BIN set): the deferred
// listing, side by side with Claude Code's own. The same 40 MCP tools
// (remote_tools.mjs, ~760 bytes each as toolhost lists them) are configured
// in Claude Code's CLI (the npm package pinned in package.json, offline,
// against a scripted model) and in `toolhost mcp`. Claude Code is run twice,
// with tool search on (its default) and off (ENABLE_TOOL_SEARCH=false), and
// what it sends the model is measured: the request's `tools` array, plus the
// text elsewhere in the request that names the deferred tools. toolhost is
// listed twice over MCP, by a client that does not ask for the deferred
// listing and by one that does (docs/mcp.md). Both sides' figures are
// printed, and toolhost's deferred listing must be no larger a share of its
// full one than Claude Code's, with its MCP tools' part under a fifth.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.env.TOOLHOST_BIN;
const here = dirname(fileURLToPath(import.meta.url));
const claude = join(here, "node_modules", ".bin", "claude");
// The CLI is a native binary put in place by its package's postinstall; a
// platform without it cannot run this comparison.
const noClaude = !existsSync(claude) && "the claude CLI is not installed: run `npm ci` in test/mcp";

// The 40 MCP tools, as both clients name them.
const serverName = "remote";
const remoteServer = { command: process.execPath, args: [join(here, "remote_tools.mjs"), serverName] };
const remoteNames = Array.from({ length: 40 }, (_, i) => `mcp__${serverName}__list_items_${i}`);
const isRemote = (name) => name.startsWith("mcp__");

const bytes = (v) => Buffer.byteLength(typeof v === "string" ? v : JSON.stringify(v));
const share = (part, whole) => part / whole;
const pct = (r) => `${(100 * r).toFixed(1)}%`;

// modelStub is a scripted model: it answers every Messages request with one
// streamed turn of plain text and keeps the request bodies.
async function modelStub() {
  const bodies = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url.startsWith("/v1/messages")) {
        res.writeHead(404).end();
        return;
      }
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      event("message_start", {
        message: { id: "msg_listing", type: "message", role: "assistant", model: "stub", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } },
      });
      event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "done" } });
      event("content_block_stop", { index: 0 });
      event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } });
      event("message_stop", {});
      res.end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    bodies,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

// isolatedEnv is this process's environment with a throwaway home and none
// of the caller's Claude Code or Anthropic settings, which would change
// what is listed.
function isolatedEnv(home) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(ANTHROPIC_|CLAUDE_|ENABLE_TOOL_SEARCH$)/.test(k)),
  );
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_RUNTIME_DIR: join(home, ".run"),
  };
}

// textBlocks are the request's texts outside `tools`, each with where it is.
function textBlocks(body) {
  const blocks = [];
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : body.system ?? [];
  system.forEach((b, i) => b.text && blocks.push({ where: `system[${i}]`, text: b.text }));
  body.messages.forEach((m, i) => {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    content.forEach((b, j) => b.text && blocks.push({ where: `messages[${i}] (role ${m.role}) block ${j}`, text: b.text }));
  });
  return blocks;
}

// claudeListing runs `claude -p` once against a scripted model with the 40
// MCP tools configured, and measures the listing its first request sends:
// the `tools` array, and the paragraphs elsewhere in the request that name
// the MCP tools one a line (where Claude Code names its deferred tools).
async function claudeListing(root, toolSearch) {
  const home = join(root, toolSearch ? "claude-search" : "claude-no-search");
  const project = join(home, "project");
  mkdirSync(project, { recursive: true });
  const mcpConfig = join(home, "mcp.json");
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [serverName]: remoteServer } }));
  const model = await modelStub();
  try {
    const env = {
      ...isolatedEnv(home),
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-listing-test",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: "1",
      ...(toolSearch ? {} : { ENABLE_TOOL_SEARCH: "false" }),
    };
    const args = ["-p", "Say done.", "--output-format", "stream-json", "--verbose", "--no-session-persistence", "--mcp-config", mcpConfig, "--strict-mcp-config"];
    await promisify(execFile)(claude, args, { cwd: project, env, timeout: 60_000, maxBuffer: 16 << 20 });
  } finally {
    await model.close();
  }
  const body = model.bodies.find((b) => Array.isArray(b.tools) && b.tools.length > 0);
  assert.ok(body, `claude -p sent no request with tools (${model.bodies.length} requests)`);

  const remote = new Set(remoteNames);
  const naming = [];
  for (const { where, text } of textBlocks(body)) {
    for (const paragraph of text.split("\n\n")) {
      if (paragraph.split("\n").some((line) => remote.has(line.trim()))) naming.push({ where, paragraph });
    }
  }
  const namedLines = naming.flatMap(({ paragraph }) => paragraph.split("\n").map((l) => l.trim()));
  const namesBytes = naming.reduce((n, { paragraph }) => n + bytes(paragraph), 0);
  const listed = body.tools.filter((t) => !t.defer_loading);
  return {
    toolsBytes: bytes(body.tools),
    namesBytes,
    whole: bytes(body.tools) + namesBytes,
    // The MCP tools' part: their entries in `tools`, and their lines (with
    // the line break) in the naming paragraphs.
    mcp: body.tools.filter((t) => isRemote(t.name)).reduce((n, t) => n + bytes(t), 0) +
      namedLines.filter(isRemote).reduce((n, l) => n + bytes(l) + 1, 0),
    listedWhole: listed.map((t) => t.name),
    listedRemote: listed.filter((t) => remote.has(t.name)).length,
    namedRemote: namedLines.filter((l) => remote.has(l)).length,
    deferredBuiltIns: namedLines.filter((l) => /^[A-Z]\w*$/.test(l)),
    where: [...new Set(naming.map((n) => n.where))],
  };
}

// toolhostListing lists `toolhost mcp`'s tools once its 40 MCP tools are
// in, for a client that asks for the deferred listing or not, and measures
// the listing as sent (tools/list's tools) and as a model gets it (name,
// description, input schema).
async function toolhostListing(root, asking) {
  const home = join(root, asking ? "toolhost-deferred" : "toolhost-full");
  const project = join(home, "project");
  mkdirSync(join(home, ".config", "toolhost"), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(home, ".config", "toolhost", "settings.json"), JSON.stringify({ mcpServers: { [serverName]: remoteServer } }));
  const client = new Client(
    { name: "toolhost-listing-test", version: "1.0.0" },
    { capabilities: asking ? { experimental: { "toolhost/deferredTools": {} } } : {} },
  );
  try {
    // The MCP server's tools come in after the handshake; toolhost says
    // so with tools/list_changed.
    let last = [];
    const ready = new Promise((resolve, reject) => {
      const check = () =>
        client.listTools().then(({ tools }) => {
          last = tools;
          if (tools.filter((t) => isRemote(t.name)).length >= remoteNames.length) resolve(tools);
        }, reject);
      client.setNotificationHandler(ToolListChangedNotificationSchema, check);
      client.connect(new StdioClientTransport({ command: bin, args: ["mcp"], cwd: project, env: isolatedEnv(home), stderr: "inherit" })).then(check, reject);
    });
    let timer;
    const tools = await Promise.race([
      ready,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`toolhost listed ${last.filter((t) => isRemote(t.name)).length} of the 40 MCP tools in 30 s: did remote_tools.mjs start? (its errors are above)`)), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
    const model = (t) => ({ name: t.name, description: t.description ?? "", input_schema: t.inputSchema });
    const remote = tools.filter((t) => isRemote(t.name));
    return {
      whole: bytes(tools),
      mcp: remote.reduce((n, t) => n + bytes(t), 0),
      modelWhole: tools.reduce((n, t) => n + bytes(model(t)), 0),
      modelMCP: remote.reduce((n, t) => n + bytes(model(t)), 0),
      deferredRemote: remote.filter((t) => t._meta?.["toolhost/deferred"] && !t.description).length,
      listedWhole: tools.filter((t) => t.description).map((t) => t.name),
    };
  } finally {
    await client.close();
  }
}

let root;
before(() => {
  root = mkdtempSync(join(tmpdir(), "toolhost-listing-"));
});
after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

test("the deferred listing with 40 MCP tools, toolhost beside Claude Code", { skip: noClaude }, async (t) => {
  assert.ok(bin, "set TOOLHOST_BIN to the toolhost binary (make test-node does)");
  const [ccSearch, ccFull, thFull, thDeferred] = await Promise.all([
    claudeListing(root, true),
    claudeListing(root, false),
    toolhostListing(root, false),
    toolhostListing(root, true),
  ]);

  // What was measured is what the comparison claims: each side listed the
  // 40 MCP tools whole in its full listing and by name in its deferred one.
  assert.equal(ccFull.listedRemote, 40, `with ENABLE_TOOL_SEARCH=false Claude Code listed ${ccFull.listedRemote} of the 40 MCP tools whole`);
  assert.equal(ccSearch.listedRemote, 0, "with tool search on Claude Code listed MCP tools whole: it no longer defers them here");
  assert.equal(ccSearch.namedRemote, 40, `Claude Code named ${ccSearch.namedRemote} of the 40 deferred MCP tools one a line outside its tools: find where it names them now`);
  assert.equal(thFull.deferredRemote, 0, "toolhost deferred MCP tools for a client that did not ask");
  assert.equal(thDeferred.deferredRemote, 40, `toolhost deferred ${thDeferred.deferredRemote} of the 40 MCP tools for a client that asked`);

  const cc = { mcp: share(ccSearch.mcp, ccFull.mcp), whole: share(ccSearch.whole, ccFull.whole) };
  const th = { mcp: share(thDeferred.mcp, thFull.mcp), whole: share(thDeferred.whole, thFull.whole) };
  const thModel = { mcp: share(thDeferred.modelMCP, thFull.modelMCP), whole: share(thDeferred.modelWhole, thFull.modelWhole) };
  const row = (who, full, deferred, mcpFull, mcpDeferred, r) =>
    `${who.padEnd(30)} ${String(full).padStart(7)} ${String(deferred).padStart(9)} ${`${mcpFull} → ${mcpDeferred}`.padStart(15)} ${pct(r.mcp).padStart(7)} ${pct(r.whole).padStart(7)}`;
  for (const line of [
    `the listing with 40 MCP tools (${Math.round(thFull.mcp / 40)} bytes each as toolhost lists them, ${Math.round(ccFull.mcp / 40)} as Claude Code sends them), bytes:`,
    `${"".padEnd(30)} ${"full".padStart(7)} ${"deferred".padStart(9)} ${"MCP part".padStart(15)} ${"MCP %".padStart(7)} ${"whole %".padStart(7)}`,
    row("Claude Code (request to model)", ccFull.whole, ccSearch.whole, ccFull.mcp, ccSearch.mcp, cc),
    row("toolhost (tools/list, sent)", thFull.whole, thDeferred.whole, thFull.mcp, thDeferred.mcp, th),
    row("toolhost (as a model gets it)", thFull.modelWhole, thDeferred.modelWhole, thFull.modelMCP, thDeferred.modelMCP, thModel),
    `Claude Code, tool search on: tools ${ccSearch.toolsBytes} bytes, plus ${ccSearch.namesBytes} bytes naming the deferred tools in ${ccSearch.where.join(", ")}`,
    `Claude Code defers these built-ins: ${ccSearch.deferredBuiltIns.join(", ")}`,
    `Claude Code lists whole: ${ccSearch.listedWhole.join(", ")}`,
    `toolhost lists whole: ${thDeferred.listedWhole.join(", ")}`,
  ]) {
    t.diagnostic(line);
  }

  assert.ok(th.mcp < 1 / 5, `toolhost's deferred MCP part is ${pct(th.mcp)} of its full one, not under a fifth`);
  assert.ok(thModel.mcp < 1 / 5, `toolhost's deferred MCP part, as a model gets it, is ${pct(thModel.mcp)} of the full one, not under a fifth`);
  assert.ok(th.whole <= cc.whole, `toolhost's deferred listing is ${pct(th.whole)} of its full one, Claude Code's ${pct(cc.whole)}: a tool toolhost lists whole grew or no longer defers`);
  assert.ok(thModel.whole <= cc.whole, `toolhost's deferred listing as a model gets it is ${pct(thModel.whole)} of the full one, Claude Code's ${pct(cc.whole)}`);
});
