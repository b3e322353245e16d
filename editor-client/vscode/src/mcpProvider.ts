/**
 * The MCP servers configured in toolhost, offered to VS Code's agent mode
 * through an MCP server definition provider that points at the editor
 * session's own endpoint (`toolhost/status` → agentEndpoint.serversUrl):
 * their calls run in this session, with toolhost's rules and editor edits,
 * and VS Code's confirmation of each call is the only prompt.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ClientRequests } from "./logic/protocol";

/** The provider's id, as package.json lists it. */
export const MCP_PROVIDER_ID = "toolhost.mcpServers";

interface EndpointStatus {
  serversUrl?: string;
  editorToken?: string;
}

/** Registers the provider; `changed()` makes VS Code ask for definitions again. */
export function registerMcpProvider(context: vscode.ExtensionContext, getClient: () => LanguageClient | undefined): { changed(): void } {
  const emitter = new vscode.EventEmitter<void>();
  if (!vscode.lm?.registerMcpServerDefinitionProvider) {
    return { changed: () => undefined };
  }
  context.subscriptions.push(
    emitter,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: emitter.event,
      provideMcpServerDefinitions: async () => {
        const client = getClient();
        if (!client?.isRunning()) {
          return [];
        }
        const status = await client.sendRequest<{ agentEndpoint?: EndpointStatus; mcpServers?: unknown[] }>(ClientRequests.status, {});
        const ep = status?.agentEndpoint;
        if (!ep?.serversUrl || !ep.editorToken || (status.mcpServers ?? []).length === 0) {
          return [];
        }
        return [
          new vscode.McpHttpServerDefinition("toolhost MCP servers", vscode.Uri.parse(ep.serversUrl), {
            Authorization: `Bearer ${ep.editorToken}`,
          }),
        ];
      },
    }),
  );
  return { changed: () => emitter.fire() };
}
