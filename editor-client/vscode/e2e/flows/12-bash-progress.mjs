// A long Bash from Run Tool: a command that only waits and prints is low
// risk (so Allow, not Deny with feedback…, is the default button: Enter
// runs it), as is `sleep 40; echo finished`, with
// the risk on a line of its own and the command shown once; its progress
// is a notification that shows the output's last line (no literal \n),
// and its Cancel ends the command. Runs after 10-review.mjs, in default
// mode; leaves it so.
import { execFileSync } from "node:child_process";

/** Processes whose command line contains `text` (not the ps itself). */
function processesWith(text) {
  return execFileSync("ps", ["-eo", "args="], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(text) && !l.startsWith("ps "));
}

export async function run(t) {
  const { wb, page, step, waitFor, runTool, waitResult } = t;
  const command = "for i in $(seq 1 30); do echo step-$i; sleep 1; done";

  step("a long Bash: low risk, the risk on a line of its own, the command shown once");
  await runTool(wb, "Bash", { command, description: "Count slowly" });
  const dialog = await wb.modal();
  const message = (await dialog.locator(".dialog-message-text").innerText()).trim();
  const text = await dialog.innerText();
  if (message !== "Run this command?") {
    throw new Error(`the question is not asked on its own: ${JSON.stringify(message)}`);
  }
  if (!/^Risk: low$/m.test(text)) {
    throw new Error(`a loop of echo and sleep is not low risk, or its risk is not a line of its own: ${text}`);
  }
  const times = text.split("seq 1 30").length - 1;
  if (times !== 1) {
    throw new Error(`the command is shown ${times} times: ${text}`);
  }
  await wb.screenshot("21-bash-low-risk");
  // Enter takes the default button: Allow for a low-risk command (a
  // high-risk one opens Deny with feedback…'s input instead, 10-review.mjs).
  await page.keyboard.press("Enter");
  await dialog.waitFor({ state: "hidden", timeout: 15000 });

  step("a long Bash: its progress shows the last line of output, and Cancel ends it");
  const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "toolhost: Bash" });
  let shown = "";
  await waitFor(async () => {
    shown = (await toast.count()) > 0 ? await toast.first().innerText() : "";
    return /step-([3-9]|\d\d)/.test(shown);
  }, "the notification showing the loop's output", 30000);
  if (shown.includes("\\n") || (shown.match(/step-\d+/g) ?? []).length !== 1) {
    throw new Error(`the progress does not show one line of output: ${JSON.stringify(shown)}`);
  }
  await wb.screenshot("22-bash-progress");
  await toast.first().locator(".monaco-button", { hasText: "Cancel" }).click();
  await waitResult(wb, "Bash");
  await waitFor(async () => /interrupted/.test(await wb.activeEditorText()), "the result saying the call was interrupted");
  await waitFor(() => processesWith("step-$i").length === 0, "the loop's shell to end");
  await toast.waitFor({ state: "hidden", timeout: 15000 });

  step("a Bash that waits, then prints: low risk too");
  await runTool(wb, "Bash", { command: "sleep 40; echo finished", description: "Wait, then say so" });
  const waits = await wb.modal();
  const waitsText = await waits.innerText();
  if (!/^Risk: low$/m.test(waitsText)) {
    throw new Error(`sleep then echo is not low risk: ${waitsText}`);
  }
  await wb.clickModalButton("Deny");
  await waitResult(wb, "Bash");
  await waitFor(async () => /denied/.test(await wb.activeEditorText()), "the denial of the waiting command");
}
