import { strict as assert } from "node:assert";
import { test } from "node:test";
import { DONT_TRUST, MAX_ITEMS, TRUST, trustAnswer, trustPrompt, trustStatus } from "../src/logic/trust";

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
