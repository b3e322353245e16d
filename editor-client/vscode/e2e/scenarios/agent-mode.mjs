// End-to-end: toolhost's tools in VS Code's agent mode (Copilot Chat, built
// into code-server), offline, with a scripted language model
// (e2e/scripted-model). Read runs with no confirmation and sees unsaved
// typing; Edit asks nothing in the chat (no "Allow in this Session" to
// turn reviews off) and is reviewed in toolhost's diff review, every time;
// approved, it changes the document through applyEdit, which VS Code's undo
// reverts, and toolhost: Undo Last Turn rewinds as one step; a Bash the user skips does not run; AskUserQuestion is answered
// in the editor's quick pick; the Agent tool's sub-agent runs on the
// editor's language model (toolhost/runAgent). An agent attached with
// `toolhost mcp --attach` renames across three files with three parallel
// Writes: one review of the three in the multi-diff editor, where one hunk
// is reverted and one line typed; exactly that lands, the agent is told,
// and Undo Last Turn rewinds the turn but keeps the file the user changed
// since. Screenshots: e2e/artifacts/agent-*.png.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  artifacts, attach, e2eDir as e2e, extDir as ext, installExtensions, makeTemp, quietSettings, readOrNull, reportFailed,
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
  // The three-file rename the attached agent makes (package rename).
  const renameDir = path.join(workspace, "rename");
  fs.mkdirSync(renameDir);
  const goFile = (name) => path.join(renameDir, name);
  const before = {
    "a.go": "package rename\n\nvar A = oldName(1)\n",
    "b.go": "package rename\n\nvar B = oldName(2)\n\n// TODO: rename oldName\n",
    "c.go": "package rename\n\nfunc oldName(n int) int { return n * 2 }\n",
  };
  for (const [name, text] of Object.entries(before)) fs.writeFileSync(goFile(name), text);
  const runtime = path.join(tmp, "runtime");
  fs.mkdirSync(runtime, { mode: 0o700 });
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
    env: { SCRIPTED_MODEL_LOG: modelLog, XDG_RUNTIME_DIR: runtime },
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
    // A loaded machine can take long to serve the workbench the first time.
    await page.goto(session.url, { timeout: 120000 });
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

    step("Edit: no confirmation in the chat to allow for the session; toolhost's review; allowed, applied through applyEdit; undone by VS Code");
    // A client that reviews changes as one gets even a lone edit as a review of one file.
    const reviewAllow = page.locator('.editor-actions .action-label[aria-label^="Accept All"]').first();
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

    step("an attached agent's three-file rename, three parallel Writes, is one review; a reverted hunk and a typed line land exactly");
    const agent = attach(workspace, { XDG_RUNTIME_DIR: runtime }, "rename-agent");
    let writes;
    try {
      await agent.init();
      for (const name of Object.keys(before)) {
        const read = await agent.call("Read", { file_path: goFile(name) });
        if (read.isError) throw new Error(`Read ${name}: ${read.text}`);
      }
      const proposed = {
        "a.go": "package rename\n\nvar A = newName(1)\n",
        "b.go": "package rename\n\nvar B = newName(2)\n\n// oldName is newName now\n",
        "c.go": "package rename\n\nfunc newName(n int) int { return n * 2 }\n",
      };
      writes = Promise.all(Object.entries(proposed).map(([name, content]) => agent.call("Write", { file_path: goFile(name), content })));
      const reviewTab = page.locator(".tabs-container .tab", { hasText: "rename-agent wants to change 3 files" });
      await reviewTab.waitFor({ state: "visible", timeout: 60000 });
      const modifiedLine = (text) => page.locator(".editor.modified .view-line", { hasText: text }).first();
      // Reject b.go's second hunk: its line back as it was, typed into
      // the proposal (the revert arrow shows only under a hovering mouse);
      // and change a line of a.go's proposal.
      const retype = async (line, text) => {
        await modifiedLine(line).waitFor({ state: "visible", timeout: 30000 });
        await modifiedLine(line).click();
        await page.keyboard.press("End");
        await page.keyboard.press("Shift+Home");
        await page.keyboard.type(text);
      };
      await retype("// oldName is newName now", "// TODO: rename oldName");
      await retype("var A = newName(1)", "var A = newName(1) + 1");
      if ((await page.locator(".tabs-container .tab", { hasText: "wants to change" }).count()) !== 1) throw new Error("the three Writes opened more than one review");
      await shot("11-review-changes");
      await reviewAllow.click();
      const [a, b, c] = await writes;
      const want = {
        "a.go": "package rename\n\nvar A = newName(1) + 1\n",
        "b.go": "package rename\n\nvar B = newName(2)\n\n// TODO: rename oldName\n",
        "c.go": proposed["c.go"],
      };
      for (const [name, text] of Object.entries(want)) {
        await waitFor(() => readOrNull(goFile(name)) === text, `exactly the accepted ${name} on disk (has ${JSON.stringify(readOrNull(goFile(name)))})`);
      }
      if (!a.text.includes("accepted your change with modifications") || !a.text.includes("+var A = newName(1) + 1")) throw new Error(`a.go's result does not say what the user modified: ${a.text}`);
      if (!b.text.includes("1 of 2 hunks rejected") || !b.text.includes("+// TODO: rename oldName")) throw new Error(`b.go's result does not say what was rejected: ${b.text}`);
      if (c.isError || c.text.includes("modifications")) throw new Error(`c.go's result: ${c.text}`);
    } finally {
      await agent.close();
    }

    step("Undo Last Turn restores the rename but keeps the file the user changed since, and says so; Ctrl+Z redoes it");
    const mine = "package rename\n\nfunc newName(n int) int { return n * 2 } // mine\n";
    fs.writeFileSync(goFile("c.go"), mine);
    await wb.runCommand("toolhost: Undo Last Turn");
    await waitFor(() => readOrNull(goFile("a.go")) === before["a.go"] && readOrNull(goFile("b.go")) === before["b.go"], "a.go and b.go rewound on disk");
    await page.locator(".notifications-toasts", { hasText: "c.go" }).first().waitFor({ state: "visible", timeout: 15000 });
    if (readOrNull(goFile("c.go")) !== mine) throw new Error("the rewind overwrote the user's change to c.go");
    await shot("12-rename-rewound");
    await wb.openFile("a.go");
    await waitFor(async () => (await wb.activeEditorText()).includes("oldName(1)"), "a.go rewound in the editor");
    await page.locator(".editor-group-container .view-lines").first().click();
    await page.keyboard.press("Control+z");
    // The rewind was one edit of two files: VS Code asks whether to undo it in both.
    const acrossFiles = page.locator(".monaco-dialog-box .monaco-button", { hasText: /^Undo in/ });
    await waitFor(async () => (await acrossFiles.count()) > 0 || (await wb.activeEditorText()).includes("newName(1) + 1"), "Ctrl+Z to redo the rename");
    if ((await acrossFiles.count()) > 0) await acrossFiles.first().click();
    await waitFor(async () => (await wb.activeEditorText()).includes("newName(1) + 1"), "Ctrl+Z bringing a.go's accepted text back");

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
