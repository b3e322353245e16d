// `make test-dist`: the npm packages made by `make dist`, installed into an
// empty folder as a user would (the launcher and this platform's package,
// from their tarballs), driven by the TypeScript MCP SDK's client through
// `npx toolhost mcp` and `npx toolhost mcp --attach`.
// TOOLHOST_DIST names the folder of artifacts.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import rpc from "vscode-jsonrpc/node.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const dist = process.env.TOOLHOST_DIST;
const platform = `${process.platform}-${process.arch}`;
let app; // the folder the packages are installed in, also the workspace
let runtime; // XDG_RUNTIME_DIR of the editor session and the attached client

const text = (res) => res.content.map((c) => c.text ?? "").join("");

before(() => {
  assert.ok(dist, "set TOOLHOST_DIST to the folder `make dist` wrote (make test-dist does)");
  const files = readdirSync(dist);
  // toolhost-<version>.tgz; the platform packages are toolhost-<os>-<cpu>-<version>.tgz.
  const launcher = files.find((f) => /^toolhost-\d.*\.tgz$/.test(f));
  const native = files.find((f) => f.startsWith(`toolhost-${platform}-`) && f.endsWith(".tgz"));
  assert.ok(launcher, `no launcher tarball (toolhost-<version>.tgz) in ${dist}: ${files.join(" ")}`);
  assert.ok(native, `no tarball for ${platform} in ${dist}: ${files.join(" ")}`);
  app = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-npm-")));
  runtime = join(app, ".runtime");
  mkdirSync(runtime, { mode: 0o700 });
  writeFileSync(join(app, "hello.txt"), "hello from disk\n");
  // --offline: nothing beyond the tarballs is fetched; the other platforms'
  // optional packages are simply not installed.
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dist, launcher), join(dist, native)], {
    cwd: app,
    stdio: ["ignore", "inherit", "inherit"],
  });
});

after(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

test("the packages carry no install scripts", () => {
  for (const pkg of ["toolhost", `@toolhost/${platform}`]) {
    const manifest = JSON.parse(readFileSync(join(app, "node_modules", pkg, "package.json"), "utf8"));
    for (const hook of ["preinstall", "install", "postinstall", "prepare"]) {
      assert.equal(manifest.scripts?.[hook], undefined, `${pkg} has a ${hook} script`);
    }
  }
});

test("npx toolhost mcp: an MCP client lists and calls the tools", { timeout: 60_000 }, async (t) => {
  const client = new Client({ name: "npm-package-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: "npx", args: ["toolhost", "mcp"], cwd: app, stderr: "inherit" }));
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, "toolhost");
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const want of ["Read", "Bash", "Edit", "Grep"]) {
    assert.ok(names.includes(want), `${want} is missing from ${names.join(", ")}`);
  }
  const res = await client.callTool({ name: "Read", arguments: { file_path: join(app, "hello.txt") } });
  assert.equal(res.isError ?? false, false, text(res));
  assert.match(text(res), /hello from disk/);
});

test("npx toolhost mcp --attach: the call runs inside the editor session", { timeout: 60_000 }, async (t) => {
  // The editor: the installed binary as `toolhost serve`, driven over LSP.
  const bin = join(app, "node_modules", "@toolhost", platform, "bin", "toolhost");
  const child = spawn(bin, ["serve"], { cwd: app, env: { ...process.env, XDG_RUNTIME_DIR: runtime }, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((r) => child.on("exit", r));
  t.after(async () => {
    child.kill();
    await exited;
  });
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  conn.onRequest("toolhost/requestPermission", () => ({ decision: "allow" }));
  conn.listen();
  await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(app).href,
    clientInfo: { name: "npm package test editor" },
    capabilities: { experimental: { toolhost: { requestPermission: true } } },
  });
  await conn.sendNotification("initialized", {});
  // A buffer with unsaved typing: only a call that runs in this session sees it.
  await conn.sendNotification("textDocument/didOpen", {
    textDocument: { uri: pathToFileURL(join(app, "hello.txt")).href, languageId: "plaintext", version: 1, text: "typed in the editor\n" },
  });
  await conn.sendRequest("toolhost/status", {});

  const client = new Client({ name: "npm-package-attach-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: "npx",
      args: ["toolhost", "mcp", "--attach"],
      cwd: app,
      env: { ...process.env, XDG_RUNTIME_DIR: runtime },
      stderr: "inherit",
    }),
  );
  t.after(() => client.close());
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes("Read"), names.join(", "));
  const res = await client.callTool({ name: "Read", arguments: { file_path: join(app, "hello.txt") } });
  assert.equal(res.isError ?? false, false, text(res));
  assert.match(text(res), /typed in the editor/);
});
