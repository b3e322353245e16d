/** The "Team" tree view, fed by `toolhost/teamChanged` notifications. */
import * as vscode from "vscode";
import { TeamModel, TeamNode, teamNodes, TeamState } from "./logic/teams";

/** Tree data for the running teams and their members' states. */
export class TeamTreeProvider implements vscode.TreeDataProvider<TeamNode> {
  private readonly model = new TeamModel();
  private nodes: TeamNode[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  /**
   * Applies one toolhost/teamChanged notification; returns what changed,
   * in words ("" or undefined: nothing to tell).
   */
  update(change: TeamState | undefined): string | undefined {
    const what = this.model.apply(change);
    if (what !== undefined) {
      this.refresh();
    }
    return what;
  }

  /** Drops every team: the server that ran them stopped. */
  clear(): void {
    this.model.clear();
    this.refresh();
  }

  /** Members working now, for the view's badge. */
  working(): number {
    return this.model.working();
  }

  private refresh(): void {
    this.nodes = teamNodes(this.model.list());
    this.changed.fire();
  }

  getTreeItem(node: TeamNode): vscode.TreeItem {
    const state = node.kind === "team" ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, state);
    // Stable ids keep a team's expansion across updates.
    item.id = node.kind === "team" ? `team:${node.team}` : `member:${node.team}:${node.label}`;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    item.contextValue = `toolhost.${node.kind}`;
    return item;
  }

  getChildren(node?: TeamNode): TeamNode[] {
    return node ? node.children : this.nodes;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
