import { strict as assert } from "node:assert";
import { test } from "node:test";
import { taskListAsTodos } from "../src/logic/taskList";
import { todoNodes } from "../src/logic/todos";

test("tasks become todos with id, owner and open blockers", () => {
  const tasks = [
    { id: "1", subject: "Write tests", status: "completed", blockedBy: [] },
    { id: "2", subject: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug", owner: "me", blockedBy: ["1"] },
    { id: "3", subject: "Release", status: "pending", blockedBy: ["2"] },
  ];
  assert.deepEqual(taskListAsTodos(tasks), [
    { content: "#1 Write tests", status: "completed" },
    { content: "#2 Fix the bug (me)", status: "in_progress", activeForm: "Fixing the bug" },
    { content: "#3 Release [blocked by #2]", status: "pending" },
  ]);
  assert.deepEqual(taskListAsTodos(undefined), []);
});

test("a running task's row is its subject; what it is doing stands beside it", () => {
  const [node] = todoNodes(taskListAsTodos([{ id: "7", subject: "Paint the button", status: "in_progress", activeForm: "Painting the button" }]));
  assert.equal(node.label, "#7 Paint the button");
  assert.equal(node.description, "in progress: Painting the button");
});
