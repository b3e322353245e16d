/**
 * The reviews that wait for the user's answer, shared by the diff review
 * of one change (review.ts) and the review of a turn's changes
 * (changeReview.ts): the list, the context key that shows the review's
 * actions in the editor title while any waits, and dismissing them all
 * when the server is gone.
 */
import * as vscode from "vscode";

/** A waiting review: settle("dismissed") answers it as closed unanswered. */
export interface Settles {
  settle(d: "dismissed"): void;
}

/** The waiting reviews of one kind, newest last. */
export class PendingReviews<P extends Settles> implements vscode.Disposable {
  private readonly waiting: P[] = [];

  /** contextKey is true while a review waits (package.json's `when` clauses read it). */
  constructor(private readonly contextKey: string) {}

  /** The waiting reviews, oldest first. */
  get all(): readonly P[] {
    return this.waiting;
  }

  async add(p: P): Promise<void> {
    this.waiting.push(p);
    await this.updateContext();
  }

  async remove(p: P): Promise<void> {
    const i = this.waiting.indexOf(p);
    if (i >= 0) {
      this.waiting.splice(i, 1);
    }
    await this.updateContext();
  }

  /** Dismisses every waiting review (the server is gone). */
  dismissAll(): void {
    for (const p of [...this.waiting]) {
      p.settle("dismissed");
    }
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand("setContext", this.contextKey, this.waiting.length > 0);
  }

  dispose(): void {
    this.dismissAll();
  }
}
