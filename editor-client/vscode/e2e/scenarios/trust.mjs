// End-to-end scenario: a folder whose toolhost settings ask to start an MCP
// server (a command that leaves a marker file). Opened in VS Code, the
// extension shows the trust question with the command; "Don't Trust" starts
// nothing and the status bar says what was ignored; after a reload,
// "Trust Folder" starts the server. Opened again in Restricted Mode, the
// extension answers "don't trust" without asking and says why.
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, installExtension, startCodeServer, writeUserSettings } from "../codeServer.mjs";
import { Workbench } from "../workbench.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const ext = path.dirname(path.dirname(here));
const env = (name) => {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set (run e2e/run.sh, which sets it up)`);
  }
  return v;
};
const { chromium } = createRequire(import.meta.url)(env("PLAYWRIGHT_CORE"));
const node = env("E2E_NODE");
const codeServer = env("CODE_SERVER");
const toolhostBin = env("TOOLHOST_BIN");
const artifacts = path.join(path.dirname(here), "artifacts");

/** Checks cond() every 100 ms until it holds, at most timeoutMs. */
async function until(cond, what, timeoutMs = 30000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (await cond()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`trust scenario: timed out waiting for ${what}`);
}

/** Opens `folder` in a fresh code-server and returns {wb, close}. */
async function open({ tmp, folder, name, workspaceTrust }) {
  const userDataDir = path.join(tmp, `user-${name}`);
  const extensionsDir = path.join(tmp, `extensions-${name}`);
  installExtension({ node, codeServer, extensionsDir, userDataDir, vsix: path.join(ext, "toolhost.vsix") });
  writeUserSettings(userDataDir, {
    "toolhost.path": toolhostBin,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "security.workspace.trust.enabled": workspaceTrust,
    // Untrusted folders open in Restricted Mode without VS Code's own dialog.
    "security.workspace.trust.startupPrompt": "never",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "update.mode": "none",
    "telemetry.telemetryLevel": "off",
    "chat.disableAIFeatures": true,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.colorTheme": "Default Light Modern",
  });
  const port = await freePort();
  const server = await startCodeServer({
    node, codeServer, port, userDataDir, extensionsDir, folder, workspaceTrust,
    logFile: path.join(artifacts, `trust-${name}-code-server.log`),
    // The server's trust file lives here, not in the developer's config.
    env: { XDG_CONFIG_HOME: path.join(tmp, "xdg") },
  });
  const browser = await chromium.launch({
    executablePath: env("CHROMIUM"),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`);
  const close = async () => {
    await browser.close().catch(() => undefined);
    server.stop();
  };
  return { wb: new Workbench(page, artifacts), page, close };
}

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-e2e-trust-"));
  const folder = path.join(tmp, "hostile");
  const marker = path.join(folder, "mcp-server-ran");
  fs.mkdirSync(path.join(folder, ".toolhost"), { recursive: true });
  fs.writeFileSync(
    path.join(folder, ".toolhost", "settings.json"),
    JSON.stringify({ mcpServers: { pwn: { command: "sh", args: ["-c", `touch ${marker}; sleep 30`] } } }),
  );
  let current;
  let stepName = "";
  const step = (s) => {
    stepName = s;
    console.log(`# trust: ${s}`);
  };
  try {
    step("the question shows the folder's command; Don't Trust starts nothing");
    current = await open({ tmp, folder, name: "trusted-vscode", workspaceTrust: false });
    let { wb } = current;
    const dialog = await wb.modal(90000);
    const text = await dialog.innerText();
    if (!text.includes(`touch ${marker}`)) {
      throw new Error(`the trust question does not show the command: ${text}`);
    }
    await wb.screenshot("trust-01-question");
    await wb.clickModalButton("Don't Trust");
    await wb.statusItem("folder setting ignored").waitFor({ state: "visible", timeout: 30000 });
    await wb.screenshot("trust-02-declined");
    if (fs.existsSync(marker)) {
      throw new Error("the folder's MCP server ran although the folder was not trusted");
    }

    step("after a reload, Trust Folder starts the server");
    await wb.runCommand("Developer: Reload Window");
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
    await current?.wb.screenshot("trust-failure").catch(() => undefined);
    console.error(`e2e trust scenario failed at "${stepName}": ${err.stack || err}`);
    process.exitCode = 1;
  } finally {
    await current?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
