// The Ports view: code-server auto-forwards the ports that processes under
// the window listen on; toolhost serve's own endpoint (for `toolhost mcp
// --attach`) is marked to be left alone, while a port a command opens is
// still forwarded, as before. Runs last, in acceptEdits.
import { execFileSync } from "node:child_process";
import { freePort } from "../codeServer.mjs";

export async function run(t) {
  const { wb, page, step, waitFor, runTool, waitResult } = t;

  step("ports: toolhost serve's endpoint is not auto-forwarded; a command's port still is");
  await wb.runCommand("toolhost: Show Status");
  await waitResult(wb, "status");
  let endpoint;
  await waitFor(async () => {
    endpoint = /127\.0\.0\.1:(\d+)\/mcp/.exec(await wb.activeEditorText())?.[1];
    return endpoint !== undefined;
  }, "the server's endpoint in the status");
  // A port of the user's own command, as a check that forwarding runs at all.
  const port = await freePort();
  const listener = `require('net').createServer().listen(${port},'127.0.0.1')`;
  await runTool(wb, "Bash", { command: `exec "${process.execPath}" -e "${listener}"`, run_in_background: true, description: "Listen on a port" });
  await wb.clickModalButton("Allow");
  await waitResult(wb, "Bash");
  try {
    await wb.runCommand("Ports: Focus on Ports View");
    const row = (p) => page.locator(".part.panel .monaco-list-row", { hasText: new RegExp(`\\b${p}\\b`) });
    await row(port).first().waitFor({ state: "visible", timeout: 60000 });
    await wb.screenshot("23-ports");
    if ((await row(endpoint).count()) > 0) {
      throw new Error(`toolhost serve's endpoint (port ${endpoint}) was forwarded: ${await row(endpoint).first().innerText()}`);
    }
  } finally {
    for (const line of execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).split("\n")) {
      const m = line.trim().match(/^(\d+)\s+(.*)$/);
      if (m && m[2].includes(`listen(${port},`)) {
        process.kill(Number(m[1]), "SIGKILL");
      }
    }
  }
  await waitFor(() => !execFileSync("ps", ["-eo", "args="], { encoding: "utf8" }).includes(`listen(${port},`), "the listener to end");
}
