// End-to-end scenario: the real Claude Code CLI (npm, test/mcp's or
// $CLAUDE_BIN) typed into VS Code's integrated terminal, interactive under
// script(1), against a scripted Messages API on 127.0.0.1. It connects to
// the window through toolhost by itself (the terminal's environment and
// the lock file); its Edit opens VS Code's diff editor with the proposal
// editable; the proposal changed by the user and saved lands on disk and
// the model is told; a rejected proposal leaves the file; a selection made
// in an editor reaches the CLI and the model; getDiagnostics returns VS
// Code's TypeScript error of a file open in a tab. Then `claude --ide`
// started outside VS Code's terminals, with a clean environment, below the
// folder, finds the window by the lock file's folders alone.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  artifacts, extDir, installExtensions, makeTemp, quietSettings, readOrNull, reportFailed, reportPassed, startWorkbench, stepLog, toolhostBin, toolhostVsix, waitFor,
} from "../harness.mjs";

const claude = process.env.CLAUDE_BIN || path.join(extDir, "..", "..", "test", "mcp", "node_modules", ".bin", "claude");
const API_KEY = "sk-ant-api03-toolhost-test-key-0000000000000000";

/** The server-sent events of one assistant message made of blocks. */
function stream(blocks) {
  const ev = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev("message_start", { type: "message_start", message: { id: `msg_${Date.now()}`, type: "message", role: "assistant", model: "claude-test",
    content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } });
  let stop = "end_turn";
  blocks.forEach((b, index) => {
    if (b.type === "tool_use") {
      stop = "tool_use";
      out += ev("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
      out += ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    } else {
      out += ev("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      out += ev("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
    }
    out += ev("content_block_stop", { type: "content_block_stop", index });
  });
  out += ev("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  return out + ev("message_stop", { type: "message_stop" });
}

/** The messages after the last assistant message (the newest turn). */
function newestTurn(req) {
  const msgs = req.messages ?? [];
  let first = msgs.length - 1;
  while (first > 0 && msgs[first - 1].role !== "assistant") first--;
  return msgs.slice(Math.max(first, 0));
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (c.text ?? "") + textOf(c.content)).join("\n");
}

/** The text of the newest turn's tool result whose id starts with prefix. */
function toolResult(req, prefix) {
  for (const m of newestTurn(req)) {
    for (const c of Array.isArray(m.content) ? m.content : []) {
      if (c.type === "tool_result" && (!prefix || c.tool_use_id.startsWith(prefix))) return textOf(c.content);
    }
  }
  return undefined;
}

/**
 * A scripted model: EDIT reads then edits the file; DIAG asks the IDE for
 * tsFile's diagnostics; a tool result ends the turn.
 */
function startApi(file, tsFile) {
  const requests = [];
  let n = 0;
  let edits = 0;
  const script = (req) => {
    if (!req.tools?.length) return [{ type: "text", text: "ok" }];
    n++;
    if (toolResult(req, "toolu_read")) {
      edits++;
      const old = edits === 1 ? "two" : "one";
      return [{ type: "tool_use", id: `toolu_edit${n}`, name: "Edit", input: { file_path: file, old_string: old, new_string: old.toUpperCase() } }];
    }
    if (toolResult(req)) return [{ type: "text", text: "Done." }];
    const said = newestTurn(req).map((m) => textOf(m.content)).join("\n");
    if (said.includes("EDIT")) {
      return [{ type: "tool_use", id: `toolu_read${n}`, name: "Read", input: { file_path: file } }];
    }
    if (said.includes("DIAG")) {
      return [{ type: "tool_use", id: `toolu_diag${n}`, name: "mcp__ide__getDiagnostics", input: { uri: pathToFileURL(tsFile).href } }];
    }
    return [{ type: "text", text: "Nothing to do." }];
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method === "POST" && req.url.startsWith("/v1/messages/count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end('{"input_tokens":10}');
      } else if (req.method === "POST" && req.url.startsWith("/v1/messages")) {
        const parsed = JSON.parse(body);
        requests.push(parsed);
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }).end(stream(script(parsed)));
      } else {
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      }
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, requests, close: () => server.close() })));
}

/** The terminal's output without its control sequences (CSI; OSC, APC, DCS strings; two-byte escapes). */
function plain(text) {
  return text
    .replace(/\x1b[\]_P^][^\x07\x1b]*(\x07|\x1b\\)/g, "")
    .replace(/\x1b\[[0-9;?<>=!]*[ -\/]*[@-~]/g, "")
    .replace(/\x1b[^[\]]/g, "");
}

/** Whether the characters of text (spaces left out) appear in shownText in their order. */
function inOrder(shownText, text) {
  const wanted = text.replace(/\s/g, "");
  let i = 0;
  for (const ch of shownText) {
    if (i < wanted.length && ch === wanted[i]) i++;
  }
  return i === wanted.length;
}

/** Whether the terminal's log showed text (control sequences and spaces left out). */
function shown(log, text) {
  const flat = plain(readOrNull(log) ?? "").replace(/\s/g, "");
  return flat.includes(text.replace(/\s/g, ""));
}

/**
 * Ends the CLI started under script(1) with `ptyLog` as its log, and
 * script itself: the integrated terminal they run in is a session of its
 * own, which closing code-server does not end. Waits (bounded) until both
 * are gone, so that nothing writes into the test's folder as it is removed.
 */
async function endCLI(ptyLog) {
  const procs = () => fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      return { pid: Number(pid), ppid, cmd: fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") };
    } catch {
      return null; // ended meanwhile
    }
  }).filter(Boolean);
  const all = procs();
  const scripts = all.filter((p) => p.cmd.startsWith("script\0") && p.cmd.includes(ptyLog)).map((p) => p.pid);
  const targets = [...scripts, ...all.filter((p) => scripts.includes(p.ppid)).map((p) => p.pid)];
  for (const pid of targets) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await waitFor(() => targets.every((pid) => !fs.existsSync(`/proc/${pid}`) || /\) Z /.test(readOrNull(`/proc/${pid}/stat`) ?? ") Z ")),
    "the CLI and script(1) to end", 15000);
}

async function main() {
  if (!fs.existsSync(claude)) {
    console.log(`claude-ide: no Claude Code CLI at ${claude}; skipped`);
    return;
  }
  const started = Date.now();
  fs.mkdirSync(artifacts, { recursive: true });
  const tmp = makeTemp("toolhost-e2e-claude-");
  const folder = path.join(tmp, "project");
  const file = path.join(folder, "a.txt");
  const home = path.join(tmp, "home");
  const config = path.join(home, ".claude");
  fs.mkdirSync(folder, { recursive: true });
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(file, "one\ntwo\nthree\n");
  const tsFile = path.join(folder, "src", "bad.ts");
  fs.mkdirSync(path.dirname(tsFile), { recursive: true });
  fs.writeFileSync(path.join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2020", module: "commonjs" }, include: ["src"] }));
  fs.writeFileSync(tsFile, 'const total: number = "three";\nconsole.log(total);\n');
  const seeded = JSON.stringify({
    hasCompletedOnboarding: true, lastOnboardingVersion: "2.1.330", theme: "dark",
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects: Object.fromEntries([folder, path.join(folder, "src")].map((p) => [p, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true, allowedTools: [] }])),
  });
  fs.writeFileSync(path.join(home, ".claude.json"), seeded);
  fs.writeFileSync(path.join(config, ".claude.json"), seeded);
  const api = await startApi(file, tsFile);
  const ptyLog = path.join(tmp, "pty.log");
  const otherLog = path.join(tmp, "other-pty.log");
  let session, other;
  const log = stepLog("claude-ide: ");
  const { step } = log;
  try {
    const userDataDir = path.join(tmp, "user");
    const extensionsDir = path.join(tmp, "extensions");
    installExtensions({ userDataDir, extensionsDir, vsixes: [toolhostVsix], settings: {
      ...quietSettings, "toolhost.path": toolhostBin, "security.workspace.trust.enabled": false, "chat.disableAIFeatures": true,
      "workbench.secondarySideBar.defaultVisibility": "hidden", "terminal.integrated.enablePersistentSessions": false,
    } });
    session = await startWorkbench({ userDataDir, extensionsDir, folder, logFile: path.join(artifacts, "claude-ide-code-server.log"),
      env: { CLAUDE_CONFIG_DIR: config }, viewport: { width: 1400, height: 900 } });
    const { wb, page } = session;
    // A loaded machine takes long to serve the workbench the first time.
    await page.goto(session.url, { timeout: 180000 });

    step("the extension's server writes the lock file; a terminal gets the port");
    await waitFor(() => fs.existsSync(path.join(config, "ide")) && fs.readdirSync(path.join(config, "ide")).some((f) => f.endsWith(".lock")),
      "the lock file", 90000);
    await wb.runCommand("Terminal: Create New Terminal", 90000);
    await page.locator(".terminal-wrapper.active .xterm").waitFor({ state: "visible", timeout: 30000 });
    const env = `HOME=${home} ANTHROPIC_BASE_URL=http://127.0.0.1:${api.port} ANTHROPIC_API_KEY=${API_KEY} CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL=1`;
    await page.keyboard.type(`echo port=$CLAUDE_CODE_SSE_PORT; ${env} script -qfec "${claude} --permission-mode manual --model claude-test" ${ptyLog}\n`);
    await waitFor(() => shown(ptyLog, "manual mode on"), "the CLI to start", 60000);

    // What the terminal showed after a point (its log's length then).
    const logLength = () => (readOrNull(ptyLog) ?? "").length;
    const shownSince = (mark, text) => plain((readOrNull(ptyLog) ?? "").slice(mark)).replace(/\s/g, "").includes(text.replace(/\s/g, ""));
    // Types a prompt and, once the CLI has echoed it, sends it. The echo
    // is looked for as the prompt's characters in order, not as one run:
    // the CLI redraws only the cells that change, so a status line it
    // redraws while the prompt is typed (the IDE connecting on a slow
    // machine) lands between two of the prompt's characters in the log.
    const say = async (text) => {
      const mark = logLength();
      await page.keyboard.type(text);
      await waitFor(() => inOrder(plain((readOrNull(ptyLog) ?? "").slice(mark)), text), `the CLI to show ${text}`, 30000);
      await page.keyboard.press("Enter");
    };
    const resultOf = async (prefix, from) => {
      let found;
      await waitFor(() => (found = api.requests.slice(from).map((r) => toolResult(r, prefix)).find((t) => t !== undefined)) !== undefined,
        `the model to get the result of ${prefix}`, 60000);
      return found;
    };

    step("the CLI's Edit opens the diff editor; the proposal, changed and saved, lands on disk and the model is told");
    let from = api.requests.length;
    await say("EDIT a.txt");
    const modified = page.locator(".editor-instance .monaco-diff-editor .editor.modified");
    await modified.waitFor({ state: "visible", timeout: 60000 });
    await wb.screenshot("claude-ide-01-review");
    await modified.locator(".view-lines").click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("four (the user's)\n");
    await page.keyboard.press("Control+S");
    const told = await resultOf("toolu_edit", from);
    await waitFor(() => readOrNull(file) === "one\nTWO\nthree\nfour (the user's)\n", "the accepted text on disk", 30000);
    if (!/user/i.test(told)) throw new Error(`the model was not told of the user's change: ${told}`);

    step("a rejected proposal leaves the file");
    from = api.requests.length;
    await page.locator(".terminal-wrapper.active .xterm").click();
    await say("EDIT a.txt again");
    await modified.waitFor({ state: "visible", timeout: 60000 });
    await wb.runCommand("toolhost: Reject Proposal", 60000);
    await waitFor(() => shown(ptyLog, "Rejected update to a.txt"), "the CLI to say the edit was rejected", 30000);
    if (readOrNull(file) !== "one\nTWO\nthree\nfour (the user's)\n") throw new Error(`the file changed: ${readOrNull(file)}`);

    const openFile = async (name, contains) => {
      await wb.openFile(name, 60000);
      await waitFor(async () => (await wb.activeEditorText()).includes(contains), `${name} open`, 60000);
    };

    step("lines selected in the editor reach the CLI (selection_changed) and the model with the next prompt");
    await openFile("a.txt", "four (the user's)");
    let mark = logLength();
    // One drag from the start of line `first` to past the end of line
    // `last`: the CLI redraws only the cells that change, so a selection
    // grown in steps ("1 line" then "2 lines") would never show "2 lines
    // selected" whole.
    const drag = async (first, last) => {
      const lines = await page.locator(".editor-group-container.active .view-lines").first().boundingBox();
      const lineHeight = (await page.locator(".editor-group-container.active .view-line").first().boundingBox()).height;
      await page.mouse.move(lines.x + 1, lines.y + (first - 0.5) * lineHeight);
      await page.mouse.down();
      await page.mouse.move(lines.x + 400, lines.y + (last - 0.5) * lineHeight);
      await page.mouse.up();
    };
    await drag(3, 4);
    const onScreen = (text) => shownSince(mark, text);
    await waitFor(() => onScreen("2 lines selected"), "the CLI to show the editor's selection", 30000);
    await wb.screenshot("claude-ide-02-selection");
    from = api.requests.length;
    await page.locator(".terminal-wrapper.active .xterm").click();
    await say("What did I select?");
    await waitFor(() => api.requests.slice(from).some((r) => {
      const t = newestTurn(r).map((m) => textOf(m.content)).join("\n");
      return t.includes("What did I select?") && t.includes("four (the user's)") && t.includes("a.txt");
    }), "the model to be told of the selection", 30000);

    step("getDiagnostics returns VS Code's TypeScript error of a file open in a tab");
    await openFile("bad.ts", "console.log(total)");
    await page.locator(".editor-group-container.active .squiggly-error").first().waitFor({ state: "attached", timeout: 120000 });
    from = api.requests.length;
    await page.locator(".terminal-wrapper.active .xterm").click();
    mark = logLength();
    await say("DIAG");
    let diag;
    let allowedAt = 0;
    await waitFor(async () => {
      diag = api.requests.slice(from).map((r) => toolResult(r, "toolu_diag")).find((t) => t !== undefined);
      // Allows the call when the CLI asks; an Enter that comes while the
      // question is still being drawn is lost, so it is pressed again each
      // second until the result arrives.
      if (diag === undefined && shownSince(mark, "Do you want to proceed") && Date.now() - allowedAt > 1000) {
        allowedAt = Date.now();
        await page.keyboard.press("Enter");
      }
      return diag !== undefined;
    }, "the model to get getDiagnostics' result", 60000);
    if (!diag.includes("Type 'string' is not assignable to type 'number'") || !diag.includes("2322")) {
      throw new Error(`getDiagnostics' result has no TS2322 for src/bad.ts: ${diag}`);
    }

    step("claude --ide from another terminal, with no CLAUDE_CODE_SSE_PORT, finds the window by its folder; the selection reaches it");
    other = spawn("script", ["-qfec", `${claude} --ide --permission-mode manual --model claude-test`, otherLog], {
      cwd: path.join(folder, "src"), stdio: "ignore",
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, CLAUDE_CONFIG_DIR: config, ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
        ANTHROPIC_API_KEY: API_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1", DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1", CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: "1", TERM: "xterm-256color", COLUMNS: "120", LINES: "40" },
    });
    await waitFor(() => shown(otherLog, "manual mode on"), "the other terminal's CLI to start", 60000);
    await openFile("a.txt", "four (the user's)");
    // Until the CLI has connected and listens, a selection passes it by:
    // one of two selections in turn is made every two seconds.
    let draggedAt = 0, wide = false;
    await waitFor(async () => {
      if (shown(otherLog, "lines selected")) return true;
      if (Date.now() - draggedAt > 2000) {
        draggedAt = Date.now();
        wide = !wide;
        await drag(wide ? 2 : 3, 4);
      }
      return false;
    }, "the other terminal's CLI to show the editor's selection", 60000);
    reportPassed("e2e claude-ide", log, started);
  } catch (err) {
    const terminal = plain(readOrNull(ptyLog) ?? "");
    fs.writeFileSync(path.join(artifacts, "claude-ide-terminal.txt"), terminal);
    // The terminal's last lines, so a failure on a machine whose artifacts
    // are gone still says what the CLI showed.
    console.log(`the CLI's terminal ended with:\n${terminal.split(/\r?\n/).map((l) => l.trimEnd()).filter(Boolean).slice(-25).join("\n")}`);
    fs.writeFileSync(path.join(artifacts, "claude-ide-other-terminal.txt"), plain(readOrNull(otherLog) ?? ""));
    await reportFailed("e2e claude-ide", log, err, session?.wb, "claude-ide-failure");
  } finally {
    await endCLI(ptyLog).catch((err) => console.error(`could not end the CLI: ${err.message}`));
    if (other) await endCLI(otherLog).catch((err) => console.error(`could not end the other terminal's CLI: ${err.message}`));
    await session?.close();
    api.close();
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  }
}

await main();
