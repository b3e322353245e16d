/**
 * VS Code agent mode: toolhost's built-in tools as language-model tools
 * (`toolhost_Read`, ...), listed in package.json from the registry. One
 * approval per call: prepareInvocation asks toolhost what it would decide
 * (`toolhost/checkPermission`) and shows toolhost's prompt as the chat's
 * confirmation only when toolhost would ask; invoke runs the call with the
 * check's approval token, so toolhost does not ask again, and edits still
 * arrive as workspace/applyEdit (undoable, versioned).
 */
import { createHash } from "crypto";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import {
  CallResult,
  CheckResult,
  confirmationFor,
  invocationMessage,
  LM_TOOL_PREFIX,
  PendingApprovals,
  resultParts,
  reviewedByToolhost,
  toolhostName,
} from "./logic/lmTools";
import { ClientRequests } from "./logic/protocol";

interface ContributedTool {
  name: string;
}

/** Registers every toolhost language-model tool package.json lists. */
export function registerLanguageModelTools(context: vscode.ExtensionContext, getClient: () => LanguageClient | undefined): void {
  if (!vscode.lm?.registerTool) {
    return; // an editor without agent mode
  }
  const listed: ContributedTool[] = context.extension.packageJSON?.contributes?.languageModelTools ?? [];
  for (const t of listed) {
    if (t.name.startsWith(LM_TOOL_PREFIX)) {
      context.subscriptions.push(vscode.lm.registerTool(t.name, new ToolhostTool(toolhostName(t.name), getClient)));
    }
  }
}

/** One toolhost tool in agent mode. */
class ToolhostTool implements vscode.LanguageModelTool<object> {
  private readonly approvals = new PendingApprovals();

  constructor(
    private readonly name: string,
    private readonly getClient: () => LanguageClient | undefined,
  ) {}

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<object>,
    token: vscode.CancellationToken,
  ): Promise<vscode.PreparedToolInvocation> {
    const invocation = invocationMessage(this.name, options.input);
    const client = this.getClient();
    if (!client?.isRunning()) {
      // invoke says what is wrong; nothing can run, so nothing is asked.
      return { invocationMessage: invocation };
    }
    const check = await client.sendRequest<CheckResult>(ClientRequests.checkPermission, { name: this.name, input: options.input }, token);
    // A change toolhost reviews itself goes without the token: toolhost
    // then asks through its own review, whatever the chat auto-approves.
    this.approvals.put(this.name, options.input, reviewedByToolhost(this.name, check) ? undefined : check.approval);
    const confirmation = confirmationFor(this.name, check);
    if (!confirmation) {
      return { invocationMessage: invocation };
    }
    return {
      invocationMessage: invocation,
      confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<object>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const client = this.getClient();
    if (!client?.isRunning()) {
      return textResult("Error: the toolhost server is not running in this editor. Ask the user to check the \"toolhost\" output channel and the toolhost.path setting.");
    }
    // The check's token: the user agreed to exactly this input in the
    // chat's confirmation (or toolhost allows it without one); any other
    // input is asked again by toolhost.
    const approval = this.approvals.take(this.name, options.input);
    const result = await client.sendRequest<CallResult>(
      ClientRequests.callTool,
      { name: this.name, input: options.input, ...(approval ? { approval } : {}), ...chatTurn(options) },
      token,
    );
    return new vscode.LanguageModelToolResult(
      resultParts(result).map((p) => (p.kind === "text" ? new vscode.LanguageModelTextPart(p.text) : imagePart(p.data, p.mimeType))),
    );
  }
}

/**
 * The change journal's turn and agent of a call from the chat: one chat
 * request is one turn. The request's token is opaque and may arrive as a
 * new object at each call (it crosses a process boundary), so its JSON
 * names the turn; without one, toolhost bounds the turn by a pause.
 */
function chatTurn(options: vscode.LanguageModelToolInvocationOptions<object>): { turnId?: string; agent: string } {
  const agent = "VS Code agent mode";
  let key = "";
  try {
    key = JSON.stringify(options.toolInvocationToken ?? null);
  } catch {
    return { agent };
  }
  if (!key || key === "null" || key === "{}") {
    return { agent };
  }
  return { turnId: `chat-${createHash("sha256").update(key).digest("hex").slice(0, 16)}`, agent };
}

function textResult(text: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
}

/**
 * An image for the model where the editor's API carries images in tool
 * results (LanguageModelDataPart, newer than the engine this extension
 * requires), else a note in text.
 */
function imagePart(base64: string, mimeType: string): vscode.LanguageModelTextPart {
  const DataPart = (vscode as unknown as { LanguageModelDataPart?: { image(data: Uint8Array, mime: string): unknown } }).LanguageModelDataPart;
  const bytes = Buffer.from(base64, "base64");
  if (DataPart?.image) {
    return DataPart.image(new Uint8Array(bytes), mimeType) as vscode.LanguageModelTextPart;
  }
  return new vscode.LanguageModelTextPart(`[an image (${mimeType}, ${bytes.length} bytes) that this editor cannot pass to the model]`);
}
