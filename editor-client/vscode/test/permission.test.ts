import { strict as assert } from "node:assert";
import { test } from "node:test";
import { ALLOW, ALLOW_ALWAYS, clip, DENY, describeInput, permissionAnswer, permissionPrompt } from "../src/logic/permission";

test("permissionPrompt shows the command of a Bash call and the risk", () => {
  const p = permissionPrompt({ toolName: "Bash", title: "Run a command?", risk: "high", input: { command: "rm -rf build" } });
  assert.equal(p.message, "Run a command? [risk: high]");
  assert.equal(p.detail, "$ rm -rf build");
});

test("permissionPrompt prefers the preview and lists suggested rules", () => {
  const p = permissionPrompt({
    toolName: "Edit",
    input: { file_path: "a.go" },
    preview: { kind: "diff", text: "--- a.go\n+++ a.go\n-x\n+y" },
    suggestions: ["Edit(src/**)", "Edit(a.go)"],
  });
  assert.equal(p.message, "Allow Edit?");
  assert.match(p.detail, /^--- a\.go\n\+\+\+ a\.go\n-x\n\+y/);
  assert.match(p.detail, /"Always allow" adds: Edit\(src\/\*\*\), Edit\(a\.go\)$/);
});

test("permissionAnswer maps each button, and a closed modal denies", () => {
  const cases: Array<[string | undefined, string]> = [
    [ALLOW, "allow"],
    [ALLOW_ALWAYS, "allowAlways"],
    [DENY, "deny"],
    [undefined, "deny"],
    ["Cancel", "deny"],
  ];
  for (const [choice, decision] of cases) {
    assert.equal(permissionAnswer(choice).decision, decision, String(choice));
  }
  assert.match(permissionAnswer(undefined).message ?? "", /dismissed/);
});

test("describeInput names the path or URL, else prints JSON", () => {
  assert.equal(describeInput("Write", { file_path: "/w/x.txt", content: "hi" }), "Write: /w/x.txt");
  assert.equal(describeInput("WebFetch", { url: "https://example.com" }), "WebFetch: https://example.com");
  assert.equal(describeInput("Custom", { n: 1 }), '{\n  "n": 1\n}');
  assert.equal(describeInput("X", undefined), "");
});

test("clip keeps the first lines and counts the rest", () => {
  const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
  const out = clip(text, 40).split("\n");
  assert.equal(out.length, 41);
  assert.equal(out[39], "line 39");
  assert.equal(out[40], "… 10 more lines");
  assert.equal(clip("a\nb", 40), "a\nb");
});
