import { strict as assert } from "node:assert";
import { test } from "node:test";
import { LspDiagnostic, tsAnswerDiagnostics, tsProblems, withTsAnswer } from "../src/logic/tsDiagnostics";

const at = (line: number, offset: number) => ({ line, offset });
const typeError = { start: at(2, 7), end: at(2, 12), text: "Type 'string' is not assignable to type 'number'.", code: 2322, category: "error" };
const unused = { start: at(3, 7), end: at(3, 13), text: "'unused' is declared but its value is never read.", code: 6133, category: "error" };
const hint = { start: at(1, 1), end: at(1, 5), text: "File is a CommonJS module.", code: 80001, category: "suggestion" };

test("tsAnswerDiagnostics joins the bodies of successful answers", () => {
  const got = tsAnswerDiagnostics([
    { type: "response", success: true, body: [typeError] },
    { type: "response", success: true, body: [unused, hint] },
  ]);
  assert.deepEqual(got, [typeError, unused, hint]);
});

test("tsAnswerDiagnostics gives up on any answer it cannot read, so the caller waits for the editor instead", () => {
  const ok = { type: "response", success: true, body: [] };
  const cases: [string, unknown][] = [
    ["no answer (the command is missing or refused)", undefined],
    ["a failed request", { type: "response", success: false, message: "No Project." }],
    ["a cancelled request", { type: "cancelled" }],
    ["no body", { type: "response", success: true }],
    ["a diagnostic without positions", { type: "response", success: true, body: [{ text: "x", category: "error" }] }],
    ["a diagnostic with an older server's line-position shape", { type: "response", success: true, body: [{ start: 3, length: 2, message: "x", category: "error" }] }],
  ];
  for (const [name, answer] of cases) {
    assert.equal(tsAnswerDiagnostics([ok, answer]), undefined, name);
  }
});

test("tsProblems keeps errors and warnings, 0-based, with the editor's severities", () => {
  const warning = { start: at(4, 1), end: at(4, 2), text: "w", code: 1, category: "warning" };
  const plugin = { ...typeError, source: "my-plugin" };
  const got = tsProblems([typeError, unused, hint, warning, plugin], true);
  assert.deepEqual(got, [
    { range: { start: { line: 1, character: 6 }, end: { line: 1, character: 11 } }, severity: 1, message: typeError.text, code: 2322, source: "ts" },
    { range: { start: { line: 2, character: 6 }, end: { line: 2, character: 12 } }, severity: 2, message: unused.text, code: 6133, source: "ts" },
    { range: { start: { line: 3, character: 0 }, end: { line: 3, character: 1 } }, severity: 2, message: "w", code: 1, source: "ts" },
    { range: { start: { line: 1, character: 6 }, end: { line: 1, character: 11 } }, severity: 1, message: typeError.text, code: 2322, source: "my-plugin" },
  ]);
});

test("tsProblems counts a message as an error, as the editor does", () => {
  assert.deepEqual(tsProblems([{ ...typeError, category: "message" }], true).map((d) => d.severity), [1]);
});

test("tsProblems reports style checks as errors when the editor does", () => {
  assert.deepEqual(tsProblems([unused], false).map((d) => d.severity), [1]);
});

test("withTsAnswer replaces TypeScript's errors and warnings and keeps the rest", () => {
  const d = (source: string | undefined, severity: number, message: string): LspDiagnostic => ({
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity, message, source,
  });
  const editor = [d("ts", 1, "stale error"), d("ts", 2, "stale warning"), d("ts", 4, "unused hint"), d("eslint", 2, "lint"), d("my-plugin", 1, "stale plugin")];
  const asked = [d("ts", 1, "fresh error"), d("my-plugin", 1, "fresh plugin")];
  assert.deepEqual(withTsAnswer(editor, asked).map((x) => x.message), ["unused hint", "lint", "fresh error", "fresh plugin"]);
  assert.deepEqual(withTsAnswer(editor, []).map((x) => x.message), ["unused hint", "lint", "stale plugin"]);
});
