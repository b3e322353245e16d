/**
 * `toolhost/runAgent` answered with the editor's own language model
 * (vscode.lm.selectChatModels), so the Agent tool works in VS Code with no
 * endpoint to configure. The sub-agent gets toolhost's tools (not Agent
 * itself); its calls go through toolhost/callTool, so toolhost's rules and
 * dialogs apply to them as to any call.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { CallResult, LM_TOOL_PREFIX, resultParts, toolhostName } from "./logic/lmTools";
import { ClientRequests, ServerRequests } from "./logic/protocol";

/** Most model turns of one sub-agent. */
const MAX_TURNS = 25;

interface RunAgentParams {
  callId?: string;
  description?: string;
  prompt?: string;
  subagent_type?: string;
}

interface RunAgentResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

/** Whether this editor can run sub-agents with its own models. */
export function canRunAgents(): boolean {
  return typeof vscode.lm?.selectChatModels === "function";
}

/** Answers toolhost/runAgent for client. */
export function registerRunAgent(client: LanguageClient, output: vscode.OutputChannel): void {
  client.onRequest(ServerRequests.runAgent, (params: RunAgentParams, token: vscode.CancellationToken) =>
    runAgent(client, params, token).catch((err: unknown): RunAgentResult => {
      const message = err instanceof Error ? err.message : String(err);
      output.appendLine(`[agent] failed: ${message}`);
      return { content: [{ type: "text", text: `Error: the editor's language model failed: ${message}. Do the task yourself or ask the user.` }], isError: true };
    }),
  );
}

async function runAgent(client: LanguageClient, params: RunAgentParams, token: vscode.CancellationToken): Promise<RunAgentResult> {
  const config = vscode.workspace.getConfiguration("toolhost.agent");
  const selector: vscode.LanguageModelChatSelector = {};
  const vendor = config.get<string>("vendor");
  const family = config.get<string>("family");
  if (vendor) selector.vendor = vendor;
  if (family) selector.family = family;
  const [model] = await vscode.lm.selectChatModels(selector);
  if (!model) {
    return {
      content: [{ type: "text", text: `Error: VS Code has no language model${vendor || family ? ` matching toolhost.agent.vendor/family (${vendor ?? "any"}/${family ?? "any"})` : ""}, so the sub-agent did not run. Do the task yourself, or ask the user to sign in to a model provider or change those settings.` }],
      isError: true,
    };
  }
  const tools = vscode.lm.tools.filter((t) => t.name.startsWith(LM_TOOL_PREFIX) && t.name !== `${LM_TOOL_PREFIX}Agent`);
  const task = [params.description ? `Task: ${params.description}` : "", params.prompt ?? ""].filter(Boolean).join("\n\n");
  const messages: vscode.LanguageModelChatMessage[] = [vscode.LanguageModelChatMessage.User(task)];
  let report = "";
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const response = await model.sendRequest(messages, { tools, justification: "toolhost's Agent tool runs a sub-agent" }, token);
    const calls: vscode.LanguageModelToolCallPart[] = [];
    let text = "";
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) {
        text += part.value;
      } else if (part instanceof vscode.LanguageModelToolCallPart) {
        calls.push(part);
      }
    }
    report = text || report;
    if (calls.length === 0) {
      return { content: [{ type: "text", text: report || "(the sub-agent ended without a report)" }] };
    }
    messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
    const results: vscode.LanguageModelToolResultPart[] = [];
    for (const call of calls) {
      const result = await client.sendRequest<CallResult>(ClientRequests.callTool, { name: toolhostName(call.name), input: call.input, callId: call.callId }, token);
      const parts = resultParts(result).map((p) => new vscode.LanguageModelTextPart(p.kind === "text" ? p.text : `[an image, ${p.mimeType}]`));
      results.push(new vscode.LanguageModelToolResultPart(call.callId, parts));
    }
    messages.push(vscode.LanguageModelChatMessage.User(results));
  }
  return { content: [{ type: "text", text: `${report}\n\n(the sub-agent stopped after ${MAX_TURNS} turns)`.trim() }] };
}
