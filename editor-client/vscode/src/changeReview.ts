/**
 * toolhost/reviewChanges: the changes of an agent's turn reviewed as one,
 * in VS Code's multi-diff editor (`vscode.changes`). Each file shows its
 * current text (read-only, the text the change was planned on) against
 * the proposal in a writable in-memory file (claudeIde.ts's
 * ProposalFiles): the user types into the proposal, and the diff editor's
 * own "revert block" arrow on it rejects a hunk. The editor title offers
 * Accept All, Reject All and Accept or Reject Files… (a pick of the files:
 * code-server's multi-diff has no per-file toolbar an extension may use,
 * its menu is a proposed API). Closing the review dismisses it.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import { PROPOSAL_SCHEME, type ProposalFiles } from "./claudeIde";
import { acceptedAnswer, type ReviewAnswer, type ReviewChange, type ReviewChangesParams } from "./logic/reviewChanges";
import { PendingReviews } from "./pendingReviews";
import { REVIEW_SCHEME, type DiffReviews } from "./review";

/** The context key that shows the review's actions in the editor title. */
const CONTEXT_KEY = "toolhost.reviewingChanges";

/** The user's decision on the whole review: per file accept (true) or reject, or dismissed. */
type Decision = Map<string, boolean> | "dismissed";

interface Pending {
  params: ReviewChangesParams;
  title: string;
  proposals: Map<string, vscode.Uri>;
  settle(d: Decision): void;
}

/** Shows reviews of a turn's changes and answers them. */
export class ChangeReviews implements vscode.Disposable {
  private readonly pending = new PendingReviews<Pending>(CONTEXT_KEY);
  private readonly subscriptions: vscode.Disposable[] = [];
  private counter = 0;

  constructor(
    private readonly proposals: ProposalFiles,
    private readonly current: DiffReviews,
  ) {
    this.subscriptions.push(
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          this.pending.all.find((p) => showsReview(tab, p))?.settle("dismissed");
        }
      }),
      vscode.commands.registerCommand("toolhost.changes.acceptAll", () => this.decideAll(true)),
      vscode.commands.registerCommand("toolhost.changes.rejectAll", () => this.decideAll(false)),
      vscode.commands.registerCommand("toolhost.changes.choose", () => this.choose()),
    );
  }

  /** Answers toolhost/reviewChanges (null: dismissed). */
  async review(params: ReviewChangesParams, token: vscode.CancellationToken): Promise<{ changes: ReviewAnswer[] } | null> {
    const id = ++this.counter;
    let title = params.title || "Review the agent's changes";
    if (this.pending.all.some((p) => p.title === title)) {
      title += ` (${id})`;
    }
    const proposals = new Map<string, vscode.Uri>();
    const lefts: vscode.Uri[] = [];
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    params.changes.forEach((c, i) => {
      const base = path.basename(c.path);
      const right = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/review-${id}/${i}/${base}` });
      const left = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/review-${id}/${i}/${base}`, query: c.oldText === null ? "new file" : "current" });
      this.proposals.set(right, c.newText);
      this.current.setText(left, c.oldText ?? "");
      proposals.set(c.callId, right);
      lefts.push(left);
      resources.push([vscode.Uri.file(c.path), left, right]);
    });
    let settle!: (d: Decision) => void;
    const decided = new Promise<Decision>((resolve) => (settle = resolve));
    const entry: Pending = { params, title, proposals, settle: (d) => settle(d) };
    await this.pending.add(entry);
    const cancelled = token.onCancellationRequested(() => settle("dismissed"));
    let hint: vscode.Disposable | undefined;
    try {
      await vscode.commands.executeCommand("vscode.changes", title, resources);
      hint = vscode.window.setStatusBarMessage("toolhost: edit the proposals or revert hunks, then Accept All, Reject All or Accept or Reject Files… in the editor's title bar");
      const decision = await decided;
      if (decision === "dismissed") {
        return null;
      }
      const changes: ReviewAnswer[] = [];
      for (const c of params.changes) {
        changes.push(decision.get(c.callId) ? acceptedAnswer(c, await this.textOf(proposals.get(c.callId)!)) : { callId: c.callId, decision: "reject" });
      }
      return { changes };
    } finally {
      hint?.dispose();
      cancelled.dispose();
      await this.pending.remove(entry);
      await this.close(entry);
      proposals.forEach((uri) => this.proposals.remove(uri));
      lefts.forEach((uri) => this.current.deleteText(uri));
    }
  }

  /** The proposal as the user left it: its open document (unsaved typing included), else the file. */
  private async textOf(uri: vscode.Uri): Promise<string> {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (!doc) {
      return new TextDecoder().decode(this.proposals.readFile(uri));
    }
    const text = doc.getText();
    if (doc.isDirty) {
      // Written to the in-memory folder only, so closing the review asks nothing.
      await doc.save();
    }
    return text;
  }

  private async close(p: Pending): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => showsReview(t, p));
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs).then(undefined, () => undefined);
    }
  }

  /** The review the user acts on: the newest. */
  private target(): Pending | undefined {
    const p = this.pending.all[this.pending.all.length - 1];
    if (!p) {
      void vscode.window.showInformationMessage("toolhost: no changes are waiting for review.");
    }
    return p;
  }

  private decideAll(accept: boolean): void {
    const p = this.target();
    p?.settle(new Map(p.params.changes.map((c) => [c.callId, accept])));
  }

  /** Accept or Reject Files…: the picked files are accepted, the others rejected. */
  private async choose(): Promise<void> {
    const p = this.target();
    if (!p) {
      return;
    }
    const items = p.params.changes.map((c: ReviewChange) => ({ label: vscode.workspace.asRelativePath(c.path), description: c.label, picked: true, callId: c.callId }));
    const picked = await vscode.window.showQuickPick(items, {
      canPickMany: true,
      title: `${p.title}: the files to accept (the others are rejected)`,
      placeHolder: "Untick the files to reject, then press Enter",
    });
    if (!picked || !this.pending.all.includes(p)) {
      return;
    }
    const accept = new Set(picked.map((i) => i.callId));
    p.settle(new Map(p.params.changes.map((c) => [c.callId, accept.has(c.callId)])));
  }

  /** Dismisses every review (the server is gone). */
  dismissAll(): void {
    this.pending.dismissAll();
  }

  dispose(): void {
    this.pending.dispose();
    this.subscriptions.forEach((s) => s.dispose());
  }
}

/**
 * Whether tab is the review's multi-diff editor: the extension API has no
 * input type for it, and its label is the title with the file count
 * after it ("… (3 files)").
 */
function showsReview(tab: vscode.Tab, p: Pending): boolean {
  return tab.label === p.title || tab.label.startsWith(`${p.title} (`);
}
