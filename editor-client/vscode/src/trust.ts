/**
 * The trust question in VS Code: a modal listing what the folder asks for.
 * When VS Code itself has the folder in Restricted Mode the answer is
 * "don't trust" without asking, and a status bar item says why.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { TRUST_ACTIONS, TrustAnswer, trustAnswer, TrustParams, trustPrompt, TrustState, trustStatus } from "./logic/trust";
import { ServerNotifications, ServerRequests } from "./logic/protocol";

let item: vscode.StatusBarItem | undefined;

/** Shows (or hides) the status bar item for a trust state. */
function showTrust(state: TrustState | undefined): void {
  const status = trustStatus(state, !vscode.workspace.isTrusted);
  if (!status) {
    item?.hide();
    return;
  }
  if (!item) {
    item = vscode.window.createStatusBarItem("toolhost.trust", vscode.StatusBarAlignment.Left, 9);
    item.name = "toolhost folder trust";
    item.command = "toolhost.showStatus";
  }
  item.text = status.text;
  item.tooltip = status.tooltip;
  item.show();
}

/** Handles `toolhost/requestTrust`. */
export async function requestTrust(params: TrustParams): Promise<TrustAnswer> {
  if (!vscode.workspace.isTrusted) {
    // Restricted Mode: the user has not trusted this folder in VS Code, so
    // toolhost does not either, and does not ask.
    showTrust({ ignored: params.items });
    return { trust: false };
  }
  const prompt = trustPrompt(params);
  const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...TRUST_ACTIONS);
  return trustAnswer(choice);
}

/** Registers the trust handlers on a client. */
export function registerTrust(client: LanguageClient): vscode.Disposable {
  client.onRequest(ServerRequests.requestTrust, requestTrust);
  client.onNotification(ServerNotifications.trustChanged, (state: TrustState) => showTrust(state));
  return { dispose: () => item?.dispose() };
}
