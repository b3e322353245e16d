/**
 * Entry point of the toolhost extension: owns the output channel, the
 * status bar item, the todo view, the diff reviews and the commands; the
 * server's life is in ./server.
 */
import * as vscode from "vscode";
import { registerChanges } from "./changes";
import { runInputDocument, runTool, setPermissionMode, showStatus } from "./commands";
import { requestPermission } from "./dialogs";
import { reviewSettings } from "./logic/modes";
import { CallToolResult } from "./logic/results";
import { taskNotice } from "./logic/taskEvents";
import { ResultDocuments, SCHEME } from "./resultDocs";
import { registerLanguageModelTools } from "./lmTools";
import { registerMcpProvider } from "./mcpProvider";
import { ChangeReviews } from "./changeReview";
import { ClaudeIde } from "./claudeIde";
import { DiffReviews, ReviewAction } from "./review";
import { ServerManager } from "./server";
import { TeamTreeProvider } from "./teamView";
import { TodoTreeProvider } from "./todoView";
import { ClientRequests, DidChangeConfiguration } from "./logic/protocol";

let server: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("toolhost");
  const docs = new ResultDocuments();
  const reviews = new DiffReviews();
  const claudeIde = new ClaudeIde(context.environmentVariableCollection);
  const changeReviews = new ChangeReviews(claudeIde.proposals, reviews);
  const todos = new TodoTreeProvider();
  const todoView = vscode.window.createTreeView("toolhost.todos", { treeDataProvider: todos }) as vscode.TreeView<unknown>;
  const teams = new TeamTreeProvider();
  const teamView = vscode.window.createTreeView("toolhost.team", { treeDataProvider: teams }) as vscode.TreeView<unknown>;
  const showTeams = () => {
    const working = teams.working();
    teamView.badge = working > 0 ? { value: working, tooltip: `${working} team members working` } : undefined;
  };
  const watching = new Map<string, vscode.Disposable>();
  const statusItem = vscode.window.createStatusBarItem("toolhost.mode", vscode.StatusBarAlignment.Left, 10);
  statusItem.name = "toolhost";
  statusItem.show();

  // Agent mode's view of toolhost's MCP servers follows the tool set.
  let mcpDefinitions: { changed(): void } | undefined;
  const manager: ServerManager = new ServerManager(
    output,
    statusItem,
    {
      todos: (list) => {
        todos.update(list);
        todoView.message = todos.summary() || undefined;
        todoView.badge = todos.open() > 0 ? { value: todos.open(), tooltip: `${todos.open()} open todos` } : undefined;
      },
      taskChanged: (t) => {
        const exit = t.exitCode !== undefined ? ` (exit ${t.exitCode})` : "";
        output.appendLine(`[task ${t.taskId}] ${t.status}${exit}${t.command ? `: ${t.command}` : ""}`);
        // A Monitor's "watching" message stays until the monitor ends.
        const notice = taskNotice(t);
        watching.get(t.taskId)?.dispose();
        watching.delete(t.taskId);
        if (notice && t.status === "running") {
          watching.set(t.taskId, vscode.window.setStatusBarMessage(notice));
        } else if (notice) {
          vscode.window.setStatusBarMessage(notice, 10_000);
        }
        if (t.status !== "running") {
          void logTaskOutput(manager, output, t.taskId);
        }
      },
      toolsChanged: () => {
        output.appendLine("[tools] the tool set changed");
        mcpDefinitions?.changed();
      },
      teamChanged: (team) => {
        const what = teams.update(team);
        showTeams();
        if (what) {
          output.appendLine(`[team] ${what}`);
          vscode.window.setStatusBarMessage(`toolhost: ${what}`, 10_000);
        }
      },
      reviewChanges: (params, token) =>
        manager.answerWhileConnected(params.title || "review of changes", () => changeReviews.review(params, token)),
      ideTool: (params, token) => claudeIde.tool(params, token),
      serverStarted: (client, status) => claudeIde.started(client, status),
      requestPermission: (params, token) =>
        manager.answerWhileConnected(params.title || params.toolName, () =>
          requestPermission(params, reviews, (rules) => manager.rememberRules(rules), token),
        ),
    },
    () => {
      reviews.dismissAll();
      changeReviews.dismissAll();
      claudeIde.stopped();
      // The list lived in the server, and a new server starts without it
      // (TaskList says "No tasks"): clear it and say why, rather than show
      // tasks nobody is tracking any more.
      if (todos.summary() !== "") {
        todos.update([]);
        todoView.badge = undefined;
        todoView.message = `The server stopped at ${new Date().toLocaleTimeString()}, and the agent's todo list ended with it.`;
      }
      teams.clear();
      watching.forEach((d) => d.dispose());
      watching.clear();
      showTeams();
    },
    context.globalStorageUri,
  );
  server = manager;
  const getClient = () => manager.running();
  // Agent mode: toolhost's tools and its MCP servers (lmTools.ts, mcpProvider.ts).
  registerLanguageModelTools(context, getClient);
  mcpDefinitions = registerMcpProvider(context, getClient);
  const answer = (action: ReviewAction) => (uri?: vscode.Uri) => reviews.answer(action, uri instanceof vscode.Uri ? uri : undefined);

  context.subscriptions.push(
    claudeIde,
    output,
    docs,
    reviews,
    todos,
    todoView,
    teams,
    teamView,
    statusItem,
    manager,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    ...registerChanges(getClient),
    vscode.commands.registerCommand("toolhost.runTool", () =>
      runTool(getClient, docs, output, () => refreshMode(manager), context.globalStorageUri).catch((err) => reportError(output, err)),
    ),
    vscode.commands.registerCommand("toolhost.runInput", () =>
      runInputDocument(getClient, docs, output, () => refreshMode(manager)).catch((err) => reportError(output, err)),
    ),
    vscode.commands.registerCommand("toolhost.showStatus", () =>
      showStatus(getClient, docs, manager).catch((err) => reportError(output, err)),
    ),
    vscode.commands.registerCommand("toolhost.restartServer", () => manager.restart()),
    vscode.commands.registerCommand("toolhost.showOutput", () => output.show(true)),
    vscode.commands.registerCommand("toolhost.review.allow", answer("allow")),
    vscode.commands.registerCommand("toolhost.review.allowAlways", answer("allowAlways")),
    vscode.commands.registerCommand("toolhost.review.deny", answer("deny")),
    vscode.commands.registerCommand("toolhost.review.denyWithFeedback", answer("denyWithFeedback")),
    vscode.commands.registerCommand("toolhost.toggleReviewInPreview", async () => {
      // For this session only: the setting stays as the user wrote it.
      const current = manager.reviewInPreview ?? vscode.workspace.getConfiguration("toolhost").get<boolean>("reviewEditsInPreview") ?? false;
      manager.reviewInPreview = !current;
      await manager.running()?.sendNotification(DidChangeConfiguration, { settings: reviewSettings(!current) });
      vscode.window.setStatusBarMessage(
        !current ? "toolhost: edits are reviewed in the Refactor Preview (this session)" : "toolhost: edits are reviewed in the diff editor (this session)",
        5000,
      );
    }),
    vscode.commands.registerCommand("toolhost.setPermissionMode", async () => {
      try {
        const next = await setPermissionMode(getClient, manager.mode);
        if (next) {
          manager.chooseMode(next);
        }
      } catch (err) {
        reportError(output, err);
      }
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("toolhost.path")) {
        // VS Code also reports the setting as affected when it first
        // applies its scope; the server restarts only for a new value.
        if (manager.pathChanged()) {
          await manager.restart();
        }
      } else if (e.affectsConfiguration("toolhost.reviewEditsInPreview") && manager.running()) {
        manager.reviewInPreview = undefined;
        const review = vscode.workspace.getConfiguration("toolhost").get<boolean>("reviewEditsInPreview") ?? false;
        await manager.running()?.sendNotification(DidChangeConfiguration, { settings: reviewSettings(review) });
      } else if (e.affectsConfiguration("toolhost.permissionMode") && manager.running()) {
        const wanted = vscode.workspace.getConfiguration("toolhost").get<string>("permissionMode");
        const result = await manager.running()?.sendRequest<{ mode: string }>(ClientRequests.setPermissionMode, { mode: wanted });
        manager.chooseMode(result?.mode ?? wanted ?? "default");
      }
    }),
  );
  await manager.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}

/** Appends a finished background task's output to the output channel. */
async function logTaskOutput(manager: ServerManager, output: vscode.OutputChannel, taskId: string): Promise<void> {
  const client = manager.running();
  if (!client) {
    return;
  }
  const result = await client
    .sendRequest<CallToolResult>(ClientRequests.callTool, { name: "TaskOutput", input: { task_id: taskId, block: false } })
    .catch(() => undefined);
  const text = (result?.content ?? []).map((b) => b.text ?? "").join("\n").trim();
  if (text) {
    output.appendLine(`[task ${taskId}] output:`);
    output.appendLine(text);
  }
}

/** Reads the mode from the server again; keeps the shown one on failure. */
function refreshMode(manager: ServerManager): void {
  manager
    .running()
    ?.sendRequest(ClientRequests.status, {})
    .then((status) => {
      const mode = (status as { permissionMode?: string } | undefined)?.permissionMode;
      if (mode) {
        manager.showMode(mode);
      }
    })
    .catch(() => undefined);
}

function reportError(output: vscode.OutputChannel, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  output.appendLine(`error: ${message}`);
  void vscode.window.showErrorMessage(`toolhost: ${message}`, "Show Output").then((a) => {
    if (a) {
      output.show(true);
    }
  });
}
