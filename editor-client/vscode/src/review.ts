/**
 * Permission prompts for a change of a file, reviewed in VS Code's own diff
 * editor: the file as it is now (its open document, unsaved typing
 * included) against the proposed text in a read-only virtual document. The
 * answer comes from the editor's title bar (Allow, Always allow…, Deny,
 * Deny with feedback…) or the palette; closing the diff dismisses the
 * prompt. The diff can be scrolled, searched and folded like any editor.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { PermissionAnswer, PermissionParams } from "./logic/permission";
import { PendingReviews } from "./pendingReviews";

export const REVIEW_SCHEME = "toolhost-review";

/** The context key that shows the review actions in the editor title. */
const CONTEXT_KEY = "toolhost.reviewing";

/** What the user did with a review: one of the buttons, or closed it. */
export type ReviewAction = "allow" | "allowAlways" | "deny" | "denyWithFeedback" | "dismissed";

interface Pending {
  uri: vscode.Uri;
  settle(action: ReviewAction): void;
}

/** Serves the proposed texts and tracks the reviews that wait. */
export class DiffReviews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly pending = new PendingReviews<Pending>(CONTEXT_KEY);
  private counter = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.subscriptions.push(
      vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, this),
      // Closing the diff without answering dismisses the prompt.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          const p = this.pending.all.find((x) => tabShows(tab, x.uri));
          p?.settle("dismissed");
        }
      }),
    );
  }

  /** Serves text read-only at uri (the current side of a review of changes). */
  setText(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
  }

  deleteText(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  /** Whether a request can be reviewed in the diff editor. */
  static canReview(params: PermissionParams): boolean {
    return params.preview?.kind === "diff" && typeof params.preview.path === "string" && typeof params.preview.newText === "string";
  }

  /**
   * Opens the diff of the request and waits for the user's action. The
   * diff closes once answered.
   */
  async review(params: PermissionParams, token?: vscode.CancellationToken): Promise<ReviewAction> {
    const file = params.preview!.path!;
    this.counter++;
    const base = path.basename(file);
    const proposed = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${this.counter}/${base}`, query: `proposed` });
    this.texts.set(proposed.toString(), params.preview!.newText!);
    const current = await currentUri(file, this.counter, this.texts);
    const title = `${vscode.workspace.asRelativePath(file)}: current ↔ proposed (toolhost review)`;
    let settle!: (action: ReviewAction) => void;
    const answered = new Promise<ReviewAction>((resolve) => (settle = resolve));
    const entry: Pending = { uri: proposed, settle: (a) => settle(a) };
    await this.pending.add(entry);
    const cancelled = token?.onCancellationRequested(() => settle("dismissed"));
    let hint: vscode.Disposable | undefined;
    try {
      await vscode.commands.executeCommand("vscode.diff", current, proposed, title, { preview: false });
      hint = vscode.window.setStatusBarMessage("toolhost: review the change, then Allow or Deny in the editor's title bar");
      return await answered;
    } finally {
      hint?.dispose();
      cancelled?.dispose();
      await this.pending.remove(entry);
      await closeTabsOf(proposed);
      this.texts.delete(proposed.toString());
    }
  }

  /** Answers the review shown in the active editor, else the newest. */
  answer(action: ReviewAction, uri?: vscode.Uri): boolean {
    const active = uri ?? vscode.window.activeTextEditor?.document.uri;
    const p = this.pending.all.find((x) => active && x.uri.toString() === active.toString()) ?? this.pending.all[this.pending.all.length - 1];
    if (!p) {
      void vscode.window.showInformationMessage("toolhost: no change is waiting for review.");
      return false;
    }
    p.settle(action);
    return true;
  }

  /** Dismisses every waiting review (the server is gone). */
  dismissAll(): void {
    this.pending.dismissAll();
  }

  dispose(): void {
    this.pending.dispose();
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.texts.clear();
  }
}

/** The left side of the diff: the file itself, or an empty document for a new file. */
async function currentUri(file: string, n: number, texts: Map<string, string>): Promise<vscode.Uri> {
  const uri = vscode.Uri.file(file);
  try {
    await vscode.workspace.fs.stat(uri);
    return uri;
  } catch {
    const empty = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${n}/${path.basename(file)}`, query: "new file" });
    texts.set(empty.toString(), "");
    return empty;
  }
}

export function tabShows(tab: vscode.Tab, uri: vscode.Uri): boolean {
  const input = tab.input;
  if (input instanceof vscode.TabInputTextDiff) {
    return input.modified.toString() === uri.toString();
  }
  return false;
}

export async function closeTabsOf(uri: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => tabShows(t, uri));
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
  }
}

/** Maps a review action to the permission answer (feedback and rules asked by the caller). */
export function reviewLabel(action: ReviewAction): string {
  switch (action) {
    case "allow":
      return "Allow";
    case "allowAlways":
      return "Always allow…";
    case "deny":
      return "Deny";
    case "denyWithFeedback":
      return "Deny with feedback…";
    default:
      return "";
  }
}

export type { PermissionAnswer };
