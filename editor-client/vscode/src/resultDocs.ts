/**
 * Read-only documents for tool results and the server's status, served from
 * memory under the `toolhost` URI scheme.
 */
import * as vscode from "vscode";

export const SCHEME = "toolhost";

/** Holds the text of each virtual document by URI. */
export class ResultDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Stores `text` under a new URI named after `title` and opens it beside the editor. */
  async show(title: string, text: string): Promise<vscode.TextEditor> {
    this.counter++;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${this.counter}/${title.replace(/[^\w.-]+/g, "-")}.md` });
    this.texts.set(uri.toString(), text);
    const doc = await vscode.workspace.openTextDocument(uri);
    // In the group that already shows results (one place for them, not a
    // new group per call); else beside the file being worked on; in the
    // active group when nothing is open.
    const shown = vscode.window.tabGroups.all.find((g) =>
      g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === SCHEME),
    );
    const active = vscode.window.activeTextEditor;
    const column = shown
      ? shown.viewColumn
      : !active
        ? vscode.ViewColumn.Active
        : vscode.ViewColumn.Beside;
    return vscode.window.showTextDocument(doc, { preview: true, viewColumn: column });
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
