/**
 * The agent's work as change sets: the "Changes" view (turns → files, a
 * click opens the file's diff against what it held before the turn) and
 * the rewind commands ("toolhost: Undo Last Turn", and per turn or file
 * from the view). The server keeps the journal and applies a rewind as one
 * workspace/applyEdit, so Ctrl+Z in the editor brings the agent's work back.
 */
import * as path from "path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ChangedFile, ChangeTurn, fileDescription, Rewound, rewindSummary, turnLabel } from "./logic/changes";
import { ClientRequests } from "./logic/protocol";

/** A row of the view: a turn, or one file of it. */
export type ChangeNode = { kind: "turn"; turn: ChangeTurn } | { kind: "file"; turn: ChangeTurn; file: ChangedFile };

/** Tree data for the Changes view; `refresh` asks the server again. */
export class ChangesTreeProvider implements vscode.TreeDataProvider<ChangeNode> {
  private turns: ChangeTurn[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly getClient: () => LanguageClient | undefined) {}

  async refresh(): Promise<void> {
    const client = this.getClient();
    if (!client?.isRunning()) {
      return;
    }
    const res = await client.sendRequest<{ turns: ChangeTurn[] }>(ClientRequests.changes, { limit: 50 }).catch(() => undefined);
    this.turns = res?.turns ?? [];
    this.changed.fire();
  }

  getTreeItem(node: ChangeNode): vscode.TreeItem {
    if (node.kind === "turn") {
      const item = new vscode.TreeItem(turnLabel(node.turn), vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `turn:${node.turn.id}`;
      item.description = `${node.turn.files.length} file${node.turn.files.length === 1 ? "" : "s"}`;
      item.contextValue = "toolhost.turn";
      item.iconPath = new vscode.ThemeIcon("history");
      return item;
    }
    const f = node.file;
    const item = new vscode.TreeItem(path.basename(f.path), vscode.TreeItemCollapsibleState.None);
    item.id = `file:${node.turn.id}:${f.path}`;
    item.description = fileDescription(f);
    item.tooltip = f.path;
    item.resourceUri = vscode.Uri.parse(f.uri);
    item.contextValue = "toolhost.changedFile";
    item.command = { command: "toolhost.changes.openDiff", title: "Open Diff", arguments: [node] };
    return item;
  }

  getChildren(node?: ChangeNode): ChangeNode[] {
    if (!node) {
      return this.turns.map((turn) => ({ kind: "turn", turn }));
    }
    return node.kind === "turn" ? node.turn.files.map((file) => ({ kind: "file", turn: node.turn, file })) : [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Registers the view and its commands. */
export function registerChanges(getClient: () => LanguageClient | undefined): vscode.Disposable[] {
  const provider = new ChangesTreeProvider(getClient);
  const view = vscode.window.createTreeView("toolhost.changes", { treeDataProvider: provider });
  const rewind = async (params: { turn?: string; path?: string }) => {
    const client = getClient();
    if (!client?.isRunning()) {
      void vscode.window.showErrorMessage("toolhost: the server is not running, so nothing can be rewound. Restart it (toolhost: Restart Server).");
      return;
    }
    try {
      const res = await client.sendRequest<Rewound>(ClientRequests.rewind, params);
      const { text, warn } = rewindSummary(res);
      if (warn) {
        void vscode.window.showWarningMessage(text);
      } else {
        void vscode.window.showInformationMessage(text);
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`toolhost: ${err instanceof Error ? err.message : String(err)}`);
    }
    await provider.refresh();
  };
  // The view follows the files: an agent's edit is saved, a rewind too.
  let pending: NodeJS.Timeout | undefined;
  const soon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void provider.refresh(), 300);
  };
  return [
    provider,
    view,
    view.onDidChangeVisibility((e) => e.visible && void provider.refresh()),
    vscode.workspace.onDidSaveTextDocument(soon),
    vscode.workspace.onDidCreateFiles(soon),
    vscode.workspace.onDidDeleteFiles(soon),
    { dispose: () => clearTimeout(pending) },
    vscode.commands.registerCommand("toolhost.undoLastTurn", () => rewind({})),
    vscode.commands.registerCommand("toolhost.changes.refresh", () => provider.refresh()),
    vscode.commands.registerCommand("toolhost.changes.rewindTurn", (node?: ChangeNode) => node && rewind({ turn: node.turn.id })),
    vscode.commands.registerCommand(
      "toolhost.changes.rewindFile",
      (node?: ChangeNode) => node?.kind === "file" && rewind({ turn: node.turn.id, path: node.file.path }),
    ),
    vscode.commands.registerCommand("toolhost.changes.openDiff", async (node?: ChangeNode) => {
      if (node?.kind !== "file") {
        return;
      }
      const file = vscode.Uri.parse(node.file.uri);
      if (!node.file.beforeFile) {
        await vscode.window.showTextDocument(file);
        return;
      }
      const name = path.basename(node.file.path);
      await vscode.commands.executeCommand("vscode.diff", vscode.Uri.file(node.file.beforeFile), file, `${name} (before ${turnLabel(node.turn)}) ↔ now`);
    }),
  ];
}
