// Run Tool's JSON editor: the input box's button moves the input to a real
// JSON editor (multi-line, with the tool's schema), run from the editor's
// title bar. Runs after 20-recovery.mjs (acceptEdits: a Write runs unasked).
import * as path from "node:path";

export async function run(t) {
  const { wb, page, workspace, step, waitFor, readOrNull, waitResult } = t;

  step("Run Tool: a multi-line input written in a JSON editor and run from its title bar");
  const file = path.join(workspace, "multi.txt");
  await wb.choose(() => wb.runCommand("toolhost: Run Tool…"), "Write", { filter: "Write" });
  await wb.waitQuickInput();
  await wb.quickInput().locator('.action-label[aria-label^="Edit in a JSON editor"]').click();
  await page.locator(".editor-group-container.active .tab.active", { hasText: "Write.input.json" }).waitFor({ state: "visible", timeout: 15000 });
  await page.locator(".editor-group-container.active .view-lines").first().click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  // Typed as one piece (the e2e settings turn auto-closing and
  // auto-indent off, so the text lands as written).
  await page.keyboard.insertText(JSON.stringify({ file_path: file, content: "first line\nsecond line\n" }, null, 2));
  await wb.screenshot("17-run-input");
  await page.locator('.editor-actions .action-label[aria-label^="Run Tool with This Input"]').first().click();
  await waitFor(() => readOrNull(file) === "first line\nsecond line\n", "the multi-line content on disk", 30000);
  await waitResult(wb, "Write");
}
