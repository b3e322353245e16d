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
    void vscode.window.showErrorMessage("toolhost is not running. See the \"toolhost\" output channel.");
    return undefined;
  }
  return client;
}

/**
 * "Run Tool…": pick a tool, type its input as JSON (checked against the
 * tool's schema as you type), run it, and show the result in a read-only
 * document.
 */
export async function runTool(getClient: ClientGetter, docs: ResultDocuments, afterCall?: () => void): Promise<void> {
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
  const text = await vscode.window.showInputBox({
    title: `Input of ${choice.name} (JSON)`,
    prompt: "A JSON object matching the tool's input schema",
    value: inputTemplate(choice.schema),
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
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `toolhost: ${choice.name}`, cancellable: true },
    (_progress, token) =>
      client.sendRequest<CallToolResult>("toolhost/callTool", { name: choice.name, input: check.value }, token),
  );
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
export async function showStatus(getClient: ClientGetter, docs: ResultDocuments): Promise<void> {
  const client = running(getClient);
  if (!client) {
    return;
  }
  const status = await client.sendRequest<Record<string, unknown>>("toolhost/status", {});
  await docs.show("status", formatStatus(status ?? {}));
}
