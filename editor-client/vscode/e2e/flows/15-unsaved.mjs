// The user's unsaved typing stays theirs: the agent edits a file the user
// typed into without saving; the disk gets its content plus the agent's
// change, and the editor keeps the typing, still unsaved. Runs after
// 10-review.mjs (default mode, edits reviewed by a prompt).
import * as fs from "node:fs";
import * as path from "node:path";

export async function run(t) {
  const { wb, page, workspace, step, waitFor, readOrNull, runTool, waitResult, reviewAction } = t;

  step("unsaved typing: an applied edit writes the disk's content plus the change; the typing stays unsaved");
  const file = path.join(workspace, "notes.txt");
  fs.writeFileSync(file, "first\nsecond\nthird\nfourth\n");
  await wb.choose(() => page.keyboard.press("Control+P"), "notes.txt", { filter: "notes.txt" });
  const tab = page.locator(".editor-group-container.active .tab.active", { hasText: "notes.txt" });
  await tab.waitFor({ state: "visible", timeout: 15000 });
  await page.locator(".editor-group-container.active .view-lines").first().click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("my unsaved note\n");
  await page.locator(".editor-group-container .tab.dirty", { hasText: "notes.txt" }).waitFor({ state: "visible", timeout: 15000 });

  await runTool(wb, "Read", { file_path: file });
  await waitResult(wb, "Read");
  await runTool(wb, "Edit", { file_path: file, old_string: "fourth", new_string: "FOURTH" });
  const allow = reviewAction(wb, "Allow");
  await allow.waitFor({ state: "visible", timeout: 30000 });
  await allow.click();
  await waitFor(() => readOrNull(file) === "first\nsecond\nthird\nFOURTH\n", "the disk with the change and without the typing", 30000);
  await waitResult(wb, "Edit");
  // The editor still has the typing, unsaved, and the change.
  await page.locator(".editor-group-container .tab.dirty", { hasText: "notes.txt" }).first().click();
  await waitFor(async () => {
    const text = await wb.activeEditorText();
    return text.includes("my unsaved note") && text.includes("FOURTH");
  }, "the editor with the typing and the change");
  await page.locator(".editor-group-container .tab.dirty", { hasText: "notes.txt" }).waitFor({ state: "visible", timeout: 5000 });
  await wb.screenshot("16-unsaved-kept");
  if (readOrNull(file).includes("my unsaved note")) {
    throw new Error("the unsaved typing reached the disk");
  }
}
