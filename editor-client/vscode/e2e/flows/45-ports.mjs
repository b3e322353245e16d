// The Ports view: code-server auto-forwards the ports that processes under
// the window listen on; toolhost serve's own endpoint (for `toolhost mcp
// --attach`) is marked to be left alone, while a port a command opens is
// still forwarded, as before. Runs last, in acceptEdits.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { freePort } from "../codeServer.mjs";
import { serverPid } from "./20-recovery.mjs";

/** The TCP ports process `pid` listens on (Linux: its socket inodes in /proc/net/tcp*). */
function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) {
        inodes.add(m[1]);
      }
    } catch {
      // The descriptor closed meanwhile.
    }
  }
  const ports = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[1] is address:port in hex, cols[3] the state (0A: listening), cols[9] the inode.
      if (cols[3] === "0A" && inodes.has(cols[9])) {
        ports.push(parseInt(cols[1].split(":")[1], 16));
      }
    }
  }
  return ports;
}

export async function run(t) {
  const { wb, page, step, waitFor, runTool, waitResult, toolhostBin } = t;

  step("ports: toolhost serve's endpoint is not auto-forwarded; a command's port still is");
  let endpoints = [];
  await waitFor(() => {
    const pid = serverPid(toolhostBin);
    endpoints = pid === undefined ? [] : listeningPorts(pid);
    return endpoints.length > 0;
  }, "toolhost serve listening");
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
    for (const endpoint of endpoints) {
      if ((await row(endpoint).count()) > 0) {
        throw new Error(`toolhost serve's port ${endpoint} was forwarded: ${await row(endpoint).first().innerText()}`);
      }
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
