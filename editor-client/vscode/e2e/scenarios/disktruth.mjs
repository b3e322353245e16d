// End-to-end scenario: the disk is the truth under a document open in
// VS Code. A file open and unmodified in the editor is rewritten on disk by
// a Bash call; an Edit through the editor then keeps Bash's change and
// applies on top of it, on disk and in the buffer. With unsaved typing in
// the buffer and a change on disk, the Edit is refused: the disk keeps
// Bash's text and the buffer keeps the typing.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  artifacts, bundledBinary, installExtensions, makeTemp, quietSettings, readOrNull, reportFailed, reportPassed, runTool, startWorkbench,
  stepLog, toolhostBin, toolhostVsix, waitFor,
} from "../harness.mjs";

/** The tab of the active editor group whose label is `name`. */
function tab(wb, name) {
  return wb.page.locator(".editor-group-container.active .tab", { hasText: name }).first();
}

/** Waits until the result document of `tool` is the active editor and returns its text. */
async function result(wb, tool) {
  await wb.page.locator(".editor-group-container.active .tab.active", { hasText: `${tool}-result.md` }).waitFor({ state: "visible", timeout: 30000 });
  return wb.activeEditorText();
}

/** Opens `name` (a file at the workspace root) in the editor with Go to File. */
async function openFile(wb, name) {
  await wb.openFile(name);
  await wb.page.locator(".editor-group-container.active .tab.active", { hasText: name }).waitFor({ state: "visible", timeout: 15000 });
}

async function main() {
  const started = Date.now();
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = makeTemp("toolhost-e2e-disktruth-");
  const workspace = path.join(tmp, "workspace");
  fs.mkdirSync(workspace, { recursive: true });
  const clean = path.join(workspace, "clean.txt");
  const dirty = path.join(workspace, "dirty.txt");
  fs.writeFileSync(clean, "alpha\nbeta\ngamma\n");
  fs.writeFileSync(dirty, "one\ntwo\nthree\n");
  const userDataDir = path.join(tmp, "user");
  const extensionsDir = path.join(tmp, "extensions");
  installExtensions({
    userDataDir,
    extensionsDir,
    vsixes: [toolhostVsix],
    settings: {
      ...quietSettings,
      ...(bundledBinary ? {} : { "toolhost.path": toolhostBin }),
      // No prompt or review between the calls: what is judged is what the
      // editor and the disk hold.
      "toolhost.permissionMode": "bypassPermissions",
      "security.workspace.trust.enabled": false,
      "files.autoSave": "off",
      "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
    },
  });
  const log = stepLog("disktruth: ");
  const { step } = log;
  const session = await startWorkbench({
    userDataDir, extensionsDir, folder: workspace,
    logFile: path.join(artifacts, "disktruth-code-server.log"),
    env: { XDG_CONFIG_HOME: path.join(tmp, "xdg") },
    viewport: { width: 1400, height: 860 },
  });
  const { page, wb } = session;
  try {
    step("open the workspace and wait for the extension");
    await page.goto(session.url, { timeout: 90000 });
    await wb.statusItem("toolhost: bypassPermissions").waitFor({ state: "visible", timeout: 90000 });

    step("a file open and unmodified in the editor is rewritten by Bash; an Edit applies on top of Bash's text");
    await openFile(wb, "clean.txt");
    await runTool(wb, "Read", { file_path: clean });
    await result(wb, "Read");
    await runTool(wb, "Bash", { command: "printf 'alpha\\nBETA FROM BASH\\ngamma\\n' > clean.txt", description: "Rewrite clean.txt" });
    await waitFor(() => readOrNull(clean) === "alpha\nBETA FROM BASH\ngamma\n", "Bash's rewrite of clean.txt");
    await result(wb, "Bash");
    await runTool(wb, "Edit", { file_path: clean, old_string: "gamma", new_string: "gamma edited" });
    const edit = await result(wb, "Edit");
    if (!edit.startsWith("# Edit — ok")) {
      throw new Error(`the Edit failed: ${edit}`);
    }
    const want = "alpha\nBETA FROM BASH\ngamma edited\n";
    await waitFor(() => readOrNull(clean) === want, `clean.txt to hold Bash's change and the edit (it holds ${JSON.stringify(readOrNull(clean))}; the Edit said: ${edit})`);
    await openFile(wb, "clean.txt");
    await waitFor(async () => (await wb.activeEditorText()).includes("BETA FROM BASH") && (await wb.activeEditorText()).includes("gamma edited"),
      "the editor's buffer to show Bash's change and the edit");
    if (await tab(wb, "clean.txt").evaluate((el) => el.classList.contains("dirty"))) {
      throw new Error("clean.txt is left modified in the editor: the buffer no longer matches the disk");
    }
    await wb.screenshot("disktruth-01-clean");

    step("unsaved typing in the buffer and a change on disk: the Edit is refused and neither is lost");
    await openFile(wb, "dirty.txt");
    await runTool(wb, "Read", { file_path: dirty });
    await result(wb, "Read");
    await openFile(wb, "dirty.txt");
    await page.locator(".editor-group-container.active .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("typed by the user");
    await waitFor(() => tab(wb, "dirty.txt").evaluate((el) => el.classList.contains("dirty")), "dirty.txt modified in the editor");
    await runTool(wb, "Bash", { command: "printf 'one\\nTWO FROM BASH\\nthree\\n' > dirty.txt", description: "Rewrite dirty.txt" });
    const onDisk = "one\nTWO FROM BASH\nthree\n";
    await waitFor(() => readOrNull(dirty) === onDisk, "Bash's rewrite of dirty.txt");
    await result(wb, "Bash");
    await runTool(wb, "Edit", { file_path: dirty, old_string: "three", new_string: "three edited" });
    const refused = await result(wb, "Edit");
    await wb.screenshot("disktruth-02-refused");
    if (readOrNull(dirty) !== onDisk) {
      throw new Error(`the disk lost Bash's text: ${JSON.stringify(readOrNull(dirty))}; the Edit said: ${refused}`);
    }
    if (!refused.startsWith("# Edit — error")) {
      throw new Error(`the Edit was not refused: ${refused}`);
    }
    await openFile(wb, "dirty.txt");
    const buffer = await wb.activeEditorText();
    if (!buffer.includes("typed by the user") || buffer.includes("three edited")) {
      throw new Error(`the buffer lost the typing or took the edit: ${JSON.stringify(buffer)}`);
    }
    if (readOrNull(dirty) !== onDisk) {
      throw new Error(`the disk changed after the refusal: ${JSON.stringify(readOrNull(dirty))}`);
    }
    await wb.screenshot("disktruth-03-kept");
    reportPassed("disktruth", log, started);
  } catch (err) {
    await reportFailed("e2e disktruth", log, err, wb, "disktruth-failure");
  } finally {
    await session.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
