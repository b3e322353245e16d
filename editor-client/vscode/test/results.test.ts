import { strict as assert } from "node:assert";
import { test } from "node:test";
import { fence, formatResult, formatStatus } from "../src/logic/results";

test("formatResult shows state, time, input and each block", () => {
  const text = formatResult("Bash", { command: "echo hi" }, {
    isError: true,
    durationMs: 12,
    content: [
      { type: "text", text: "Error: exit 1" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
    ],
  });
  const lines = text.split("\n");
  assert.equal(lines[0], "# Bash — error, 12 ms");
  assert.ok(text.includes('"command": "echo hi"'));
  assert.ok(text.includes("```\nError: exit 1\n```"));
  assert.ok(text.includes("[image/png, 3 bytes]"));
});

test("fence grows past backticks in the text", () => {
  assert.equal(fence("a ``` b"), "````\na ``` b\n````");
});

test("formatStatus puts the mode first and every other key as JSON", () => {
  const text = formatStatus({ permissionMode: "plan", tasks: [{ id: "t1" }] });
  assert.match(text, /^# toolhost status\n\nPermission mode: \*\*plan\*\*\n\n## tasks\n/);
  assert.ok(text.includes('"id": "t1"'));
});

test("formatStatus shows the tools as a table", () => {
  const text = formatStatus({
    tools: [
      { name: "Read", category: "core", enabled: true },
      { name: "WebSearch", category: "network", enabled: false },
    ],
  });
  assert.ok(text.includes("| tool | category | enabled |\n| --- | --- | --- |\n| Read | core | yes |\n| WebSearch | network | no |"), text);
});

test("formatResult puts the answer before the echoed input", () => {
  const text = formatResult("Read", { file_path: "a.txt" }, { content: [{ type: "text", text: "ANSWER" }] });
  assert.ok(text.indexOf("ANSWER") < text.indexOf("Input:"), text);
});

test("formatStatus shows what the extension knows and settings problems as text", () => {
  const text = formatStatus(
    { permissionMode: "default", settingsProblems: [{ file: "/w/.toolhost/settings.json", key: "x", message: "unknown key" }], mcpServers: [] },
    { version: "1.2.3", binary: "/bin/toolhost", state: "running" },
  );
  assert.match(text, /- Version: 1\.2\.3/);
  assert.match(text, /- Binary: \/bin\/toolhost/);
  assert.match(text, /- \/w\/\.toolhost\/settings\.json \(x\): unknown key/);
  assert.match(text, /## mcpServers\n\nNone\./);
});

test("formatStatus never shows a token", () => {
  const text = formatStatus({
    agentEndpoint: { url: "http://127.0.0.1:1/mcp", token: "AGENT-SECRET", editorToken: "EDITOR-SECRET", serversUrl: "http://127.0.0.1:1/mcp/servers" },
    mcpServers: [{ name: "gh", headers: { Authorization: "Bearer HEADER-SECRET" } }],
  });
  for (const secret of ["AGENT-SECRET", "EDITOR-SECRET", "HEADER-SECRET"]) {
    assert.ok(!text.includes(secret), `${secret} shown:\n${text}`);
  }
  assert.ok(text.includes("http://127.0.0.1:1/mcp/servers"), "the rest of the endpoint is still shown");
});

test("formatStatus states where VS Code reviews an edit", () => {
  const cases: Array<[string, RegExp]> = [
    ["dialog", /- Edit review: diff editor/],
    ["editor", /- Edit review: Refactor Preview/],
    ["turn", /- Edit review: one review per turn/],
  ];
  for (const [editReview, want] of cases) {
    assert.match(formatStatus({ editReview }), want, editReview);
  }
});

test("formatStatus lists every ignored folder setting", () => {
  const text = formatStatus({
    tools: [{ name: "Read", category: "files" }],
    trust: {
      roots: [{ root: "/w", trusted: false, reason: "declined" }],
      ignored: [
        { file: "/w/.toolhost/settings.json", key: "mcpServers", what: "start the MCP server pwn: sh -c touch x" },
        { file: "/w/.toolhost/settings.json", key: "permissions", what: "allow Bash(rm:*)" },
      ],
    },
  });
  assert.match(text, /- \/w: not trusted \(declined\)/);
  assert.match(text, /### 2 folder settings ignored until the folder is trusted/);
  assert.match(text, /- start the MCP server pwn: sh -c touch x \(\/w\/\.toolhost\/settings\.json, mcpServers\)/);
  assert.match(text, /- allow Bash\(rm:\*\)/);
  assert.ok(text.indexOf("## trust") < text.indexOf("## tools"), "the trust section comes before the long ones");
});
