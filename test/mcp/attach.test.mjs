// `npm test` (run by `make test-node` with TOOLHOST_BIN set): an MCP client
// process — the official TypeScript SDK's, and Claude Code's CLI — reaches
// a running editor session through `toolhost mcp --attach`. The editor is a
// `toolhost serve` driven over LSP by vscode-jsonrpc, as VS Code drives it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, existsSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import rpc from "vscode-jsonrpc/node.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.TOOLHOST_BIN;
const claude = join(dirname(fileURLToPath(import.meta.url)), "node_modules", ".bin", "claude");
let work; // the workspace
let runtime; // XDG_RUNTIME_DIR of every process here: the session files
let editor;

/** Resolves when cond() holds of what the editor saw; checked on each event. */
function seen(cond) {
  return new Promise((resolve) => {
    const check = () => {
      if (cond()) {
        editor.listeners.delete(check);
        resolve();
      }
    };
    editor.listeners.add(check);
    check();
  });
}

before(async () => {
  assert.ok(bin, "set TOOLHOST_BIN to the toolhost binary (make test-node does)");
  work = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-attach-")));
  runtime = join(work, ".runtime");
  mkdirSync(runtime, { mode: 0o700 });
  mkdirSync(join(work, "sub"));
  writeFileSync(join(work, "a.txt"), "on disk\n");
  const child = spawn(bin, ["serve"], { cwd: work, env: { ...process.env, XDG_RUNTIME_DIR: runtime }, stdio: ["pipe", "pipe", "inherit"] });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  editor = { conn, child, exited: new Promise((r) => child.on("exit", r)), edits: [], prompts: [], progress: [], listeners: new Set() };
  const changed = () => editor.listeners.forEach((f) => f());
  conn.onRequest("workspace/applyEdit", (p) => {
    editor.edits.push(p);
    changed();
    return { applied: true };
  });
  conn.onRequest("toolhost/requestPermission", (p) => {
    editor.prompts.push(p);
    changed();
    return { decision: "allow" };
  });
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.onNotification("$/progress", (p) => {
    editor.progress.push(p.value);
    changed();
  });
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(work).href,
    clientInfo: { name: "vscode-jsonrpc test editor" },
    capabilities: {
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ["create"] } },
      window: { workDoneProgress: true },
      experimental: { toolhost: { requestPermission: true } },
    },
  });
  await conn.sendNotification("initialized", {});
  await conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: pathToFileURL(join(work, "a.txt")).href, languageId: "plaintext", version: 1, text: "typed, not saved\n" },
  });
  editor.status = await conn.sendRequest("toolhost/status", {});
});

after(async () => {
  if (editor && editor.child.exitCode === null) editor.child.kill();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A TypeScript SDK client started as `toolhost mcp --attach` in cwd. */
async function attach(cwd, name = "ts-sdk-agent") {
  const client = new Client({ name, version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--attach"],
    cwd,
    env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    stderr: "pipe",
  });
  let stderr = "";
  const waiting = new Set();
  transport.stderr?.on("data", (d) => {
    stderr += d;
    waiting.forEach((f) => f());
  });
  await client.connect(transport);
  // stderrHas resolves once stderr matches re: it arrives on its own pipe,
  // maybe after the handshake's answer.
  const stderrHas = (re) =>
    new Promise((resolve) => {
      const check = () => {
        if (re.test(stderr)) {
          waiting.delete(check);
          resolve();
        }
      };
      waiting.add(check);
      check();
    });
  return { client, stderrHas };
}

const text = (res) => res.content.map((c) => c.text ?? "").join("");

test("the session announces its endpoint in a private file and in toolhost/status", () => {
  const ep = editor.status.agentEndpoint;
  assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  assert.ok(ep.sessionFile.startsWith(runtime), ep.sessionFile);
  assert.equal(statSync(ep.sessionFile).mode & 0o777, 0o600);
});

test("a wrong token is refused", async () => {
  const res = await fetch(editor.status.agentEndpoint.url, {
    method: "POST",
    headers: { Authorization: "Bearer wrong", "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
  });
  assert.equal(res.status, 401);
});

test("an attached client works inside the editor session", { timeout: 60_000 }, async (t) => {
  const { client } = await attach(join(work, "sub"));
  t.after(() => client.close());
  assert.match(client.getInstructions() ?? "", /inside the user's/);

  await t.test("its Read sees the unsaved buffer", async () => {
    const res = await client.callTool({ name: "Read", arguments: { file_path: join(work, "a.txt") } });
    assert.match(text(res), /typed, not saved/);
  });

  await t.test("its Write is asked in the editor, naming it, and arrives as workspace/applyEdit", async () => {
    const res = await client.callTool({ name: "Write", arguments: { file_path: join(work, "new.txt"), content: "from the agent\n" } });
    assert.ok(!res.isError, text(res));
    const prompt = editor.prompts.find((p) => p.toolName === "Write");
    assert.ok(prompt, "the editor was asked");
    assert.match(prompt.title, /^ts-sdk-agent wants to run Write: /);
    const edit = editor.edits.at(-1);
    assert.ok(JSON.stringify(edit).includes(pathToFileURL(join(work, "new.txt")).href), JSON.stringify(edit));
  });

  await t.test("progress reaches the client and the editor; cancellation reaches the call in the session", async () => {
    const controller = new AbortController();
    const reports = [];
    let reported;
    const gotReport = new Promise((r) => (reported = r));
    const call = client.callTool({ name: "Bash", arguments: { command: "echo progress-line; sleep 60" } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => {
        reports.push(p.message ?? "");
        if (/progress-line/.test(p.message ?? "")) reported();
      },
    });
    await seen(() => editor.progress.some((v) => v.kind === "begin" && /Bash/.test(v.title)));
    await gotReport;
    await seen(() => editor.progress.some((v) => v.kind === "report" && /progress-line/.test(v.message ?? "")));
    controller.abort();
    await assert.rejects(call);
    await seen(() => editor.progress.some((v) => v.kind === "end" && /^cancelled/.test(v.message ?? "")));
  });
});

test("with no session for the folder, --attach serves standalone and says so", { timeout: 30_000 }, async (t) => {
  const elsewhere = mkdtempSync(join(tmpdir(), "toolhost-attach-none-"));
  t.after(() => rmSync(elsewhere, { recursive: true, force: true }));
  const { client, stderrHas } = await attach(elsewhere);
  t.after(() => client.close());
  assert.match(client.getInstructions() ?? "", /standalone/);
  await stderrHas(/serving a standalone session/);
});

test("Claude Code's CLI lists toolhost's tools through --attach", async () => {
  const home = join(work, ".claude-home");
  mkdirSync(home);
  const run = (...args) =>
    execFileSync(claude, args, {
      cwd: work,
      encoding: "utf8",
      timeout: 60_000,
      env: {
        ...process.env,
        HOME: home,
        XDG_RUNTIME_DIR: runtime,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
      },
    });
  const attachedBefore = await attachedAgents();
  run("mcp", "add", "-s", "local", "toolhost", "--", bin, "mcp", "--attach");
  const out = run("mcp", "get", "toolhost");
  assert.match(out, /Status: .*Connected/, out);
  assert.match(out, /mcp --attach/, out);
  // It reached the editor session, not a standalone one.
  assert.ok((await attachedAgents()) > attachedBefore, "Claude Code's server did not connect to the editor session");
});

/** How many `toolhost mcp --attach` connected to the session (toolhost/status). */
async function attachedAgents() {
  const { agentEndpoint } = await editor.conn.sendRequest("toolhost/status", {});
  return agentEndpoint.agents.filter((a) => a.name === "toolhost mcp --attach").length;
}

test("after the editor session exits, its session file is gone", async () => {
  const file = editor.status.agentEndpoint.sessionFile;
  assert.ok(existsSync(file));
  await editor.conn.sendRequest("shutdown");
  await editor.conn.sendNotification("exit");
  assert.equal(await editor.exited, 0);
  assert.equal(existsSync(file), false);
});
