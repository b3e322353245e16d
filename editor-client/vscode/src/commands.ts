/** The extension's commands: Run Tool…, Set Permission Mode, Show Status. */
import * as vscode from "vscode";
import { ErrorCodes, type LanguageClient } from "vscode-languageclient/node";
import { MODES } from "./logic/modes";
import { CallToolResult, formatResult, formatStatus } from "./logic/results";
import { checkInput } from "./logic/schema";
import { inputTemplate, ListedTool, toolChoices } from "./logic/tools";
import { inputSchema, inputToolName, openInputEditor } from "./inputEditor";
import type { ResultDocuments } from "./resultDocs";
import { ClientRequests } from "./logic/protocol";

/** Gives the running client, or undefined (the command then says so). */
export type ClientGetter = () => LanguageClient | undefined;

function running(getClient: ClientGetter): LanguageClient | undefined {
  const client = getClient();
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage("toolhost is not running.", "Restart Server", "Show Output").then((action) => {
      if (action === "Restart Server") {
        void vscode.commands.executeCommand("toolhost.restartServer");
      } else if (action === "Show Output") {
        void vscode.commands.executeCommand("toolhost.showOutput");
      }
    });
    return undefined;
  }
  return client;
}

/** What Show Status adds to the server's status: what the extension knows. */
export interface ClientInfo {
  mode: string | undefined;
  state: string;
  binary: string | undefined;
}

/**
 * "Run Tool…": pick a tool, type its input as JSON (checked against the
 * tool's schema as you type), run it, and show the result in a read-only
 * document.
 */
export async function runTool(
  getClient: ClientGetter,
  docs: ResultDocuments,
  log: vscode.OutputChannel,
  afterCall?: () => void,
  storage?: vscode.Uri,
): Promise<void> {
  const client = running(getClient);
  if (!client) {
    return;
  }
  const listed = await client.sendRequest<{ tools: ListedTool[] }>(ClientRequests.listTools, {});
  const choices = toolChoices(listed?.tools ?? []);
  const choice = await vscode.window.showQuickPick(
    choices.map((c) => ({ ...c, label: c.label })),
    { title: "toolhost: Run Tool", placeHolder: "Tool to run", matchOnDetail: true, ignoreFocusOut: true },
  );
  if (!choice) {
    return;
  }
  const template = inputTemplate(choice.schema);
  const text = await askInput(choice.name, choice.schema, template, storage);
  if (text === undefined) {
    return;
  }
  const check = checkInput(text, choice.schema);
  if (!check.ok) {
    return;
  }
  await callAndShow(client, docs, log, choice.name, check.value, afterCall);
}

/**
 * The input box of Run Tool, with a button that moves the input to a JSON
 * editor instead (multi-line, with the schema). Resolves with the text, or
 * undefined when closed or moved to the editor.
 */
function askInput(name: string, schema: object | undefined, template: string, storage: vscode.Uri | undefined): Promise<string | undefined> {
  const box = vscode.window.createInputBox();
  box.title = `Input of ${name} (JSON)`;
  box.prompt = "A JSON object matching the tool's input schema; the button on the right opens it in a JSON editor for multi-line input";
  box.value = template;
  // The cursor goes inside the template, not over it: a selected template
  // is replaced by the first key the user types.
  const inside = Math.max(template.indexOf('""') + 1, 0) || template.length;
  box.valueSelection = [inside, inside];
  box.ignoreFocusOut = true;
  const editorButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("json"), tooltip: "Edit in a JSON editor" };
  if (storage) {
    box.buttons = [editorButton];
  }
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: string | undefined) => {
      if (!done) {
        done = true;
        resolve(value);
        box.dispose();
      }
    };
    box.onDidChangeValue((value) => {
      const check = checkInput(value, schema);
      box.validationMessage = check.ok ? undefined : check.message;
    });
    box.onDidAccept(() => {
      if (checkInput(box.value, schema).ok) {
        finish(box.value);
      }
    });
    box.onDidTriggerButton(() => {
      const value = box.value;
      finish(undefined);
      if (storage) {
        void openInputEditor(storage, name, schema, value);
      }
    });
    box.onDidHide(() => finish(undefined));
    box.show();
  });
}

/** Runs one call, logs it, and shows its result (answer first). */
async function callAndShow(
  client: LanguageClient,
  docs: ResultDocuments,
  log: vscode.OutputChannel,
  name: string,
  input: unknown,
  afterCall?: () => void,
): Promise<void> {
  const started = Date.now();
  log.appendLine(`[call] ${name} ${JSON.stringify(input)}`);
  let result: CallToolResult | undefined;
  try {
    // No progress of its own: the server's progress of the call is a
    // notification with Cancel and the output's last line (callProgress.ts).
    // Cancel there ends the call, whose result says it was interrupted.
    result = await client.sendRequest<CallToolResult>(ClientRequests.callTool, { name, input });
  } catch (err) {
    if (!connectionLost(err)) {
      throw err;
    }
    // The server stopped under the call (it restarts by itself): say so
    // in the user's words, not the protocol library's.
    log.appendLine(`[call] ${name} cancelled: the server stopped`);
    void vscode.window.showWarningMessage(
      `toolhost: the server stopped while ${name} was running, so the call was cancelled. Run it again once the server is back (the status bar shows its state).`,
      "Show Output",
    ).then((a) => a && log.show(true));
    return;
  }
  log.appendLine(`[call] ${name} → ${result?.isError ? "error" : "ok"} in ${Date.now() - started} ms`);
  // A call can change the permission mode (ExitPlanMode, Config).
  afterCall?.();
  if (result) {
    await docs.show(`${name}-result`, formatResult(name, input, result));
  }
}

/** Whether a request failed because the connection to the server went away. */
function connectionLost(err: unknown): boolean {
  const code = (err as { code?: number } | undefined)?.code;
  return code === ErrorCodes.PendingResponseRejected || code === ErrorCodes.ConnectionInactive;
}

/** "Run Tool with This Input": runs the input document in the active editor. */
export async function runInputDocument(
  getClient: ClientGetter,
  docs: ResultDocuments,
  log: vscode.OutputChannel,
  afterCall?: () => void,
): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const name = editor && inputToolName(editor.document.uri);
  if (!editor || !name) {
    void vscode.window.showInformationMessage("toolhost: open an input from Run Tool… (its JSON editor button) first.");
    return;
  }
  const client = running(getClient);
  if (!client) {
    return;
  }
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(editor.document.getText());
  } catch (err) {
    void vscode.window.showErrorMessage(`toolhost: the input is not valid JSON (${(err as Error).message}); fix it and run again.`);
    return;
  }
  delete value.$schema;
  const check = checkInput(JSON.stringify(value), (await inputSchema(editor.document.uri, name)) as object);
  if (!check.ok) {
    void vscode.window.showErrorMessage(`toolhost: ${check.message}; fix the input and run again.`);
    return;
  }
  await editor.document.save();
  await callAndShow(client, docs, log, name, check.value, afterCall);
}

/** "Set Permission Mode": pick a mode and send it; returns the mode now in force. */
export async function setPermissionMode(getClient: ClientGetter, current?: string): Promise<string | undefined> {
  const client = running(getClient);
  if (!client) {
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    MODES.map((m) => ({ label: m.mode, description: m.mode === current ? "current" : "", detail: m.description })),
    { title: "toolhost: Permission Mode", placeHolder: "Permission mode for this session" },
  );
  if (!picked) {
    return undefined;
  }
  const answer = await client.sendRequest<{ mode: string }>(ClientRequests.setPermissionMode, { mode: picked.label });
  return answer?.mode ?? picked.label;
}

/** "Show Status": the server's status in a read-only document. */
export async function showStatus(getClient: ClientGetter, docs: ResultDocuments, info: ClientInfo): Promise<void> {
  const client = running(getClient);
  if (!client) {
    return;
  }
  const status = await client.sendRequest<Record<string, unknown>>(ClientRequests.status, {});
  const init = client.initializeResult as { serverInfo?: { version?: string } } | undefined;
  await docs.show("status", formatStatus(status ?? {}, {
    version: init?.serverInfo?.version,
    binary: info.binary,
    state: info.state,
  }));
}
