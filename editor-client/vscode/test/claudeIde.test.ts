import { strict as assert } from "node:assert";
import { test } from "node:test";
import { claudeIdeEnabled, findRange, selectionParams, severityName } from "../src/logic/claudeIde";

test("claudeIdeEnabled: auto gives way to Anthropic's extension; on and off decide", () => {
  for (const [setting, anthropic, want] of [
    [undefined, false, true],
    ["auto", false, true],
    ["auto", true, false],
    [undefined, true, false],
    ["on", true, true],
    ["off", false, false],
  ] as const) {
    assert.equal(claudeIdeEnabled(setting, anthropic), want, `${setting} with Anthropic's extension ${anthropic}`);
  }
});

test("severityName follows VS Code's numbering", () => {
  assert.deepEqual([0, 1, 2, 3, 9].map(severityName), ["Error", "Warning", "Information", "Hint", "Error"]);
});

test("selectionParams marks an empty selection", () => {
  assert.equal(selectionParams("", "/a", "file:///a", { line: 1, character: 2 }, { line: 1, character: 2 }).selection.isEmpty, true);
  assert.equal(selectionParams("x", "/a", "file:///a", { line: 1, character: 2 }, { line: 1, character: 3 }).selection.isEmpty, false);
});

test("findRange finds startText, up to endText or the end of the line", () => {
  const text = "alpha\nbeta gamma\ndelta\n";
  for (const [start, end, eol, want] of [
    ["beta", undefined, false, "beta"],
    ["beta", "delta", false, "beta gamma\ndelta"],
    ["beta", undefined, true, "beta gamma"],
    ["nope", undefined, false, undefined],
  ] as const) {
    const r = findRange(text, start, end, eol);
    assert.equal(r && text.slice(r.start, r.end), want);
  }
});
