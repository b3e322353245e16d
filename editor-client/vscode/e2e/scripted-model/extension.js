// Test only: a language model for VS Code's agent mode whose answers are a
// script, so the end-to-end test runs agent mode offline. A prompt
//   CALL <tool> <<<json input>>>
// is answered with that tool call; the request that carries the tool's
// result is answered with the text "RESULT <tool>: <result text>", which the
// test reads in the chat. A prompt with WAIT_FOR <file name> "<text>" first
// waits until that document holds the text, unsaved (chat saves dirty
// editors when a request is sent, so the test types after sending).
// A prompt with SUBAGENT_REPORT <text> and no CALL (a sub-agent's task) is
// answered "sub-agent report: <text>".
// "toolhost e2e: Send the Scripted Prompt" opens agent mode with the model
// and the prompt in <workspace>/.e2e-prompt.txt.
const vscode = require("vscode");
const fs = require("node:fs");
const path = require("node:path");

const VENDOR = "toolhost-script";

function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider(VENDOR, {
      provideLanguageModelChatInformation: () => [
        {
          id: "scripted",
          name: "Scripted",
          family: "scripted",
          version: "1",
          maxInputTokens: 100000,
          maxOutputTokens: 10000,
          capabilities: { toolCalling: true },
        },
      ],
      provideLanguageModelChatResponse: respond,
      provideTokenCount: (_model, text) => (typeof text === "string" ? text.length : 1),
    }),
    vscode.commands.registerCommand("toolhostScript.send", async () => {
      const folder = vscode.workspace.workspaceFolders[0].uri.fsPath;
      const query = fs.readFileSync(path.join(folder, ".e2e-prompt.txt"), "utf8").trim();
      await vscode.commands.executeCommand("workbench.action.chat.open", { query, mode: "agent", modelSelector: { vendor: VENDOR } });
    }),
  );
}

function textOf(message) {
  let out = "";
  for (const part of message.content) {
    if (part instanceof vscode.LanguageModelTextPart) out += part.value;
  }
  return out;
}

function toolResult(message) {
  for (const part of message.content) {
    if (part instanceof vscode.LanguageModelToolResultPart) {
      return part.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : "")).join("");
    }
  }
  return undefined;
}

async function waitForText(name, text, token) {
  for (let i = 0; i < 600 && !token.isCancellationRequested; i++) {
    if (vscode.workspace.textDocuments.some((d) => d.isDirty && path.basename(d.uri.fsPath) === name && d.getText().includes(text))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

// log appends to $SCRIPTED_MODEL_LOG, for the test's artifacts.
function log(line) {
  if (process.env.SCRIPTED_MODEL_LOG) fs.appendFileSync(process.env.SCRIPTED_MODEL_LOG, `${new Date().toISOString()} ${line}\n`);
}

async function respond(_model, messages, options, progress, token) {
  const last = messages[messages.length - 1];
  log(`request: ${messages.length} messages, ${(options.tools || []).length} tools; last: ${JSON.stringify(textOf(last)).slice(0, 400)}`);
  const result = toolResult(last);
  if (result !== undefined) {
    const call = [...messages].reverse().find((m) => m.content.some((p) => p instanceof vscode.LanguageModelToolCallPart));
    const name = call ? call.content.find((p) => p instanceof vscode.LanguageModelToolCallPart).name : "?";
    progress.report(new vscode.LanguageModelTextPart(`RESULT ${name}: ${result.replace(/\s+/g, " ").slice(0, 300)}`));
    return;
  }
  const prompt = textOf(last).trim();
  const wait = prompt.match(/WAIT_FOR (\S+) "([^"]*)"/);
  if (wait) {
    log(`waiting for ${wait[1]} to hold "${wait[2]}" unsaved`);
    await waitForText(wait[1], wait[2], token);
  }
  const m = prompt.match(/CALL (\S+) <<<([\s\S]*?)>>>/);
  const sub = prompt.match(/SUBAGENT_REPORT ([^"\n]+)/);
  if (!m && sub) {
    // A sub-agent of toolhost's Agent tool, run on this model by the
    // extension (toolhost/runAgent): it reports at once.
    log("answering a sub-agent");
    progress.report(new vscode.LanguageModelTextPart(`sub-agent report: ${sub[1]}`));
    return;
  }
  if (!m) {
    progress.report(new vscode.LanguageModelTextPart(`no CALL in the prompt: ${prompt.slice(0, 200)}`));
    return;
  }
  const offered = (options.tools || []).map((t) => t.name);
  log(`toolhost tools offered: ${offered.filter((n) => n.startsWith("toolhost_")).join(" ")}`);
  if (!offered.includes(m[1])) {
    progress.report(new vscode.LanguageModelTextPart(`NOT OFFERED ${m[1]} (offered: ${offered.join(", ")})`));
    return;
  }
  log(`calling ${m[1]}`);
  progress.report(new vscode.LanguageModelToolCallPart(`call-${Date.now()}`, m[1], JSON.parse(m[2])));
}

module.exports = { activate, deactivate() {} };
