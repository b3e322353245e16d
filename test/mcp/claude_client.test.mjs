// `npm test` (run by `make test-node` with TOOLHOST_BIN set): Claude Code's
// own MCP client (the `claude` CLI from npm, offline, with a throwaway
// config) connects to `toolhost mcp`. Its health check starts the server
// and completes the MCP handshake; a server that cannot start is reported
// as failed, which the second server checks.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const bin = process.env.TOOLHOST_BIN;
const claude = join(dirname(fileURLToPath(import.meta.url)), "node_modules", ".bin", "claude");
let home;
let project;

// run runs the claude CLI in the project with the throwaway config and
// returns what it printed.
function run(...args) {
  return execFileSync(claude, args, {
    cwd: project,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      ...process.env,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
    },
  });
}

before(() => {
  assert.ok(bin, "set TOOLHOST_BIN to the toolhost binary (make test-node does)");
  home = mkdtempSync(join(tmpdir(), "toolhost-claude-home-"));
  project = join(home, "project");
  mkdirSync(project);
  run("mcp", "add", "-s", "local", "toolhost", "--", bin, "mcp");
  // The same binary with a flag it refuses: it exits before any handshake.
  run("mcp", "add", "-s", "local", "broken", "--", bin, "mcp", "-no-such-flag");
});

after(() => {
  if (home) rmSync(home, { recursive: true, force: true });
});

test("Claude Code connects to toolhost mcp", () => {
  const out = run("mcp", "get", "toolhost");
  assert.match(out, /Status: .*Connected/, out);
});

test("Claude Code reports a server that cannot start", () => {
  const out = run("mcp", "get", "broken");
  assert.doesNotMatch(out, /Status: .*✔ Connected/, out);
  assert.match(out, /Status: .*[Ff]ail/, out);
});
