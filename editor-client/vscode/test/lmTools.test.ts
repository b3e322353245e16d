import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  CheckResult,
  confirmationFor,
  invocationMessage,
  MAX_PENDING_APPROVALS,
  PendingApprovals,
  resultParts,
  reviewedByToolhost,
  toolhostName,
} from "../src/logic/lmTools";

test("only an ask has a confirmation, titled by toolhost with its preview", () => {
  assert.equal(confirmationFor("Read", { decision: "allow" }), undefined);
  assert.equal(confirmationFor("Bash", { decision: "deny", reason: "denied by a rule" }), undefined);
  const c = confirmationFor("WebFetch", {
    decision: "ask",
    title: "Fetch a page?",
    risk: "medium",
    reason: "no rule allows it",
    preview: { kind: "diff", text: "--- a/a.txt\n+++ b/a.txt\n-x\n+y" },
  });
  assert.ok(c);
  assert.equal(c.title, "Fetch a page?");
  assert.match(c.message, /^```diff\n--- a\/a.txt\n\+\+\+ b\/a.txt\n-x\n\+y\n```/);
  assert.match(c.message, /Risk: medium\. toolhost asks because no rule allows it\./);
});

test("file changes are reviewed by toolhost, never by the chat's confirmation", () => {
  const ask = { decision: "ask", title: "Edit a.txt?", preview: { kind: "diff", text: "-x\n+y" } } as const;
  const cases: [string, CheckResult, boolean][] = [
    ["Edit", ask, true],
    ["Write", ask, true],
    ["NotebookEdit", ask, true],
    ["Bash", { decision: "ask", preview: { kind: "command", text: "ls" } }, false],
    // toolhost's own settings allow it (acceptEdits, a rule): no review.
    ["Edit", { decision: "allow" }, false],
  ];
  for (const [name, check, reviewed] of cases) {
    assert.equal(reviewedByToolhost(name, check), reviewed, `${name} ${check.decision}`);
    if (reviewed) {
      assert.equal(confirmationFor(name, check), undefined, `${name}: no chat confirmation to "Allow in this Session"`);
    }
  }
});

test("a preview with backticks keeps its fence closed", () => {
  const c = confirmationFor("Bash", { decision: "ask", preview: { kind: "command", text: "echo ```" } });
  assert.ok(c);
  assert.equal(c.title, "Allow Bash?");
  assert.match(c.message, /^````sh\necho ```\n````$/);
});

test("names and invocation messages", () => {
  assert.equal(toolhostName("toolhost_Read"), "Read");
  assert.equal(invocationMessage("Read", { file_path: "/w/a.txt" }), "toolhost Read: /w/a.txt");
  assert.equal(invocationMessage("Bash", { command: "make\n  test" }), "toolhost Bash: make test");
  assert.equal(invocationMessage("TodoWrite", { todos: [] }), "toolhost TodoWrite");
});

test("result parts keep text and images, and never come back empty", () => {
  assert.deepEqual(resultParts({ content: [{ type: "text", text: "a" }, { type: "image", data: "AA==", mimeType: "image/png" }] }), [
    { kind: "text", text: "a" },
    { kind: "image", data: "AA==", mimeType: "image/png" },
  ]);
  assert.deepEqual(resultParts({ content: [], isError: true }), [{ kind: "text", text: "Error: the call failed without a message." }]);
});

test("a check's approval token goes to the invocation of the same input, once", () => {
  const tests: { name: string; put: [string, unknown, string | undefined][]; take: [string, unknown]; want: string | undefined }[] = [
    { name: "same input", put: [["Bash", { command: "ls" }, "approval-1"]], take: ["Bash", { command: "ls" }], want: "approval-1" },
    { name: "another input", put: [["Bash", { command: "ls" }, "approval-1"]], take: ["Bash", { command: "ls -a" }], want: undefined },
    { name: "another tool", put: [["Read", { file_path: "a" }, "approval-1"]], take: ["Write", { file_path: "a" }], want: undefined },
    { name: "checked again", put: [["Bash", { command: "ls" }, "approval-1"], ["Bash", { command: "ls" }, "approval-2"]], take: ["Bash", { command: "ls" }], want: "approval-2" },
    { name: "denied on the second check", put: [["Bash", { command: "ls" }, "approval-1"], ["Bash", { command: "ls" }, undefined]], take: ["Bash", { command: "ls" }], want: undefined },
  ];
  for (const tt of tests) {
    const pending = new PendingApprovals();
    for (const [name, input, token] of tt.put) {
      pending.put(name, input, token);
    }
    assert.equal(pending.take(...tt.take), tt.want, tt.name);
    assert.equal(pending.take(...tt.take), undefined, tt.name + ": taken twice");
  }
});

test("pending approvals are bounded, the oldest forgotten first", () => {
  const pending = new PendingApprovals();
  for (let i = 0; i <= MAX_PENDING_APPROVALS; i++) {
    pending.put("Bash", { command: `echo ${i}` }, `approval-${i}`);
  }
  assert.equal(pending.take("Bash", { command: "echo 0" }), undefined);
  assert.equal(pending.take("Bash", { command: "echo 1" }), "approval-1");
  assert.equal(pending.take("Bash", { command: `echo ${MAX_PENDING_APPROVALS}` }), `approval-${MAX_PENDING_APPROVALS}`);
});
