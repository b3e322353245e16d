/**
 * Starting `toolhost serve` through vscode-languageclient, declaring the
 * custom requests this extension answers, and wiring the server's requests
 * and notifications to the editor.
 */
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditRequest,
  ClientCapabilities,
  ErrorHandler,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
} from "vscode-languageclient/node";
import { applyWorkspaceEdit } from "./applyEdit";
import { askUserQuestion } from "./dialogs";
import { DiagnosticsTracker, registerIntel } from "./intel";
import { touchedUris } from "./logic/edits";
import type { PermissionAnswer, PermissionParams } from "./logic/permission";
import type { ReviewAnswer, ReviewChangesParams } from "./logic/reviewChanges";
import { taskListAsTodos, type BoardTask } from "./logic/taskList";
import type { TeamState } from "./logic/teams";
import type { Todo } from "./logic/todos";
import { registerRunAgent } from "./runAgent";
import { registerTrust } from "./trust";
import { ServerNotifications, ServerRequests } from "./logic/protocol";

/** What the client declares in `capabilities.experimental.toolhost`. */
export const TOOLHOST_CLIENT_CAPABILITIES = {
  askUserQuestion: true,
  requestPermission: true,
  requestTrust: true,
  savesAppliedEdits: true,
  // Agent runs its sub-agent with the editor's language model (runAgent.ts).
  runAgent: true,
  // Claude Code's IDE tools (claudeIde.ts).
  ideTools: true,
  // The terminals are children of the window's process, not of the
  // extension host: the Claude Code CLI checks the lock file's pid is its
  // ancestor.
  ideProcessId: process.ppid,
  // toolhost/diagnostics and toolhost/languageFeature (intel.ts).
  diagnostics: true,
  languageFeatures: true,
  // A turn's file changes reviewed as one, in the multi-diff editor
  // (changeReview.ts), unless the settings ask otherwise (reviewsChangesAsOne).
  reviewChanges: true,
};

/**
 * Whether the server is told to send a turn's changes as one review: the
 * user may keep the single-file diff (toolhost.reviewChangesAsOne off),
 * and one who chose the Refactor Preview for edits gets it.
 */
function reviewsChangesAsOne(): boolean {
  const config = vscode.workspace.getConfiguration("toolhost");
  return config.get<boolean>("reviewChangesAsOne", true) && !config.get<boolean>("reviewEditsInPreview", false);
}

/**
 * One tracker of diagnostics changes for the extension's life: it outlives
 * a restarted server, whose new client shares it.
 */
let tracker: DiagnosticsTracker | undefined;

/** Declares the toolhost requests this client handles. */
class ToolhostCapabilities implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = {
      ...(capabilities.experimental as object | undefined),
      toolhost: { ...TOOLHOST_CLIENT_CAPABILITIES, reviewChanges: reviewsChangesAsOne() },
    };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: "static" };
  }
  clear(): void {}
}

/**
 * The language client, quiet while the server starts: a start that fails
 * is reported once by the server manager, with what to do next, so the
 * library's own "couldn't create connection to server" (which it forces
 * as a notification) goes to the output channel only. Once running, its
 * errors show as usual.
 */
class ToolhostLanguageClient extends LanguageClient {
  override error(message: string, data?: any, showNotification: boolean | "force" = true): void {
    super.error(message, data, this.state === State.Running ? showNotification : false);
  }
}

/** Callbacks for what the server sends that is not a dialog. */
export interface ClientEvents {
  todos(todos: Todo[]): void;
  taskChanged(params: { taskId: string; status: string; command?: string; exitCode?: number }): void;
  toolsChanged(): void;
  /** A team's whole state (toolhost/teamChanged). */
  teamChanged(params: TeamState): void;
  /** Answers toolhost/requestPermission (null: dismissed). */
  requestPermission(params: PermissionParams, token: vscode.CancellationToken): Promise<PermissionAnswer | null>;
  /** Answers toolhost/reviewChanges (null: dismissed). */
  reviewChanges(params: ReviewChangesParams, token: vscode.CancellationToken): Promise<{ changes: ReviewAnswer[] } | null>;
  /** Answers toolhost/ideTool (Claude Code's IDE tools). */
  ideTool(params: { name?: string; arguments?: Record<string, unknown> }, token: vscode.CancellationToken): Promise<unknown>;
  /** The server runs; status is its toolhost/status. */
  serverStarted(client: LanguageClient, status: unknown): void;
}

/**
 * Creates (does not start) the client over `serverOptions` (the process
 * is started by the caller, who owns it). `errorHandler` decides what a
 * crash does.
 */
export function createClient(
  serverOptions: ServerOptions,
  output: vscode.OutputChannel,
  initializationOptions: object,
  events: ClientEvents,
  errorHandler: ErrorHandler,
): LanguageClient {
  const clientOptions: LanguageClientOptions = {
    errorHandler,
    // A server that fails to start is reported once, by the caller, with
    // actions (Restart Server, Show Output, Open Settings): the library's
    // own "Server initialization failed" and the rejected initialize
    // request go to the output channel only.
    initializationFailedHandler: (error) => {
      output.appendLine(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    },
    // Every file on disk: the server keeps an overlay of open documents so
    // Read sees unsaved text and Edit notices changes made since the last
    // Read. Untitled buffers have no path a tool could name, and the server
    // tracks only file: documents.
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    initializationOptions,
  };
  const client = new ToolhostLanguageClient("toolhost", "toolhost", serverOptions, clientOptions);
  client.registerFeature(new ToolhostCapabilities());
  const log = (line: string) => output.appendLine(line);

  tracker ??= new DiagnosticsTracker();
  const diagnostics = tracker;
  client.onRequest(ApplyWorkspaceEditRequest.type, (params: ApplyWorkspaceEditParams) => {
    // Diagnostics that change from here on follow this edit.
    diagnostics.editing(touchedUris(params.edit));
    return applyWorkspaceEdit(client, params, log);
  });
  registerIntel(client, diagnostics);
  client.onRequest(ServerRequests.askUserQuestion, askUserQuestion);
  client.onRequest(ServerRequests.requestPermission, (params: PermissionParams, token: vscode.CancellationToken) =>
    events.requestPermission(params, token),
  );
  client.onRequest(ServerRequests.reviewChanges, (params: ReviewChangesParams, token: vscode.CancellationToken) => events.reviewChanges(params, token));
  client.onRequest(ServerRequests.ideTool, (params: { name?: string; arguments?: Record<string, unknown> }, token: vscode.CancellationToken) =>
    events.ideTool(params, token),
  );
  registerTrust(client);
  client.onNotification(ServerNotifications.todos, (params: { todos: Todo[] }) => events.todos(params?.todos ?? []));
  client.onNotification(ServerNotifications.taskList, (params: { tasks?: BoardTask[] }) => events.todos(taskListAsTodos(params?.tasks)));
  client.onNotification(ServerNotifications.modeChanged, (params: { mode?: string }) => {
    log(`permission mode: ${params?.mode}`);
    vscode.window.setStatusBarMessage(`toolhost: ${params?.mode} mode`, 10_000);
  });
  client.onNotification(ServerNotifications.worktreeChanged, (params: { action?: string; worktreePath?: string; root?: string }) => {
    const text =
      params?.action === "enter"
        ? `toolhost: working in the worktree ${params.worktreePath}`
        : `toolhost: left the worktree ${params?.worktreePath} (${params?.action}); back in ${params?.root}`;
    log(text);
    vscode.window.setStatusBarMessage(text, 10_000);
  });
  client.onNotification(ServerNotifications.taskChanged, events.taskChanged);
  client.onNotification(ServerNotifications.toolsChanged, events.toolsChanged);
  client.onNotification(ServerNotifications.teamChanged, (params: TeamState) => events.teamChanged(params));
  registerRunAgent(client, output);
  return client;
}
