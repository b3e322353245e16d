/**
 * Handles the server's `workspace/applyEdit` in place of the language
 * client's default: the edit goes through VS Code (which shows the refactor
 * preview for changes that need confirmation), and the touched documents are
 * saved so the disk matches before the tool returns — the client declares
 * `savesAppliedEdits`, so the server relies on it.
 */
import * as vscode from "vscode";
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from "vscode-languageclient";
import type { LanguageClient } from "vscode-languageclient/node";
import { applyThenSave, needsConfirmation, tickedPreview, touchedUris } from "./logic/edits";
import { diskText } from "./logic/unsaved";

/**
 * A folder that exists wherever the edit is applied: the extension's own
 * code. The hidden entry that opens the Refactor Preview names it.
 */
const EXISTING_FOLDER = vscode.Uri.file(__dirname).toString();

/** Applies one edit request; never throws (a failure is `applied: false`). */
export async function applyWorkspaceEdit(
  client: LanguageClient,
  params: ApplyWorkspaceEditParams,
  log: (line: string) => void,
): Promise<ApplyWorkspaceEditResult> {
  try {
    const stale = staleDocument(client, params);
    if (stale) {
      return { applied: false, failureReason: `${stale} changed in the editor since the server read it` };
    }
    // Documents with unsaved typing keep it unsaved: the disk gets its own
    // content plus the agent's change (worked out before anything changes).
    const toDisk = new Map<string, string>();
    for (const change of params.edit.documentChanges ?? []) {
      if (!("textDocument" in change)) {
        continue;
      }
      const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (!doc || !doc.isDirty || doc.isUntitled) {
        continue;
      }
      const disk = await vscode.workspace.fs.readFile(uri).then((b) => Buffer.from(b).toString("utf8"), () => undefined);
      if (disk === undefined) {
        continue;
      }
      const merged = diskText(doc.getText(), proposedText(doc, change.edits), disk);
      if ("error" in merged) {
        return { applied: false, failureReason: `${uri.fsPath}: ${merged.error}; save or undo them, then try again` };
      }
      toDisk.set(uri.toString(), merged.text);
    }
    const confirm = needsConfirmation(params.edit);
    // The Refactor Preview lists changes that need confirmation unticked;
    // the agent's changes arrive ticked instead, and an entry the preview
    // does not list keeps it open (tickedPreview).
    const shown = confirm ? tickedPreview(params.edit, EXISTING_FOLDER) : params.edit;
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(shown as typeof params.edit);
    return await applyThenSave(
      async () => {
        const applied = await vscode.workspace.applyEdit(edit, { isRefactoring: confirm });
        if (!applied && confirm) {
          // Discarding the preview, or applying it with no change ticked:
          // either way nothing was written, and the user should know.
          void vscode.window.showWarningMessage(
            `toolhost: "${params.label ?? "the edit"}" was not applied (the preview was discarded, or applied with no change ticked). The agent was told you rejected it.`,
          );
        }
        return applied;
      },
      () => saveTouched(client, touchedUris(params.edit), toDisk),
      confirm,
      log,
    );
  } catch (err) {
    log(`applyEdit failed: ${(err as Error).message}`);
    return { applied: false, failureReason: (err as Error).message };
  }
}

/** The URI of an open document whose version differs from the edit's, if any. */
function staleDocument(client: LanguageClient, params: ApplyWorkspaceEditParams): string | undefined {
  for (const change of params.edit.documentChanges ?? []) {
    if (!("textDocument" in change) || typeof change.textDocument.version !== "number") {
      continue;
    }
    const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri).toString();
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    if (doc && doc.version !== change.textDocument.version) {
      return change.textDocument.uri;
    }
  }
  return undefined;
}

/** The text of `doc` after LSP `edits` (positions in its own coordinates). */
function proposedText(doc: vscode.TextDocument, edits: Array<{ range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }>): string {
  let text = doc.getText();
  const spans = edits
    .map((e) => ({
      start: doc.offsetAt(new vscode.Position(e.range.start.line, e.range.start.character)),
      end: doc.offsetAt(new vscode.Position(e.range.end.line, e.range.end.character)),
      text: e.newText,
    }))
    .sort((a, b) => b.start - a.start);
  for (const sp of spans) {
    text = text.slice(0, sp.start) + sp.text + text.slice(sp.end);
  }
  return text;
}

/**
 * Saves each touched document that has unsaved changes. A document in
 * `toDisk` had the user's unsaved typing: its disk text is swapped in for
 * the save and the document's own text put back, so the typing stays
 * unsaved and the file holds only the agent's change.
 */
async function saveTouched(client: LanguageClient, uris: string[], toDisk: Map<string, string>): Promise<void> {
  for (const raw of uris) {
    const uri = client.protocol2CodeConverter.asUri(raw);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
      ?? (await vscode.workspace.openTextDocument(uri));
    const disk = toDisk.get(uri.toString());
    if (disk !== undefined) {
      await saveBeside(doc, disk);
      continue;
    }
    if (doc.isDirty && !(await doc.save())) {
      throw new Error(`could not save ${uri.fsPath}`);
    }
  }
}

async function saveBeside(doc: vscode.TextDocument, disk: string): Promise<void> {
  const keep = doc.getText();
  const editors = vscode.window.visibleTextEditors.filter((e) => e.document === doc);
  const selections = editors.map((e) => e.selections);
  const whole = () => new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  const swap = new vscode.WorkspaceEdit();
  swap.replace(doc.uri, whole(), disk);
  if (!(await vscode.workspace.applyEdit(swap))) {
    throw new Error(`could not write ${doc.uri.fsPath}`);
  }
  try {
    if (!(await doc.save())) {
      throw new Error(`could not save ${doc.uri.fsPath}`);
    }
  } finally {
    // The user's typing comes back, unsaved, whatever happened.
    const back = new vscode.WorkspaceEdit();
    back.replace(doc.uri, whole(), keep);
    await vscode.workspace.applyEdit(back);
    editors.forEach((e, i) => (e.selections = selections[i]));
  }
}
