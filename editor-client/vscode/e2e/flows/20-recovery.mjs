// Recovery: a crashed server comes back with the session's mode; repeated
// crashes leave a status item that restarts it; Restart Server and Show
// Output; a binary that never answers is stopped. Runs after 10-review.mjs.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** The pid of the `<bin> serve` process of this test, or undefined. */
export function serverPid(bin) {
  const out = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  for (const line of out.split("\n")) {
    const m = line.trim().match(/^(\d+)\s+(.*)$/);
    if (m && m[2] === `${bin} serve`) {
      return Number(m[1]);
    }
  }
  return undefined;
}

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function run(t) {
  const { wb, page, workspace, toolhostBin, step, waitFor, waitResult, waitStatus, runTool, userDataDir } = t;

  /** Kills the running server (by its pid) and returns that pid. */
  async function killServer() {
    let pid;
    await waitFor(() => (pid = serverPid(toolhostBin)) !== undefined, "the server process");
    process.kill(pid, "SIGKILL");
    await waitFor(() => !alive(pid), "the killed server to exit");
    return pid;
  }
  // A new process of the same binary (its command line is `${toolhostBin}
  // serve`): the restart read toolhost.path as the first start did, from the
  // Remote settings, not the User settings' other value (run.mjs).
  async function newServer(old) {
    await waitFor(() => {
      const pid = serverPid(toolhostBin);
      return pid !== undefined && pid !== old;
    }, `a new server process of ${toolhostBin}`, 30000);
  }
  const statusSays = (mode) => waitStatus(wb, new RegExp(`Permission mode: \\*\\*${mode}\\*\\*`), `the server in ${mode} mode`);

  step("recovery: a killed server comes back in the mode the user chose; the Todos view says its list ended");
  await wb.pickFromStatus("toolhost: default", "acceptEdits");
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 15000 });
  await runTool(wb, "TodoWrite", { todos: [{ content: "Survive a crash", status: "in_progress", activeForm: "Surviving a crash" }] });
  await waitResult(wb, "TodoWrite");
  await wb.runCommand("toolhost: Focus on Todos View");
  const todosPane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /todos/i }) });
  await todosPane.locator(".monaco-list-row", { hasText: "Survive a crash" }).waitFor({ state: "visible", timeout: 20000 });
  const first = await killServer();
  await newServer(first);
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });
  await statusSays("acceptEdits");
  // The new server has no list (TaskList: "No tasks"): neither has the view, and it says why.
  await wb.runCommand("toolhost: Focus on Todos View");
  await todosPane.getByText("the agent's todo list ended with it").waitFor({ state: "visible", timeout: 15000 });
  // Finding 8: the container's title is "toolhost" as everything else; the
  // capital the side bar shows is VS Code's CSS, as the activity bar shows.
  const title = await page.locator(".sidebar .title-label h2").first().evaluate((h) => [h.textContent, getComputedStyle(h).textTransform]);
  const activity = await page.locator(".activitybar .action-item a").evaluateAll((as) => as.map((a) => a.getAttribute("aria-label")));
  if (title[0] !== "toolhost" || !activity.includes("toolhost")) {
    throw new Error(`the view container is not named "toolhost": side bar title ${JSON.stringify(title)}, activity bar ${JSON.stringify(activity)}`);
  }
  if ((await todosPane.locator(".monaco-list-row", { hasText: "Survive a crash" }).count()) > 0) {
    throw new Error("the Todos view still lists a todo of the server that crashed");
  }
  await wb.screenshot("13a-todos-after-crash");

  step("recovery: toolhost: Restart Server");
  const before = serverPid(toolhostBin);
  await wb.runCommand("toolhost: Restart Server");
  await newServer(before);
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });

  step("recovery: after repeated crashes the status item says so and restarts it");
  for (let i = 0; i < 4; i++) {
    const old = await killServer();
    if (i < 3) {
      await newServer(old);
      await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });
    }
  }
  await wb.statusItem("toolhost: crashed").waitFor({ state: "visible", timeout: 30000 });
  await wb.screenshot("13-crashed");
  await wb.statusItem("toolhost: crashed").click();
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });
  await statusSays("acceptEdits");
  await wb.screenshot("14-recovered");

  step("recovery: toolhost: Show Output shows the server's log, the calls and a background task's output");
  const panelText = async () => {
    const panel = page.locator(".part.panel");
    // The editor renders spaces as no-break spaces.
    return (await panel.count()) > 0 ? (await panel.first().innerText()).replace(/\u00a0/g, " ") : "";
  };
  await wb.runCommand("toolhost: Show Output");
  await waitFor(async () => /the server stopped \(signal SIGKILL\)/.test(await panelText()), "the output channel with the crashes");
  await runTool(wb, "Bash", { command: "echo from-the-background", run_in_background: true, description: "Print in the background" });
  await wb.clickModalButton("Allow");
  await waitResult(wb, "Bash");
  await wb.runCommand("toolhost: Show Output");
  await waitFor(async () => {
    const text = await panelText();
    return /from-the-background/.test(text) && /\[call\] Bash/.test(text);
  }, "the output channel with the call and the task's output");
  await wb.screenshot("15-output");

  step("recovery: a binary that never answers is stopped, and a fixed path starts the server");
  await wb.runCommand("Notifications: Clear All Notifications");
  const hang = path.join(workspace, "..", "hang.sh");
  // It never answers and never ends; its command line names the script, so
  // the check below finds this test's process and no other on the machine.
  fs.writeFileSync(hang, '#!/bin/sh\nexec tail -f /dev/null "$0"\n', { mode: 0o755 });
  // The machine's settings, which VS Code watches, as they are now;
  // toolhost.path is a machine setting: a folder's own settings cannot name
  // the binary, and code-server reads it from the machine's settings.
  const userSettingsFile = path.join(userDataDir, "Machine", "settings.json");
  const setPath = (bin) => {
    const settings = JSON.parse(fs.readFileSync(userSettingsFile, "utf8"));
    fs.writeFileSync(userSettingsFile, JSON.stringify({ ...settings, "toolhost.path": bin }, null, 2));
  };
  setPath(hang);
  await wb.statusItem("toolhost: starting").waitFor({ state: "visible", timeout: 30000 });
  await wb.statusItem("toolhost: crashed").waitFor({ state: "visible", timeout: 40000 });
  // One message with what to do next, not the language client's own
  // "Server initialization failed" and "Pending response rejected" beside it.
  const toasts = page.locator(".notifications-toasts .notification-toast");
  const ours = toasts.filter({ hasText: "did not answer within" });
  await ours.waitFor({ state: "visible", timeout: 15000 });
  for (const action of ["Restart Server", "Show Output", "Open Settings"]) {
    await ours.locator(".monaco-button", { hasText: action }).waitFor({ state: "visible", timeout: 5000 });
  }
  // The failed initialize is logged when the client gives up on it: past
  // that point no other message can come.
  await wb.runCommand("toolhost: Show Output");
  await waitFor(async () => /initialize failed|Server initialization failed/.test(await panelText()), "the failed initialize in the output");
  await wb.screenshot("16-hung-binary");
  const others = (await toasts.allInnerTexts()).filter((text) => !text.includes("did not answer within"));
  if (others.length > 0) {
    throw new Error(`besides the message with actions, the user was shown: ${JSON.stringify(others)}`);
  }
  await wb.runCommand("Notifications: Clear All Notifications");
  const hangPids = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).split("\n").filter((l) => l.includes(hang) && !l.includes("ps -eo"));
  if (hangPids.length > 0) {
    throw new Error(`the binary that never answered is still running: ${hangPids.join("; ")}`);
  }
  setPath(toolhostBin);
  await wb.statusItem("toolhost: acceptEdits").waitFor({ state: "visible", timeout: 30000 });
}
