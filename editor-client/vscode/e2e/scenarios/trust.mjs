// End-to-end scenario: a folder whose toolhost settings ask to start an MCP
// server (a command that leaves a marker file). Opened in VS Code, the
// extension shows the trust question with the command; Enter (the default,
// "Don't Trust") starts nothing and the status bar says what was ignored,
// and clicking it shows the status listing it;
// after a reload,
// "Trust Folder" starts the server. Opened again in Restricted Mode, the
// extension answers "don't trust" without asking and says why.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  artifacts, installExtensions, makeTemp, quietSettings, reportFailed, startWorkbench, stepLog, toolhostBin, toolhostVsix, waitFor,
} from "../harness.mjs";

/** Checks cond() every 100 ms until it holds, at most timeoutMs. */
async function until(cond, what, timeoutMs = 30000) {
  try {
    await waitFor(cond, what, timeoutMs);
  } catch (err) {
    throw new Error(`trust scenario: ${err.message}`);
  }
}

/** Opens `folder` in a fresh code-server and returns {wb, page, url, close}. */
async function open({ tmp, folder, name, workspaceTrust }) {
  const userDataDir = path.join(tmp, `user-${name}`);
  const extensionsDir = path.join(tmp, `extensions-${name}`);
  installExtensions({
    userDataDir,
    extensionsDir,
    vsixes: [toolhostVsix],
    settings: {
      ...quietSettings,
      "toolhost.path": toolhostBin,
      "security.workspace.trust.enabled": workspaceTrust,
      // Untrusted folders open in Restricted Mode without VS Code's own dialog.
      "security.workspace.trust.startupPrompt": "never",
      "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
    },
  });
  const session = await startWorkbench({
    userDataDir, extensionsDir, folder, workspaceTrust,
    logFile: path.join(artifacts, `trust-${name}-code-server.log`),
    // The server's trust file lives here, not in the developer's config.
    env: { XDG_CONFIG_HOME: path.join(tmp, "xdg") },
    viewport: { width: 1400, height: 860 },
  });
  await session.page.goto(session.url);
  return session;
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = makeTemp("toolhost-e2e-trust-");
  const folder = path.join(tmp, "hostile");
  const marker = path.join(folder, "mcp-server-ran");
  fs.mkdirSync(path.join(folder, ".toolhost"), { recursive: true });
  fs.writeFileSync(
    path.join(folder, ".toolhost", "settings.json"),
    JSON.stringify({ mcpServers: { pwn: { command: "sh", args: ["-c", `touch ${marker}; sleep 30`] } } }),
  );
  let current;
  const log = stepLog("trust: ");
  const { step } = log;
  try {
    step("the question shows the folder's command; Enter (the default, Don't Trust) starts nothing");
    current = await open({ tmp, folder, name: "trusted-vscode", workspaceTrust: false });
    let { wb } = current;
    const dialog = await wb.modal(90000);
    const text = await dialog.innerText();
    if (!text.includes(`touch ${marker}`)) {
      throw new Error(`the trust question does not show the command: ${text}`);
    }
    await wb.screenshot("trust-01-question");
    // The focused default button must not trust: Enter declines.
    await wb.page.keyboard.press("Enter");
    await wb.statusItem("folder setting ignored").waitFor({ state: "visible", timeout: 30000 });
    await wb.screenshot("trust-02-declined");
    if (fs.existsSync(marker)) {
      throw new Error("the folder's MCP server ran although the folder was not trusted");
    }
    // Clicking the item shows the status, which lists what was ignored.
    await wb.statusItem("folder setting ignored").click();
    await until(async () => {
      const text = await wb.activeEditorText().catch(() => "");
      return /1 folder setting ignored until the folder is trusted/.test(text) && text.includes("pwn");
    }, "Show Status listing the ignored folder setting");
    await wb.screenshot("trust-02b-status-lists-ignored");

    step("after a reload, Trust Folder starts the server");
    // The browser's own reload, which is what Developer: Reload Window does
    // in a browser. Picking that command from the palette races the reload
    // it starts: on a loaded machine the click is reported failed as the
    // page goes away, and a retry then finds a blank page.
    await wb.page.reload({ timeout: 90000 });
    await wb.modal(90000);
    await wb.clickModalButton("Trust Folder");
    await until(() => fs.existsSync(marker), "the trusted folder's MCP server to start");
    await current.close();
    current = undefined;

    step("in Restricted Mode the extension answers don't trust without asking");
    fs.rmSync(path.join(tmp, "xdg"), { recursive: true, force: true });
    fs.rmSync(marker, { force: true });
    current = await open({ tmp, folder, name: "restricted", workspaceTrust: true });
    wb = current.wb;
    await wb.statusItem("folder setting ignored").waitFor({ state: "visible", timeout: 90000 });
    await wb.statusItem("folder setting ignored").hover();
    await wb.screenshot("trust-03-restricted");
    if (await wb.page.locator(".monaco-dialog-box").isVisible()) {
      throw new Error("a dialog was shown in Restricted Mode");
    }
    if (fs.existsSync(marker)) {
      throw new Error("the folder's MCP server ran in Restricted Mode");
    }
    console.log("trust: 3 steps passed");
  } catch (err) {
    await reportFailed("e2e trust", log, err, current?.wb, "trust-failure");
  } finally {
    await current?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
