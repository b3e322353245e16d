import { strict as assert } from "node:assert";
import { test } from "node:test";
import { MAX_PROGRESS_CHARS, progressLine } from "../src/logic/progress";

test("progressLine shows the last line with text of a report", () => {
  const cases: Array<[string | undefined, string | undefined]> = [
    ["step 1\nstep 2\nstep 3", "step 3"],
    ["step 1\nstep 2\n\n", "step 2"],
    ["windows\r\nline ends\r\n", "line ends"],
    ["  indented  ", "indented"],
    ["", undefined],
    ["\n\n", undefined],
    [undefined, undefined],
  ];
  for (const [message, want] of cases) {
    assert.equal(progressLine(message), want, JSON.stringify(message));
  }
});

test("progressLine cuts a long line", () => {
  const got = progressLine("x".repeat(MAX_PROGRESS_CHARS + 50));
  assert.equal(got, `${"x".repeat(MAX_PROGRESS_CHARS)}…`);
});
