import { strict as assert } from "node:assert";
import { test } from "node:test";
import { confirmationFor, invocationMessage, resultParts, toolhostName } from "../src/logic/lmTools";

test("only an ask has a confirmation, titled by toolhost with its diff", () => {
  assert.equal(confirmationFor("Read", { decision: "allow" }), undefined);
  assert.equal(confirmationFor("Bash", { decision: "deny", reason: "denied by a rule" }), undefined);
  const c = confirmationFor("Edit", {
    decision: "ask",
    title: "Edit a.txt?",
    risk: "medium",
    reason: "no rule allows it",
    preview: { kind: "diff", text: "--- a/a.txt\n+++ b/a.txt\n-x\n+y" },
  });
  assert.ok(c);
  assert.equal(c.title, "Edit a.txt?");
  assert.match(c.message, /^```diff\n--- a\/a.txt\n\+\+\+ b\/a.txt\n-x\n\+y\n```/);
  assert.match(c.message, /Risk: medium\. toolhost asks because no rule allows it\./);
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
