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
    // Beside the file being worked on; in place of an earlier result; in the
    // active group when nothing is open.
    const active = vscode.window.activeTextEditor;
    const column = !active
      ? vscode.ViewColumn.Active
      : active.document.uri.scheme === SCHEME
        ? (active.viewColumn ?? vscode.ViewColumn.Active)
        : vscode.ViewColumn.Beside;
    return vscode.window.showTextDocument(doc, { preview: true, viewColumn: column });
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}
