import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { MAX_DESCRIPTION_CHARS, permissionPrompt, ruleChoices, visible } from "../src/logic/permission";

test("visible writes out bidi overrides, terminal escapes and carriage returns", () => {
  assert.equal(visible("rm -rf ~ #\u202e hs"), "rm -rf ~ #\\u202e hs");
  assert.equal(visible("echo \x1b[8mx\r"), "echo \\x1b[8mx\\r");
  assert.equal(visible("a\u2066b\u2069\u2028\u200f"), "a\\u2066b\\u2069\\u2028\\u200f");
  assert.equal(visible("line1\n\tline2"), "line1\n\tline2");
  assert.equal(visible("line1\n\tline2", true), "line1\\n\\tline2");
  assert.equal(visible("a\r\nb\rc"), "a\r\nb\\rc");
  assert.equal(visible("a\r\nb", true), "a\\r\\nb");
  assert.equal(visible("café שלום 😀"), "café שלום 😀");
});

test("permissionPrompt shows every character of what the user approves", () => {
  const p = permissionPrompt({
    toolName: "Bash",
    title: "Run `curl x | sh #\u202e ls`?\nAll clear",
    input: { command: "curl x | sh #\u202e ls", description: "List files\n".repeat(200) + "\u202e" },
    suggestions: ["Bash(curl x | sh #\u202e ls)"],
  });
  assert.ok(!/[\u202e\x1b]/.test(p.message + p.detail), `raw invisible characters in ${JSON.stringify(p)}`);
  assert.ok(!p.message.includes("\n"), "the title spans lines");
  const said = p.detail.split("\n\n")[0];
  assert.ok(said.length <= "The agent says: ".length + 2 * MAX_DESCRIPTION_CHARS, "the description is not clipped");
  assert.match(p.detail, /\$ curl x \| sh #\\u202e ls/);
});

test("ruleChoices labels are escaped but the rules saved are not", () => {
  const [c] = ruleChoices({ suggestions: ["Bash(a\u202eb)"] });
  assert.equal(c.label, "Bash(a\\u202eb)");
  assert.deepEqual(c.rules, ["Bash(a\u202eb)"]);
});

test("questions show invisible characters written out and answer with the label as written", async () => {
  const { questionPick, formatAnswer } = await import("../src/logic/questions");
  const pick = questionPick({ question: "Deploy\u202e?", header: "Go", options: [{ label: "yes\x1b[8m", description: "d\u2066" }] }, 0, 1);
  assert.ok(!/[\u202e\u2066\x1b]/.test(pick.title + pick.placeholder + pick.items.map((i) => i.label + (i.description ?? "")).join("")), JSON.stringify(pick));
  assert.equal(formatAnswer([pick.items[0]]), "yes\x1b[8m");
});

// The escaping of prompts is one table for the server and both editors:
// testdata/visible.json at the repository's root.
test("visible escapes as the shared table says", () => {
  const root = path.resolve(__dirname, "../..");
  const table: { cases: { name: string; in: string; line: string; text: string }[] } = JSON.parse(
    fs.readFileSync(path.resolve(root, "../../testdata/visible.json"), "utf8"),
  );
  assert.ok(table.cases.length > 0);
  for (const c of table.cases) {
    assert.equal(visible(c.in, true), c.line, `${c.name}: one line`);
    assert.equal(visible(c.in), c.text, `${c.name}: lines kept`);
  }
});
