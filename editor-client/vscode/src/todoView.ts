/** The "Todos" tree view, fed by `toolhost/todos` notifications. */
import * as vscode from "vscode";
import { openCount, Todo, TodoNode, todoNodes, todoSummary } from "./logic/todos";

/** Tree data for the todo list; `update` replaces the whole list. */
export class TodoTreeProvider implements vscode.TreeDataProvider<TodoNode> {
  private nodes: TodoNode[] = [];
  private todos: Todo[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  update(todos: Todo[] | undefined): void {
    this.todos = todos ?? [];
    this.nodes = todoNodes(this.todos);
    this.changed.fire();
  }

  summary(): string {
    return todoSummary(this.todos);
  }

  open(): number {
    return openCount(this.todos);
  }

  getTreeItem(node: TodoNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.iconPath = new vscode.ThemeIcon(node.icon);
    item.tooltip = `${node.label} (${node.description})`;
    return item;
  }

  getChildren(node?: TodoNode): TodoNode[] {
    return node ? [] : this.nodes;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
