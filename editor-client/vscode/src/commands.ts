/** The extension's commands: Run Tool…, Set Permission Mode, Show Status. */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { MODES } from "./logic/modes";
import { CallToolResult, formatResult, formatStatus } from "./logic/results";
import { checkInput } from "./logic/schema";
import { inputTemplate, ListedTool, toolChoices } from "./logic/tools";
import type { ResultDocuments } from "./resultDocs";

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
): Promise<void> {
  const client = running(getClient);
  if (!client) {
    return;
  }
  const listed = await client.sendRequest<{ tools: ListedTool[] }>("toolhost/listTools", {});
  const choices = toolChoices(listed?.tools ?? []);
  const choice = await vscode.window.showQuickPick(
    choices.map((c) => ({ ...c, label: c.label })),
    { title: "toolhost: Run Tool", placeHolder: "Tool to run", matchOnDetail: true, ignoreFocusOut: true },
  );
  if (!choice) {
    return;
  }
  const template = inputTemplate(choice.schema);
  // The cursor goes inside the template, not over it: a selected template
  // is replaced by the first key the user types.
  const inside = Math.max(template.indexOf('""') + 1, 0) || template.length;
  const text = await vscode.window.showInputBox({
    title: `Input of ${choice.name} (JSON)`,
    prompt: "A JSON object matching the tool's input schema (write a line break in a string as \\n)",
    value: template,
    valueSelection: [inside, inside],
    ignoreFocusOut: true,
    validateInput: (value) => {
      const check = checkInput(value, choice.schema);
      return check.ok ? undefined : check.message;
    },
  });
  if (text === undefined) {
    return;
  }
  const check = checkInput(text, choice.schema);
  if (!check.ok) {
    return;
  }
  const started = Date.now();
  log.appendLine(`[call] ${choice.name} ${JSON.stringify(check.value)}`);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `toolhost: ${choice.name}`, cancellable: true },
    (_progress, token) =>
      client.sendRequest<CallToolResult>("toolhost/callTool", { name: choice.name, input: check.value }, token),
  );
  log.appendLine(`[call] ${choice.name} → ${result?.isError ? "error" : "ok"} in ${Date.now() - started} ms`);
  // A call can change the permission mode (ExitPlanMode, Config).
  afterCall?.();
  if (result) {
    await docs.show(`${choice.name}-result`, formatResult(choice.name, check.value, result));
  }
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
  const answer = await client.sendRequest<{ mode: string }>("toolhost/setPermissionMode", { mode: picked.label });
  return answer?.mode ?? picked.label;
}

/** "Show Status": the server's status in a read-only document. */
export async function showStatus(getClient: ClientGetter, docs: ResultDocuments, info: ClientInfo): Promise<void> {
  const client = running(getClient);
  if (!client) {
    return;
  }
  const status = await client.sendRequest<Record<string, unknown>>("toolhost/status", {});
  const init = client.initializeResult as { serverInfo?: { version?: string } } | undefined;
  await docs.show("status", formatStatus(status ?? {}, {
    version: init?.serverInfo?.version,
    binary: vscode.workspace.getConfiguration("toolhost").get<string>("path") || "toolhost (on PATH)",
    state: info.state,
  }));
}
