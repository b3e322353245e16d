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
import { applyThenSave, needsConfirmation, touchedUris } from "./logic/edits";

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
    const edit = await client.protocol2CodeConverter.asWorkspaceEdit(params.edit);
    const confirm = needsConfirmation(params.edit);
    return await applyThenSave(
      async () => vscode.workspace.applyEdit(edit, { isRefactoring: confirm }),
      () => saveTouched(client, touchedUris(params.edit)),
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

/** Saves each touched document that has unsaved changes. */
async function saveTouched(client: LanguageClient, uris: string[]): Promise<void> {
  for (const raw of uris) {
    const uri = client.protocol2CodeConverter.asUri(raw);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
      ?? (await vscode.workspace.openTextDocument(uri));
    if (doc.isDirty && !(await doc.save())) {
      throw new Error(`could not save ${uri.fsPath}`);
    }
  }
}
