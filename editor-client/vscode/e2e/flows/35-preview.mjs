// The Refactor Preview: the agent's change alone among its rows (no stray
// line of the user's file, no note to leave unticked), Show Status and the
// toggle saying where edits are reviewed, and Apply with nothing ticked
// writes nothing and says so. Runs after
// 30-run-input.mjs (acceptEdits, edits reviewed by a prompt); leaves it so.
import * as path from "node:path";

export async function run(t) {
  const { wb, page, workspace, step, waitFor, readOrNull, runTool, waitResult, waitStatus } = t;
  const file = path.join(workspace, "preview.txt");
  const panel = page.locator(".bulk-edit-panel");
  const button = (name) => panel.locator(".buttons .monaco-button", { hasText: new RegExp(`^${name}$`) });

  step("Refactor Preview: the agent's change alone, no note row and no line of the file besides");
  await runTool(wb, "Write", { file_path: file, content: "first line\nsecond line\n" });
  await waitFor(() => readOrNull(file) === "first line\nsecond line\n", "preview.txt written unasked in acceptEdits");
  await waitResult(wb, "Write");
  await wb.pickFromStatus("toolhost: acceptEdits", "default");
  await wb.statusItem("toolhost: default").waitFor({ state: "visible", timeout: 15000 });
  await wb.runCommand("toolhost: Toggle Reviewing Edits in the Refactor Preview (this session)");
  await waitStatus(wb, /Edit review: Refactor Preview/, "Show Status naming the Refactor Preview");
  await runTool(wb, "Read", { file_path: file });
  await waitResult(wb, "Read");
  await runTool(wb, "Edit", { file_path: file, old_string: "second line", new_string: "2nd line" });
  await button("Apply").waitFor({ state: "visible", timeout: 30000 });
  await panel.locator(".monaco-list-row", { hasText: "preview.txt" }).first().waitFor({ state: "visible", timeout: 15000 });
  const shown = (await panel.innerText()).replace(/\u00a0/g, " ");
  if (shown.includes("first line")) {
    throw new Error(`the preview lists a line the edit does not change: ${shown}`);
  }
  const rows = (await panel.locator(".monaco-list-row").allInnerTexts()).map((r) => r.replace(/\u00a0/g, " "));
  const strays = rows.filter((r) => !/preview\.txt|2nd/.test(r));
  if (strays.length > 0) {
    throw new Error(`the preview lists rows besides the agent's change: ${JSON.stringify(rows)}`);
  }
  await wb.screenshot("19-preview-note");

  step("Refactor Preview: Apply with nothing ticked writes nothing and says so");
  await panel.locator(".monaco-list-row", { hasText: "preview.txt" }).first().locator(".edit-checkbox").click();
  await button("Apply").click();
  await page
    .locator(".notifications-toasts .notification-toast", { hasText: "was not applied" })
    .waitFor({ state: "visible", timeout: 15000 });
  await wb.screenshot("20-preview-nothing-ticked");
  await waitResult(wb, "Edit");
  await waitFor(async () => /rejected/.test(await wb.activeEditorText()), "the Edit's result saying the user rejected it");
  if (readOrNull(file) !== "first line\nsecond line\n") {
    throw new Error(`nothing was ticked, yet preview.txt changed: ${JSON.stringify(readOrNull(file))}`);
  }

  // Back to how the flows after this one expect the session.
  await wb.runCommand("Notifications: Clear All Notifications");
  await wb.runCommand("toolhost: Toggle Reviewing Edits in the Refactor Preview (this session)");
  await wb.statusItem("edits are reviewed in the diff editor").waitFor({ state: "visible", timeout: 15000 });
  await waitStatus(wb, /Edit review: diff editor/, "Show Status naming the diff editor again");
  await wb.pickFromStatus("toolhost: default", "acceptEdits");
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 15000 });
}
