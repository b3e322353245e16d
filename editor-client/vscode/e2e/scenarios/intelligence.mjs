// End-to-end scenario: the editor's language intelligence for the agent,
// with VS Code's built-in TypeScript features (offline). An agent attached
// through `toolhost mcp --attach` edits a .ts file: an Edit introducing a
// type error returns that error (code, line, message), the Edit fixing it
// reports none, an Edit changing no diagnostics does not wait out the bound,
// an Edit of a file no tab shows gets its error too, and a JSON file's
// Edits get the JSON server's reports, waited for, while a plain text file's
// Edit waits for nothing; LSP goToDefinition
// on a symbol used in another file returns that file and line,
// findReferences lists the uses, and the other seven operations answer in
// Claude Code's shape. The time the diagnostics added to each Edit is printed.
import * as fs from "node:fs";
import * as path from "node:path";
import {
  artifacts, attach, installExtensions, makeTemp, quietSettings, reportFailed, startWorkbench, stepLog, toolhostBin, toolhostVsix, waitFor,
} from "../harness.mjs";

/** The diagnostics wait's bound (edit.diagnosticsWaitMs): above the default
 * 2000 ms because a loaded machine's TypeScript can take longer to check an
 * edit, and the wait ends as soon as the diagnostics settle. */
const WAIT_BOUND_MS = 10000;

async function main() {
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = makeTemp("toolhost-e2e-intel-");
  const folder = path.join(tmp, "project");
  const runtime = path.join(tmp, "runtime");
  fs.mkdirSync(path.join(folder, "src"), { recursive: true });
  fs.mkdirSync(runtime, { mode: 0o700 });
  fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noUnusedLocals: true, target: "es2020", module: "commonjs" }, include: ["src"] }));
  fs.writeFileSync(path.join(folder, "src", "data.json"), '{"a": 1, "b": 2}\n');
  fs.writeFileSync(path.join(folder, "src", "util.ts"), "export function add(a: number, b: number): number {\n  return a + b;\n}\n");
  const app = path.join(folder, "src", "app.ts");
  fs.writeFileSync(app, 'import { add } from "./util";\nconst total: number = add(1, 2);\nconsole.log(total);\n');
  // shape.ts gives LSP's other operations something to find: an interface
  // with an implementation, and a method calling add.
  fs.writeFileSync(
    path.join(folder, "src", "shape.ts"),
    ['import { add } from "./util";', "export interface Shape {", "  area(): number;", "}", "export class Square implements Shape {",
      "  area(): number {", "    return add(2, 2);", "  }", "}", ""].join("\n"),
  );
  const env = { XDG_RUNTIME_DIR: runtime, XDG_CONFIG_HOME: path.join(tmp, "xdg") };
  fs.mkdirSync(path.join(tmp, "xdg", "toolhost"), { recursive: true });
  fs.writeFileSync(path.join(tmp, "xdg", "toolhost", "settings.json"), JSON.stringify({ edit: { diagnosticsWaitMs: WAIT_BOUND_MS } }));
  const userDataDir = path.join(tmp, "user");
  const extensionsDir = path.join(tmp, "extensions");
  installExtensions({
    userDataDir,
    extensionsDir,
    vsixes: [toolhostVsix],
    settings: { ...quietSettings, "toolhost.path": toolhostBin, "toolhost.permissionMode": "acceptEdits", "security.workspace.trust.enabled": false },
  });
  let session;
  let agent;
  const log = stepLog("intelligence: ");
  const { step } = log;
  try {
    step("open the TypeScript project; attach an agent with toolhost mcp --attach");
    session = await startWorkbench({ userDataDir, extensionsDir, folder, env, logFile: path.join(artifacts, "intelligence-code-server.log"), viewport: { width: 1400, height: 860 } });
    // A loaded machine can take long to serve the workbench the first time.
    await session.page.goto(session.url, { timeout: 120000 });
    const sessions = path.join(runtime, "toolhost");
    await waitFor(() => fs.existsSync(sessions) && fs.readdirSync(sessions).length > 0, "the editor session's file", 240000);
    // VS Code's TypeScript reports diagnostics for files open in a tab:
    // the user has app.ts open.
    const { wb } = session;
    await wb.openFile("app.ts", 60000);
    await waitFor(async () => (await wb.activeEditorText()).includes("add(1, 2)"), "app.ts open", 60000);
    agent = attach(folder, env);
    await agent.init();

    step("LSP goToDefinition on add in app.ts returns util.ts, line 1");
    const where = { operation: "goToDefinition", filePath: "src/app.ts", line: 2, character: 23 };
    let def;
    // TypeScript's server starts with the first request, and until its
    // project is loaded its syntax-only server answers with the import:
    // ask until the semantic answer comes.
    await waitFor(async () => {
      def = await agent.call("LSP", where);
      return !def.isError && def.text.includes("src/util.ts");
    }, "TypeScript to answer goToDefinition", 90000).catch((err) => {
      throw new Error(`${err.message}; last answer: ${def?.text}`);
    });
    if (!def.text.includes("Defined in src/util.ts:1:17")) {
      throw new Error(`goToDefinition: ${def.text}`);
    }

    step("LSP findReferences lists the uses in the three files");
    const refs = await agent.call("LSP", { ...where, operation: "findReferences" });
    for (const want of ["Found 5 references across 3 files:", "src/app.ts:", "Line 2:23", "src/util.ts:", "src/shape.ts:\n  Line 1:10"]) {
      if (!refs.text.includes(want)) {
        throw new Error(`findReferences lacks ${JSON.stringify(want)}: ${refs.text}`);
      }
    }

    step("LSP answers its other seven operations, each in Claude Code's shape");
    const shape = "src/shape.ts";
    const others = [
      [{ ...where, operation: "hover" }, /^Hover info at 2:23:\n\n[^]*add\(a: number, b: number\): number/],
      [{ operation: "documentSymbol", filePath: shape, line: 1, character: 1 }, /Square \(Class\) - Line 5[^]*area \(Method\) - Line 6/],
      [{ operation: "workspaceSymbol", filePath: shape, line: 1, character: 1, query: "Square" }, /^Found \d+ symbols? in workspace:\n\nsrc\/shape\.ts:\n  Square \(Class\) - Line 5/],
      [{ operation: "goToImplementation", filePath: shape, line: 2, character: 18 }, /^Defined in src\/shape\.ts:5:/],
      [{ operation: "prepareCallHierarchy", filePath: "src/util.ts", line: 1, character: 17 }, /^Call hierarchy item: add \(Function\) - src\/util\.ts:1/],
      [{ operation: "incomingCalls", filePath: "src/util.ts", line: 1, character: 17 }, /^Found \d incoming calls?:[^]*src\/shape\.ts:\n  area \(Method\) - Line 6 \[calls at: 7:12\]/],
      [{ operation: "outgoingCalls", filePath: shape, line: 6, character: 3 }, /^Found 1 outgoing call:\n\nsrc\/util\.ts:\n  add \(Function\) - Line 1 \[called from: 7:12\]/],
    ];
    for (const [input, want] of others) {
      const got = await agent.call("LSP", input);
      if (got.isError || !want.test(got.text)) {
        throw new Error(`LSP ${input.operation}: ${got.text}\nwant ${want}`);
      }
    }

    // The Edit adds a type error and an unused local: a style check, which
    // VS Code's TypeScript reports as a warning.
    const breaking = '= "three";\nconst unused = 1;';
    const typeError = /✖ \[Line 2:7\] Type 'string' is not assignable to type 'number'\. \[2322\] \(ts\)/;
    const warning = /⚠ \[Line 3:7\] 'unused' is declared but its value is never read\. \[6133\] \(ts\)/;
    /** Makes the breaking Edit, checks what edit.diagnostics `mode` adds, then the fixing Edit. */
    const breakAndFix = async (mode) => {
      const read = await agent.call("Read", { file_path: app });
      if (read.isError) {
        throw new Error(`Read: ${read.text}`);
      }
      const broke = await agent.call("Edit", { file_path: app, old_string: "= add(1, 2);", new_string: breaking });
      const wants = { on: [typeError, warning], errors: [typeError], off: [] }[mode];
      const unwanted = { on: [], errors: [warning], off: [typeError, warning, /diagnostic/] }[mode];
      if (broke.isError || wants.some((re) => !re.test(broke.text)) || unwanted.some((re) => re.test(broke.text))) {
        const later = await agent.call("getDiagnostics", { uri: "src/app.ts" });
        throw new Error(`with edit.diagnostics ${mode} the breaking Edit (${broke.ms} ms) should report ${wants.join(" and ") || "nothing"} and not ${unwanted.join(" or ") || "more"}: ${broke.text}\ngetDiagnostics after it: ${later.text}`);
      }
      console.log(`intelligence: with edit.diagnostics ${mode} the breaking Edit took ${broke.ms} ms (diagnostics bound ${WAIT_BOUND_MS} ms)`);
      const fixed = await agent.call("Edit", { file_path: app, old_string: breaking, new_string: "= add(1, 2);" });
      if (fixed.isError || fixed.text.includes("2322") || fixed.text.includes("new-diagnostics")) {
        throw new Error(`the fixing Edit still reports an error: ${fixed.text}`);
      }
      console.log(`intelligence: with edit.diagnostics ${mode} the fixing Edit took ${fixed.ms} ms (diagnostics bound ${WAIT_BOUND_MS} ms)`);
    };

    step("an Edit introducing a type error and a warning returns both (edit.diagnostics on); the Edit fixing them reports none");
    await breakAndFix("on");

    // VS Code's TypeScript reports nothing when an edit leaves a file's
    // diagnostics as they were; its server is asked instead, so the Edit
    // does not wait out the bound.
    step("an Edit that changes no diagnostics returns without waiting out the bound");
    const quiet = await agent.call("Edit", { file_path: app, old_string: "console.log(total);", new_string: "console.log(total); // sum" });
    if (quiet.isError || /diagnostic/.test(quiet.text) || quiet.ms >= WAIT_BOUND_MS / 2) {
      throw new Error(`the Edit changing no diagnostics took ${quiet.ms} ms (bound ${WAIT_BOUND_MS} ms): ${quiet.text}`);
    }
    console.log(`intelligence: an Edit changing no diagnostics took ${quiet.ms} ms (diagnostics bound ${WAIT_BOUND_MS} ms)`);

    step("an Edit breaking shape.ts, which no tab shows, returns its new error; the Edit undoing it reports none");
    const shapeFile = path.join(folder, shape);
    const shapeRead = await agent.call("Read", { file_path: shapeFile });
    if (shapeRead.isError) {
      throw new Error(`Read: ${shapeRead.text}`);
    }
    const broken = await agent.call("Edit", { file_path: shapeFile, old_string: "return add(2, 2);", new_string: 'return add(2, "2");' });
    if (broken.isError || !/<new-diagnostics>[^]*✖ \[Line 7:19\] Argument of type 'string' is not assignable to parameter of type 'number'\. \[2345\] \(ts\)/.test(broken.text)) {
      throw new Error(`the Edit breaking shape.ts (${broken.ms} ms) should report its type error: ${broken.text}`);
    }
    const mended = await agent.call("Edit", { file_path: shapeFile, old_string: 'return add(2, "2");', new_string: "return add(2, 2);" });
    if (mended.isError || /diagnostic/.test(mended.text)) {
      throw new Error(`the Edit mending shape.ts (${mended.ms} ms) still reports: ${mended.text}`);
    }
    console.log(`intelligence: Edits of a file no tab shows took ${broken.ms} and ${mended.ms} ms`);

    // A language TypeScript's server does not check: the extension waits
    // for VS Code's JSON language server to report the edit.
    step("an Edit breaking a JSON file returns the JSON server's error (its report waited for); the Edit mending it reports none");
    // VS Code's JSON server checks the files open in a tab: the user opens it.
    await wb.openFile("data.json", 60000);
    await waitFor(async () => (await wb.activeEditorText()).includes('"b": 2'), "data.json open", 60000);
    const data = path.join(folder, "src", "data.json");
    const dataRead = await agent.call("Read", { file_path: data });
    if (dataRead.isError) {
      throw new Error(`Read: ${dataRead.text}`);
    }
    const jsonBroken = await agent.call("Edit", { file_path: data, old_string: '"b": 2', new_string: '"b": 2 "c": 3' });
    if (jsonBroken.isError || !/<new-diagnostics>[^]*✖ \[Line 1:\d+\] Expected comma[^]*\(json\)/.test(jsonBroken.text)) {
      const later = await agent.call("getDiagnostics", { uri: "src/data.json" });
      throw new Error(`the Edit breaking data.json (${jsonBroken.ms} ms) should report the JSON server's error: ${jsonBroken.text}\ngetDiagnostics after it: ${later.text}`);
    }
    const jsonMended = await agent.call("Edit", { file_path: data, old_string: '"b": 2 "c": 3', new_string: '"b": 2' });
    if (jsonMended.isError || /diagnostic/.test(jsonMended.text)) {
      throw new Error(`the Edit mending data.json (${jsonMended.ms} ms) still reports: ${jsonMended.text}`);
    }
    console.log(`intelligence: Edits of a JSON file, its reports waited for, took ${jsonBroken.ms} and ${jsonMended.ms} ms`);

    step("an Edit of a file no extension reports on returns without waiting out the bound");
    const notes = path.join(folder, "notes.txt");
    fs.writeFileSync(notes, "some notes\n");
    const notesRead = await agent.call("Read", { file_path: notes });
    const plain = await agent.call("Edit", { file_path: notes, old_string: "some notes", new_string: "more notes" });
    if (notesRead.isError || plain.isError || /diagnostic/.test(plain.text) || plain.ms >= WAIT_BOUND_MS / 2) {
      throw new Error(`the Edit of notes.txt took ${plain.ms} ms (bound ${WAIT_BOUND_MS} ms): ${notesRead.text}\n${plain.text}`);
    }
    console.log(`intelligence: an Edit of a file no extension reports on took ${plain.ms} ms`);

    step("getDiagnostics for app.ts is empty again");
    const diags = await agent.call("getDiagnostics", { uri: "src/app.ts" });
    if (diags.isError || diags.text.includes("2322")) {
      throw new Error(`getDiagnostics: ${diags.text}`);
    }
    console.log("intelligence: 10 steps passed");
  } catch (err) {
    await reportFailed("e2e intelligence", log, err, session?.wb, "intelligence-failure");
  } finally {
    await agent?.close();
    await session?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
