import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  ALLOW,
  ALLOW_ALWAYS,
  clip,
  DENY,
  DENY_FEEDBACK,
  describeInput,
  permissionActions,
  permissionAnswer,
  permissionPrompt,
  ruleChoices,
} from "../src/logic/permission";

test("permissionPrompt shows a Bash call's risk on its own line and its command once", () => {
  const tests = [
    { name: "from the input", params: { toolName: "Bash", title: "Run `rm -rf build`?", risk: "high", input: { command: "rm -rf build" } } },
    {
      name: "from the preview",
      params: { toolName: "Bash", title: "Run `rm -rf build`?", risk: "high", input: { command: "rm -rf build" }, preview: { kind: "command", text: "$ rm -rf build" } },
    },
  ];
  for (const t of tests) {
    const p = permissionPrompt(t.params);
    assert.equal(p.message, "Run this command?", t.name);
    assert.equal(p.detail, "Risk: high\n\n$ rm -rf build", t.name);
    assert.equal(`${p.message}\n${p.detail}`.split("rm -rf build").length - 1, 1, `${t.name}: the command appears once`);
  }
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
  assert.match(p.detail, /"Always allow…" saves: Edit\(src\/\*\*\), Edit\(a\.go\)$/);
});

test("permissionAnswer maps each button; a plain denial has no words, feedback is sent as typed", () => {
  assert.deepEqual(permissionAnswer(ALLOW), { decision: "allow" });
  assert.deepEqual(permissionAnswer(ALLOW_ALWAYS), { decision: "allowAlways" });
  assert.deepEqual(permissionAnswer(ALLOW_ALWAYS, { rules: ["Bash(python3:*)"] }), { decision: "allowAlways", rules: ["Bash(python3:*)"] });
  assert.deepEqual(permissionAnswer(DENY), { decision: "deny" });
  assert.deepEqual(permissionAnswer(DENY_FEEDBACK, { feedback: "use the staging db " }), { decision: "deny", message: "use the staging db " });
  assert.deepEqual(permissionAnswer(DENY_FEEDBACK, { feedback: "  " }), { decision: "deny" });
  assert.equal(permissionAnswer(undefined), null);
});

test("permissionActions: Enter on the first button never approves a high-risk call", () => {
  assert.equal(permissionActions({ risk: "low" })[0], ALLOW);
  assert.equal(permissionActions({ risk: "high" })[0], DENY_FEEDBACK);
  assert.equal(permissionActions({ risk: "critical" })[0], DENY_FEEDBACK);
  assert.ok(!permissionActions({ risk: "low" }).includes(DENY), "Deny is the close affordance, not a second button");
});

test("permissionPrompt shows the model's description", () => {
  const p = permissionPrompt({ toolName: "Bash", input: { command: "make", description: "Build the app" } });
  assert.match(p.detail, /^The agent says: Build the app\n\n\$ make/);
});

test("ruleChoices offers the narrow rules first, then each broader one", () => {
  const c = ruleChoices({ suggestions: ["Bash(python3 app.py)"], broaderSuggestions: ["Bash(python3:*)"] });
  assert.deepEqual(c.map((x) => x.rules), [["Bash(python3 app.py)"], ["Bash(python3:*)"]]);
  assert.deepEqual(ruleChoices({}), []);
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

test("permissionPrompt shows a command once: its own rule is named, not quoted again", () => {
  const command = "for i in $(seq 1 30); do echo step-$i; sleep 1; done";
  const cases = [
    { suggestions: [`Bash(${command})`], saves: '"Always allow…" saves: Bash(this exact command)' },
    { suggestions: [`Bash(${command})`, "Bash(for:*)"], saves: '"Always allow…" saves: Bash(this exact command), Bash(for:*)' },
  ];
  for (const c of cases) {
    const p = permissionPrompt({ toolName: "Bash", risk: "low", input: { command }, preview: { kind: "command", text: command }, suggestions: c.suggestions });
    assert.equal(p.detail.split("seq 1 30").length - 1, 1, p.detail);
    assert.ok(p.detail.endsWith(c.saves), p.detail);
  }
});
