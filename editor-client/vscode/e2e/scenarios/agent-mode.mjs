// End-to-end: toolhost's tools in VS Code's agent mode (Copilot Chat, built
// into code-server), offline, with a scripted language model
// (e2e/scripted-model). Read runs with no confirmation and sees unsaved
// typing; Edit asks nothing in the chat (no "Allow in this Session" to
// turn reviews off) and is reviewed in toolhost's diff review, every time;
// approved, it changes the document through applyEdit, which VS Code's undo
// reverts, and toolhost: Undo Last Turn rewinds as one step; a Bash the user skips does not run; AskUserQuestion is answered
// in the editor's quick pick; the Agent tool's sub-agent runs on the
// editor's language model (toolhost/runAgent). Screenshots: e2e/artifacts/agent-*.png.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  artifacts, e2eDir as e2e, extDir as ext, installExtensions, makeTemp, quietSettings, readOrNull, reportFailed,
  reportPassed, startWorkbench, stepLog, toolhostBin, toolhostVsix, waitFor as waitUntil,
} from "../harness.mjs";

/** The chat's DOM, in one place: it changes between VS Code releases. */
const CHAT = {
  response: ".interactive-item-container.interactive-response",
  confirmation: ".chat-confirmation-widget-buttons",
  // The pending confirmation: its title, toolhost's diff or command, buttons.
  card: ".chat-tool-confirmation-carousel",
};

/** waitFor with this scenario's longer default bound. */
const waitFor = (cond, what, timeoutMs = 30000) => waitUntil(cond, what, timeoutMs);

const log = stepLog("agent mode: ");
const { step } = log;

/** Packages the scripted model as a .vsix with the extension's own vsce. */
function packageScriptedModel(out) {
  const vsce = path.join(ext, "node_modules", "@vscode", "vsce", "vsce");
  execFileSync(process.execPath, [vsce, "package", "--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", out], {
    cwd: path.join(e2e, "scripted-model"),
    stdio: "pipe",
  });
}

async function main() {
  const started = Date.now();
  fs.mkdirSync(artifacts, { recursive: true });
  for (const f of fs.readdirSync(artifacts)) if (f.startsWith("agent-")) fs.rmSync(path.join(artifacts, f));
  const tmp = makeTemp("toolhost-e2e-agent-");
  const userDataDir = path.join(tmp, "user");
  const extensionsDir = path.join(tmp, "extensions");
  const workspace = path.join(tmp, "workspace");
  fs.cpSync(path.join(e2e, "fixture"), workspace, { recursive: true });
  const sample = path.join(workspace, "sample.txt");
  const modelLog = path.join(artifacts, "agent-model.log");
  fs.rmSync(modelLog, { force: true });

  step("install the .vsix and the scripted model");
  const modelVsix = path.join(tmp, "scripted-model.vsix");
  packageScriptedModel(modelVsix);
  installExtensions({
    userDataDir,
    extensionsDir,
    vsixes: [toolhostVsix, modelVsix],
    settings: {
      ...quietSettings,
      "toolhost.path": toolhostBin,
      "toolhost.permissionMode": "default",
      "toolhost.agent.vendor": "toolhost-script",
      "chat.allowAnonymousAccess": true,
      "security.workspace.trust.enabled": false,
      "editor.minimap.enabled": false,
    },
  });

  step("start code-server");
  const session = await startWorkbench({
    userDataDir,
    extensionsDir,
    folder: workspace,
    logFile: path.join(artifacts, "agent-code-server.log"),
    env: { SCRIPTED_MODEL_LOG: modelLog },
    viewport: { width: 1500, height: 900 },
    consoleLogFile: path.join(artifacts, "agent-browser-console.log"),
  });
  const { page, wb } = session;
  const shot = (name) => wb.screenshot(`agent-${name}`);

  /** Sends a prompt to agent mode with the scripted model. */
  const send = async (prompt) => {
    fs.writeFileSync(path.join(workspace, ".e2e-prompt.txt"), prompt);
    await wb.runCommand("toolhost e2e: Send the Scripted Prompt");
  };
  const responses = () => page.locator(CHAT.response);
  /**
   * Waits until the latest response echoes the result of `tool` with
   * `expect` in it (the chat renders only the items in view, so responses
   * are not counted; it also streams text in, so the whole expected text
   * is waited for). Returns the response's text.
   */
  const result = async (tool, expect) => {
    const last = responses().last();
    const text = async () => ((await last.count()) > 0 ? (await last.innerText()).replace(/\u00a0/g, " ") : "");
    const want = `RESULT toolhost_${tool}:`;
    try {
      await waitFor(async () => {
        const t = await text();
        return t.includes(want) && t.includes(expect);
      }, `the result of ${tool}`, 60000);
    } catch (err) {
      throw new Error(`${err.message}; the latest response: ${await text()}`);
    }
    return text();
  };
  const confirmation = page.locator(CHAT.confirmation).last();
  const cardText = async () => (await page.locator(CHAT.card).last().innerText()).replace(/\u00a0/g, " ");
  const clickConfirmation = async (label) => {
    const button = confirmation.locator(".monaco-button", { hasText: label }).first();
    await button.click();
    await confirmation.waitFor({ state: "hidden", timeout: 15000 });
  };

  try {
    step("open the workspace and wait for both extensions");
    await page.goto(session.url);
    await wb.statusItem("toolhost: default").waitFor({ state: "visible", timeout: 90000 });
    await wb.openFile("sample.txt");
    await waitFor(async () => (await wb.activeEditorText()).includes("lazy dog"), "sample.txt open");

    step("Read runs with no confirmation and sees typing that is not saved");
    await send(`WAIT_FOR sample.txt "typed, not saved" CALL toolhost_Read <<<${JSON.stringify({ file_path: sample })}>>>`);
    // The chat saves dirty editors when it sends: type once the request
    // has reached the model, which waits for the typing.
    await waitFor(() => (readOrNull(modelLog) ?? "").includes("waiting for sample.txt"), "the request at the model", 60000);
    await page.locator(".editor-group-container .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("typed, not saved");
    await result("Read", "typed, not saved");
    if ((await page.locator(CHAT.confirmation).count()) > 0) throw new Error("Read asked for a confirmation");
    await shot("01-read");

    step("Edit: no confirmation in the chat to allow for the session; toolhost's diff review; allowed, applied through applyEdit; undone by VS Code");
    const reviewAllow = page.locator('.editor-actions .action-label[aria-label^="Allow"]').first();
    await send(`CALL toolhost_Edit <<<${JSON.stringify({ file_path: sample, old_string: "lazy dog", new_string: "sleepy cat" })}>>>`);
    await reviewAllow.waitFor({ state: "visible", timeout: 60000 });
    if ((await page.locator(CHAT.confirmation).count()) > 0) throw new Error("the chat asked to confirm an edit, offering Allow in this Session");
    await shot("02-edit-review");
    await reviewAllow.click();
    await result("Edit", "+jumps over the sleepy cat");
    if (await page.locator(".monaco-dialog-box").isVisible()) throw new Error("toolhost asked a second time");
    await waitFor(() => /sleepy cat/.test(readOrNull(sample) ?? ""), "the edit on disk");
    await wb.openFile("sample.txt");
    await waitFor(async () => (await wb.activeEditorText()).includes("sleepy cat"), "the edit in the document");
    await shot("03-edit-applied");
    await page.locator(".editor-group-container .view-lines").first().click();
    await page.keyboard.press("Control+z");
    await waitFor(async () => (await wb.activeEditorText()).includes("lazy dog"), "VS Code's undo restoring the text");
    await shot("04-edit-undone");

    step("the next edit is reviewed again; toolhost: Undo Last Turn rewinds it as one step that Ctrl+Z redoes");
    await send(`CALL toolhost_Edit <<<${JSON.stringify({ file_path: sample, old_string: "lazy dog", new_string: "tired cat" })}>>>`);
    await reviewAllow.waitFor({ state: "visible", timeout: 60000 });
    await reviewAllow.click();
    await result("Edit", "replaced 1 occurrence");
    await waitFor(() => /tired cat/.test(readOrNull(sample) ?? ""), "the second edit on disk");
    await wb.runCommand("toolhost: Undo Last Turn");
    await waitFor(() => /lazy dog/.test(readOrNull(sample) ?? ""), "the rewound file on disk");
    await page.locator(".notifications-toasts", { hasText: "Rewound sample.txt" }).first().waitFor({ state: "visible", timeout: 15000 });
    await shot("04b-undo-last-turn");
    await wb.openFile("sample.txt");
    await waitFor(async () => (await wb.activeEditorText()).includes("lazy dog"), "the rewind in the document");
    await page.locator(".editor-group-container .view-lines").first().click();
    await page.keyboard.press("Control+z");
    await waitFor(async () => (await wb.activeEditorText()).includes("tired cat"), "Ctrl+Z bringing the agent's edit back");

    step("Bash the user skips does not run");
    const marker = path.join(workspace, "bash-ran.txt");
    await send(`CALL toolhost_Bash <<<${JSON.stringify({ command: "echo ran > bash-ran.txt", description: "Write a marker file" })}>>>`);
    await confirmation.waitFor({ state: "visible", timeout: 60000 });
    const asked = await cardText();
    if (!asked.includes("echo ran > bash-ran.txt")) throw new Error(`the confirmation does not show the command: ${asked}`);
    await shot("05-bash-confirmation");
    await clickConfirmation(/^Skip/);
    await result("Bash", "chose to skip");
    if (readOrNull(marker) !== null) throw new Error("the skipped Bash ran");
    await shot("06-bash-skipped");

    step("AskUserQuestion is answered in the editor's quick pick");
    await send(`CALL toolhost_AskUserQuestion <<<${JSON.stringify({
      questions: [{ question: "Which color should the button be?", header: "Color", multiSelect: false,
        options: [{ label: "Red", description: "Warm and loud" }, { label: "Blue", description: "Calm and cool" }] }],
    })}>>>`);
    await wb.row("Blue").waitFor({ state: "visible", timeout: 60000 });
    await shot("07-question");
    await wb.pickRow("Blue");
    await result("AskUserQuestion", "Blue");
    await shot("08-answered");

    step("Agent runs its sub-agent on the editor's language model");
    await send(`CALL toolhost_Agent <<<${JSON.stringify({ description: "Greet", prompt: "SUBAGENT_REPORT hello from the editor model", subagent_type: "general-purpose" })}>>>`);
    await confirmation.waitFor({ state: "visible", timeout: 60000 });
    await shot("09-agent-confirmation");
    await clickConfirmation(/^Allow/);
    await result("Agent", "sub-agent report: hello from the editor model");
    await shot("10-agent-report");

    reportPassed("e2e agent mode", log, started);
  } catch (err) {
    await reportFailed("e2e agent mode", log, err, wb, "agent-failure");
  } finally {
    await session.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
