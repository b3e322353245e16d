import { strict as assert } from "node:assert";
import { test } from "node:test";
import { openCount, todoNodes, todoSummary } from "../src/logic/todos";

const todos = [
  { content: "Write tests", status: "completed", activeForm: "Writing tests" },
  { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
  { content: "Release", status: "pending", activeForm: "Releasing" },
];

test("todoNodes labels every todo with its subject, the running one saying what it does beside it", () => {
  assert.deepEqual(todoNodes(todos), [
    { label: "Write tests", description: "completed", icon: "pass-filled", done: true },
    { label: "Fix the bug", description: "in progress: Fixing the bug", icon: "sync", done: false },
    { label: "Release", description: "pending", icon: "circle-large-outline", done: false },
  ]);
});

test("summary and open count", () => {
  assert.equal(todoSummary(todos), "1/3 done");
  assert.equal(openCount(todos), 2);
  assert.equal(todoSummary([]), "");
  assert.equal(todoSummary(undefined), "");
  assert.equal(openCount(undefined), 0);
});
