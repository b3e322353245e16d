import { strict as assert } from "node:assert";
import { test } from "node:test";
import { taskNotice } from "../src/logic/taskEvents";

test("a Monitor's start and end reach the status bar; other tasks are only logged", () => {
  assert.equal(taskNotice({ taskId: "monitor-3", status: "running", command: "tail -f app.log" }), "toolhost: watching monitor-3: tail -f app.log");
  assert.equal(taskNotice({ taskId: "monitor-3", status: "completed", exitCode: 0, command: "tail -f app.log" }), "toolhost: monitor-3 completed (exit 0): tail -f app.log");
  assert.equal(taskNotice({ taskId: "monitor-4", status: "stopped" }), "toolhost: monitor-4 stopped");
  assert.equal(taskNotice({ taskId: "bash-1", status: "running", command: "make" }), undefined);
  assert.equal(taskNotice({ taskId: "agent-2", status: "completed" }), undefined);
  assert.equal(taskNotice(undefined), undefined);
});
