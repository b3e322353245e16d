// A permission modal left open when the server dies: the user meets one
// clear message per thing that happened (the running call was cancelled;
// the late click was not sent), never the protocol library's "Pending
// response rejected", and the command the modal asked about never runs.
// Runs after 20-recovery.mjs, with the server in acceptEdits.
import * as fs from "node:fs";
import * as path from "node:path";
import { alive, serverPid } from "./20-recovery.mjs";

export async function run(t) {
  const { wb, page, workspace, toolhostBin, step, waitFor, runTool } = t;
  const toast = (text) => page.locator(".notifications-toasts .notification-toast", { hasText: text });
  const rejected = toast("Pending response rejected");

  step("crash under a modal: the running call is reported as cancelled");
  const ran = path.join(workspace, "crash-ran.txt");
  await runTool(wb, "Bash", { command: "echo ran > crash-ran.txt", description: "Write a file after the crash" });
  const dialog = await wb.modal();
  let pid;
  await waitFor(() => (pid = serverPid(toolhostBin)) !== undefined, "the server process");
  process.kill(pid, "SIGKILL");
  await waitFor(() => !alive(pid), "the killed server to exit");
  await toast("the server stopped while Bash was running").waitFor({ state: "visible", timeout: 30000 });
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });
  if (!(await dialog.isVisible())) {
    throw new Error("the modal closed by itself; this flow needs it open to click it after the crash");
  }

  step("crash under a modal: a click after the crash is answered by the editor, not sent");
  await wb.screenshot("17-modal-after-crash");
  await wb.clickModalButton("Allow");
  await toast("so that call was cancelled and nothing ran").waitFor({ state: "visible", timeout: 15000 });
  await wb.screenshot("18-modal-answered-after-crash");
  if ((await rejected.count()) > 0) {
    throw new Error(`the user was shown: ${await rejected.first().innerText()}`);
  }
  if (fs.existsSync(ran)) {
    throw new Error("the command of the modal answered after the crash ran");
  }
  // Clear the toasts for the flows that follow.
  await wb.runCommand("Notifications: Clear All Notifications");
}
