// The set-up and tear-down that every end-to-end run shares: the variables
// e2e/run.sh exports, a temp folder, the .vsix installed with user settings,
// code-server with headless Chromium on it, step logging and the closing
// report. Each run (run.mjs, scenarios/*.mjs) keeps its own settings, env
// and steps; this module only holds what they do alike.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { fileURLToPath } from "node:url";
import { freePort, installExtension, startCodeServer, writeUserSettings } from "./codeServer.mjs";
import { Workbench } from "./workbench.mjs";

/** The e2e folder, the extension's folder, and where screenshots and logs go. */
export const e2eDir = path.dirname(fileURLToPath(import.meta.url));
export const extDir = path.dirname(e2eDir);
export const artifacts = path.join(e2eDir, "artifacts");
/**
 * The extension under test: $TOOLHOST_VSIX (a platform VSIX of `make dist`,
 * its binary inside), else the one e2e/run.sh packages without a binary.
 */
export const toolhostVsix = process.env.TOOLHOST_VSIX || path.join(extDir, "toolhost.vsix");
/** Whether the extension under test carries its own binary. */
export const bundledBinary = Boolean(process.env.TOOLHOST_VSIX);

/** The value of the variable `name` that e2e/run.sh sets; throws when it is missing. */
export function env(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set (run e2e/run.sh, which sets it up)`);
  }
  return v;
}

/** The node binary, code-server's entry point and the toolhost binary under test. */
export const node = env("E2E_NODE");
export const codeServer = env("CODE_SERVER");
export const toolhostBin = env("TOOLHOST_BIN");
const { chromium } = createRequire(import.meta.url)(env("PLAYWRIGHT_CORE"));

/**
 * User settings that keep VS Code quiet and predictable in every run: no
 * welcome pages, updates or telemetry, one theme for the screenshots. Each
 * run adds its own (workspace trust, AI features, editor behaviour).
 */
export const quietSettings = {
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "update.mode": "none",
  "telemetry.telemetryLevel": "off",
  "workbench.colorTheme": "Default Light Modern",
};

/** Polls cond() every 100 ms until it holds; throws after timeoutMs. */
export async function waitFor(cond, what, timeoutMs = 20000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The file's text, or null when it cannot be read. */
export function readOrNull(file) {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/** A fresh temp folder named after the run (toolhost-e2e-…). */
export function makeTemp(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Step logging: step(name) prints "# <label>name" and records it, so that
 * the report can say how many passed and where a failure happened.
 */
export function stepLog(label = "") {
  const steps = [];
  // When the step before began: each step's time is printed as the next
  // begins, so a growing suite shows where.
  let began;
  return {
    steps,
    step(name) {
      const now = Date.now();
      if (began !== undefined) {
        console.log(`  (${((now - began) / 1000).toFixed(1)} s)`);
      }
      began = now;
      steps.push(name);
      console.log(`# ${label}${name}`);
    },
    current() {
      return steps[steps.length - 1];
    },
  };
}

/** Installs each .vsix into extensionsDir and writes the user settings. */
export function installExtensions({ userDataDir, extensionsDir, vsixes, settings }) {
  for (const vsix of vsixes) {
    installExtension({ node, codeServer, extensionsDir, userDataDir, vsix });
  }
  writeUserSettings(userDataDir, settings);
}

/**
 * Starts code-server on a free port with `folder` and a headless Chromium
 * page on it (not yet navigated: goto `url`). The browser's console goes
 * to `consoleLogFile` when given. close() ends the browser and the server.
 */
export async function startWorkbench({ userDataDir, extensionsDir, folder, logFile, env: serverEnv, workspaceTrust, viewport, consoleLogFile }) {
  const port = await freePort();
  // The session announces itself to Claude Code's CLI with a lock file; a
  // test's lock goes beside the test's own profile, never into the real
  // ~/.claude of whoever runs the suite.
  const claudeConfig = path.join(userDataDir, "claude-config");
  const server = await startCodeServer({
    node, codeServer, port, userDataDir, extensionsDir, folder, workspaceTrust, logFile,
    env: { CLAUDE_CONFIG_DIR: claudeConfig, ...serverEnv },
  });
  const browser = await chromium.launch({
    executablePath: env("CHROMIUM"),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage({ viewport });
  let consoleLog;
  if (consoleLogFile) {
    consoleLog = fs.createWriteStream(consoleLogFile);
    page.on("console", (m) => consoleLog.write(`[${m.type()}] ${m.text()}\n`));
  }
  const close = async () => {
    consoleLog?.end();
    await browser.close().catch(() => undefined);
    server.stop();
  };
  return {
    page,
    wb: new Workbench(page, artifacts),
    url: `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`,
    close,
  };
}

/** Prints the report of a run whose steps all passed. */
export function reportPassed(name, { steps }, started) {
  console.log(`${name}: ${steps.length} steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${steps.length} passed, 0 failed`);
}

/**
 * Prints the report of a run that failed in its last step, with what the
 * workbench `wb` showed then (when there is one) and its screenshot
 * `shotName`, and makes the process exit non-zero.
 */
export async function reportFailed(name, log, err, wb, shotName) {
  if (wb) {
    await wb.screenshot(shotName).catch(() => undefined);
  }
  console.error(`${name} failed at step "${log.current()}": ${err.stack || err}`);
  if (wb) {
    console.error(`the workbench showed: ${await wb.describe().catch((e) => `(could not tell: ${e.message})`)}`);
  }
  console.error(`screenshots and logs: ${artifacts}`);
  console.log(`${log.steps.length - 1} passed, 1 failed`);
  process.exitCode = 1;
}

/** Runs one tool through the "toolhost: Run Tool…" command with `input`. */
export async function runTool(wb, name, input) {
  await wb.choose(
    async () => {
      await wb.runCommand("toolhost: Run Tool…");
      await wb.quickInput().locator(".quick-input-title", { hasText: "toolhost: Run Tool" }).waitFor({ state: "visible", timeout: 5000 });
    },
    name,
    { filter: name },
  );
  await wb.waitQuickInput();
  await wb.submitInput(JSON.stringify(input));
}

/** A minimal MCP client over `toolhost mcp --attach`'s stdio (one JSON message a line). */
export function attach(folder, env, name = "e2e-agent") {
  const child = spawn(toolhostBin, ["mcp", "--attach"], { cwd: folder, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const pending = new Map();
  let next = 1;
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    if (msg.id !== undefined && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const exited = new Promise((r) => child.on("exit", r));
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, (msg) => (msg.error ? reject(new Error(`${method}: ${JSON.stringify(msg.error)}; stderr: ${stderr}`)) : resolve(msg.result)));
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
      exited.then(() => reject(new Error(`toolhost mcp --attach exited during ${method}: ${stderr}`)));
    });
  const notify = (method, params) => child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
  return {
    async init() {
      await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name, version: "1.0.0" } });
      notify("notifications/initialized", {});
    },
    /** Calls a tool; returns {text, isError, ms}. */
    async call(name, args) {
      const started = Date.now();
      const res = await request("tools/call", { name, arguments: args });
      return { text: (res.content ?? []).map((c) => c.text ?? "").join("\n"), isError: Boolean(res.isError), ms: Date.now() - started };
    },
    async close() {
      child.stdin.end();
      child.kill();
      await exited;
    },
  };
}
