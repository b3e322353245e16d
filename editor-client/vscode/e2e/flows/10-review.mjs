// Reviewing a change in VS Code's own diff editor, denying with words, the
// permission modal without a redundant Cancel, and checks that fail before
// any prompt. Runs after the main scenario (e2e/run.mjs), on its workbench.
import * as fs from "node:fs";
import * as path from "node:path";

export async function run(t) {
  const { wb, page, workspace, step, waitFor, readOrNull, runTool, waitResult, waitStatus, reviewAction } = t;

  step("review: default mode, edits reviewed by a prompt");
  await wb.runCommand("toolhost: Toggle Reviewing Edits in the Refactor Preview (this session)");
  await wb.pickFromStatus("toolhost: acceptEdits", "default");
  await wb.statusItem("toolhost: default").waitFor({ state: "visible", timeout: 15000 });
  await waitStatus(wb, /Edit review: diff editor/, "Show Status naming the diff editor");

  step("review: an Edit opens the diff editor; Deny with feedback sends the user's words");
  const file = path.join(workspace, "review.txt");
  const original = Array.from({ length: 120 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  fs.writeFileSync(file, original);
  await runTool(wb, "Read", { file_path: file });
  await waitResult(wb, "Read");
  await runTool(wb, "Edit", { file_path: file, old_string: "line 100\n", new_string: "line 100 changed\n" });
  const feedback = reviewAction(wb, "Deny with feedback");
  await feedback.waitFor({ state: "visible", timeout: 30000 });
  await page.locator(".editor-group-container.active .monaco-diff-editor").first().waitFor({ state: "visible", timeout: 15000 });
  await page.locator(".tab.active", { hasText: "current ↔ proposed" }).first().waitFor({ state: "visible", timeout: 15000 });
  await wb.screenshot("10-review-diff");
  await feedback.click();
  await wb.waitQuickInput();
  await wb.screenshot("11-deny-feedback");
  await wb.submitInput("keep line 100 as it is");
  await waitResult(wb, "Edit");
  await waitFor(
    async () => /The user denied this and said: keep line 100 as it is/.test(await wb.activeEditorText()),
    "the user's words in the result",
  );
  if (readOrNull(file) !== original) {
    throw new Error("a denied edit changed the file");
  }

  step("review: Allow in the diff editor's title bar applies the edit");
  await runTool(wb, "Edit", { file_path: file, old_string: "line 100\n", new_string: "line 100 changed\n" });
  const allow = reviewAction(wb, "Allow");
  await allow.waitFor({ state: "visible", timeout: 30000 });
  await allow.click();
  await waitFor(() => (readOrNull(file) ?? "").includes("line 100 changed\n"), "the allowed edit on disk", 30000);
  await waitResult(wb, "Edit");

  step("ask only when it matters: an Edit of a file changed since it was read fails unasked");
  // A file the editor does not have open, so the change on disk is what the server sees.
  const stale = path.join(workspace, "stale.txt");
  fs.writeFileSync(stale, "one\ntwo\n");
  await runTool(wb, "Read", { file_path: stale });
  await waitResult(wb, "Read");
  // The change removes old_string: a changed file whose old_string still
  // matches once would take the edit (Claude Code's rule).
  fs.writeFileSync(stale, "uno\ntwo\ntyped elsewhere\n");
  await runTool(wb, "Edit", { file_path: stale, old_string: "one\n", new_string: "ONE\n" });
  await waitResult(wb, "Edit");
  await waitFor(async () => /Edit — error/.test(await wb.activeEditorText()), "the stale error");
  if (await reviewAction(wb, "Allow").isVisible()) {
    throw new Error("a prompt was shown for an edit that cannot succeed");
  }
  if (readOrNull(stale) !== "uno\ntwo\ntyped elsewhere\n") {
    throw new Error("the stale edit changed the file");
  }

  step("the permission modal: the agent's description, no Cancel, Enter does not approve a high-risk call");
  const marker = path.join(workspace, "risky.txt");
  // High risk by what it does (rm -rf), so Deny with feedback… comes first;
  // the marker shows whether anything ran.
  await runTool(wb, "Bash", { command: "echo risky > risky.txt && rm -rf risky-leftovers", description: "Write a risky marker" });
  const dialog = await wb.modal();
  const text = await dialog.innerText();
  if (!text.includes("The agent says: Write a risky marker")) {
    throw new Error(`the modal lacks the agent's description: ${text}`);
  }
  const buttons = await dialog.locator(".monaco-button").allInnerTexts();
  if (buttons.some((b) => b.trim() === "Cancel")) {
    throw new Error(`the modal has a Cancel next to Deny: ${JSON.stringify(buttons)}`);
  }
  await wb.screenshot("12-permission-modal");
  await page.keyboard.press("Enter");
  // Enter picked "Deny with feedback…": leave the words empty.
  await wb.waitQuickInput();
  // Enter on the input itself: a key pressed on the page before the box has
  // the focus goes nowhere and leaves the question open.
  await wb.submitInput("");
  await wb.waitQuickInputClosed();
  await waitResult(wb, "Bash");
  await waitFor(async () => /denied/.test(await wb.activeEditorText()), "the denial");
  if (readOrNull(marker) !== null) {
    throw new Error("Enter approved a high-risk command");
  }
}
