import { strict as assert } from "node:assert";
import { test } from "node:test";
import { initializationOptions, isMode, modeOf, statusBarText } from "../src/logic/modes";

test("modeOf finds the mode in a status result", () => {
  assert.equal(modeOf({ permissionMode: "plan" }), "plan");
  assert.equal(modeOf({ mode: "acceptEdits" }), "acceptEdits");
  assert.equal(modeOf({ permissions: { mode: "dontAsk" } }), "dontAsk");
  assert.equal(modeOf({ tools: [] }), undefined);
  assert.equal(modeOf(undefined), undefined);
});

test("initializationOptions puts a known mode in the settings shape", () => {
  assert.deepEqual(initializationOptions("acceptEdits"), { permissions: { defaultMode: "acceptEdits" } });
  assert.deepEqual(initializationOptions("bogus"), {});
  assert.deepEqual(initializationOptions(undefined), {});
  assert.deepEqual(initializationOptions("plan", true), { permissions: { defaultMode: "plan" }, edit: { reviewInEditor: true } });
  assert.deepEqual(initializationOptions(undefined, true), { edit: { reviewInEditor: true } });
  assert.equal(isMode("bypassPermissions"), true);
});

test("statusBarText shows the mode or that the server stopped", () => {
  assert.equal(statusBarText("default"), "$(shield) toolhost: default");
  assert.match(statusBarText(undefined), /stopped/);
});
