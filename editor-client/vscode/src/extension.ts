/**
 * Entry point of the toolhost extension: starts the server, and owns the
 * output channel, the status bar item, the todo view and the commands.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { createClient } from "./client";
import { registerLanguageModelTools } from "./lmTools";
import { registerMcpProvider } from "./mcpProvider";
import { registerRunAgent } from "./runAgent";
import { runTool, setPermissionMode, showStatus } from "./commands";
import { initializationOptions, modeOf, reviewSettings, statusBarText } from "./logic/modes";
import { resolveServerPath } from "./logic/serverPath";
import { ResultDocuments, SCHEME } from "./resultDocs";
import { TodoTreeProvider } from "./todoView";

let client: LanguageClient | undefined;
let mode: string | undefined;
let statusItem: vscode.StatusBarItem;
let output: vscode.OutputChannel;
let todos: TodoTreeProvider;
let todoView: vscode.TreeView<unknown>;
let mcpDefinitions: { changed(): void } | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("toolhost");
  const docs = new ResultDocuments();
  todos = new TodoTreeProvider();
  todoView = vscode.window.createTreeView("toolhost.todos", { treeDataProvider: todos }) as vscode.TreeView<unknown>;
  statusItem = vscode.window.createStatusBarItem("toolhost.mode", vscode.StatusBarAlignment.Left, 10);
  statusItem.name = "toolhost permission mode";
  statusItem.command = "toolhost.setPermissionMode";
  statusItem.tooltip = "toolhost permission mode — click to change";
  showMode(undefined);
  statusItem.show();

  const getClient = () => client;
  // Agent mode: toolhost's tools and its MCP servers (lmTools.ts, mcpProvider.ts).
  registerLanguageModelTools(context, getClient);
  mcpDefinitions = registerMcpProvider(context, getClient);
  context.subscriptions.push(
    output,
    docs,
    todos,
    todoView,
    statusItem,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.commands.registerCommand("toolhost.runTool", () => runTool(getClient, docs, refreshMode).catch(reportError)),
    vscode.commands.registerCommand("toolhost.showStatus", () => showStatus(getClient, docs).catch(reportError)),
    vscode.commands.registerCommand("toolhost.toggleReviewInPreview", async () => {
      const config = vscode.workspace.getConfiguration("toolhost");
      const next = !(config.get<boolean>("reviewEditsInPreview") ?? false);
      // The configuration change handler below tells the server.
      await config.update("reviewEditsInPreview", next, vscode.ConfigurationTarget.Global);
      vscode.window.setStatusBarMessage(
        next ? "toolhost: edits are reviewed in the Refactor Preview" : "toolhost: edits are reviewed in a dialog",
        5000,
      );
    }),
    vscode.commands.registerCommand("toolhost.setPermissionMode", async () => {
      try {
        const next = await setPermissionMode(getClient, mode);
        if (next) {
          showMode(next);
        }
      } catch (err) {
        reportError(err);
      }
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("toolhost.path")) {
        await restart();
      } else if (e.affectsConfiguration("toolhost.reviewEditsInPreview") && client?.isRunning()) {
        const review = vscode.workspace.getConfiguration("toolhost").get<boolean>("reviewEditsInPreview") ?? false;
        await client.sendNotification("workspace/didChangeConfiguration", { settings: reviewSettings(review) });
      } else if (e.affectsConfiguration("toolhost.permissionMode") && client?.isRunning()) {
        const wanted = vscode.workspace.getConfiguration("toolhost").get<string>("permissionMode");
        const answer = await client.sendRequest<{ mode: string }>("toolhost/setPermissionMode", { mode: wanted });
        showMode(answer?.mode ?? wanted);
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  const config = vscode.workspace.getConfiguration("toolhost");
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const resolved = resolveServerPath(config.get<string>("path"), { HOME: os.homedir(), PATH: process.env.PATH }, folder);
  if ("error" in resolved) {
    output.appendLine(resolved.error);
    showMode(undefined);
    const open = await vscode.window.showErrorMessage(resolved.error, "Open Settings");
    if (open) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "toolhost.path");
    }
    return;
  }
  const configuredMode = config.get<string>("permissionMode");
  const reviewInPreview = config.get<boolean>("reviewEditsInPreview") ?? false;
  client = createClient(resolved.path, output, initializationOptions(configuredMode, reviewInPreview), {
    todos: (list) => {
      todos.update(list);
      todoView.message = todos.summary() || undefined;
      todoView.badge = todos.open() > 0 ? { value: todos.open(), tooltip: `${todos.open()} open todos` } : undefined;
    },
    taskChanged: (t) => {
      const exit = t.exitCode !== undefined ? ` (exit ${t.exitCode})` : "";
      output.appendLine(`[task ${t.taskId}] ${t.status}${exit}${t.command ? `: ${t.command}` : ""}`);
    },
    toolsChanged: () => {
      output.appendLine("[tools] the tool set changed");
      mcpDefinitions?.changed();
    },
  });
  registerRunAgent(client, output);
  try {
    output.appendLine(`starting ${resolved.path} serve`);
    await client.start();
    const status = await client.sendRequest("toolhost/status", {}).catch(() => undefined);
    showMode(modeOf(status) ?? configuredMode ?? "default");
    mcpDefinitions?.changed();
  } catch (err) {
    reportError(err);
    showMode(undefined);
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    await c.stop().catch(() => undefined);
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** Reads the mode from the server again; keeps the shown one on failure. */
function refreshMode(): void {
  client
    ?.sendRequest("toolhost/status", {})
    .then((status) => showMode(modeOf(status) ?? mode))
    .catch(() => undefined);
}

function showMode(next: string | undefined): void {
  mode = next;
  statusItem.text = statusBarText(next);
}

function reportError(err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  output.appendLine(`error: ${message}`);
  void vscode.window.showErrorMessage(`toolhost: ${message}`);
}
