/**
 * Facts about a protocol-level `WorkspaceEdit` the client needs before and
 * after applying it: which documents it touches (to save them afterwards)
 * and whether the server asked for the user's confirmation.
 */

interface DocumentChange {
  kind?: string;
  uri?: string;
  newUri?: string;
  textDocument?: { uri: string };
}

/** The parts of an LSP WorkspaceEdit read here. */
export interface ProtocolWorkspaceEdit {
  changes?: Record<string, unknown[]>;
  documentChanges?: DocumentChange[];
  changeAnnotations?: Record<string, { label?: string; needsConfirmation?: boolean; description?: string }>;
}

/** URIs whose content the edit changes or creates, in order, deleted ones excluded. */
export function touchedUris(edit: ProtocolWorkspaceEdit): string[] {
  const uris: string[] = [];
  const add = (u: string | undefined) => {
    if (u && !uris.includes(u)) {
      uris.push(u);
    }
  };
  for (const u of Object.keys(edit.changes ?? {})) {
    add(u);
  }
  for (const c of edit.documentChanges ?? []) {
    if (c.textDocument) {
      add(c.textDocument.uri);
    } else if (c.kind === "create") {
      add(c.uri);
    } else if (c.kind === "rename") {
      add(c.newUri);
    }
  }
  return uris;
}

/** Whether any change annotation asks the user to confirm. */
export function needsConfirmation(edit: ProtocolWorkspaceEdit): boolean {
  return Object.values(edit.changeAnnotations ?? {}).some((a) => a?.needsConfirmation === true);
}

/** Reason given to the server when the user discards a previewed edit. */
export const REJECTED_REASON = "the user rejected the edit";

/** The answer to `workspace/applyEdit`. */
export interface ApplyOutcome {
  applied: boolean;
  failureReason?: string;
}

/**
 * Applies an edit and then saves what it touched. Whether the edit is
 * applied is the editor's answer alone: once the buffers hold the edit, a
 * failed save is logged and the answer stays `applied: true`, so the server
 * (which checks the disk of a client that saves applied edits) writes the
 * file itself. Answering `applied: false` there would tell the model the
 * file is unchanged while the buffer changed.
 */
export async function applyThenSave(
  apply: () => Promise<boolean>,
  save: () => Promise<void>,
  confirm: boolean,
  log: (line: string) => void,
): Promise<ApplyOutcome> {
  let applied: boolean;
  try {
    applied = await apply();
  } catch (err) {
    log(`applyEdit failed: ${(err as Error).message}`);
    return { applied: false, failureReason: (err as Error).message };
  }
  if (!applied) {
    return { applied: false, failureReason: confirm ? REJECTED_REASON : "VS Code could not apply the edit" };
  }
  try {
    await save();
  } catch (err) {
    log(`the edit was applied, but saving failed (${(err as Error).message}); the server writes the file`);
  }
  return { applied: true };
}

/** The annotation id of the hidden entry tickedPreview adds. */
export const REVIEW_MARKER = "toolhost.review";

/**
 * The edit to show in VS Code's Refactor Preview with the agent's changes
 * already ticked. VS Code opens the preview only when some change needs
 * confirmation, and lists exactly those unticked; so the agent's changes
 * lose the flag, and it goes to one entry VS Code does not list: creating
 * `existingFolder` (which exists) with ignoreIfExists, which the preview
 * skips and which, applied, would do nothing. The preview lists the
 * agent's changes alone, labelled as the server labelled them; there is no
 * row the user must leave unticked.
 */
export function tickedPreview(edit: ProtocolWorkspaceEdit, existingFolder: string): ProtocolWorkspaceEdit {
  const annotations: NonNullable<ProtocolWorkspaceEdit["changeAnnotations"]> = {};
  for (const [id, a] of Object.entries(edit.changeAnnotations ?? {})) {
    annotations[id] = { ...a, needsConfirmation: false };
  }
  annotations[REVIEW_MARKER] = { label: "toolhost review", needsConfirmation: true };
  const opener = { kind: "create", uri: existingFolder, options: { ignoreIfExists: true }, annotationId: REVIEW_MARKER };
  return { ...edit, changeAnnotations: annotations, documentChanges: [...(edit.documentChanges ?? []), opener as DocumentChange] };
}
