/**
 * toolhost/reviewChanges' shapes and the answer the extension builds from
 * what the user left in each proposal (no vscode here, so it is tested on
 * its own).
 */

/** One file change of a review (the server's ReviewChange). */
export interface ReviewChange {
  callId: string;
  toolName: string;
  path: string;
  label: string;
  risk?: string;
  /** null for a file the change creates. */
  oldText: string | null;
  newText: string;
}

/** toolhost/reviewChanges' params. */
export interface ReviewChangesParams {
  reviewId: string;
  title: string;
  agent?: string;
  turnId?: string;
  changes: ReviewChange[];
}

export interface HunkCounts {
  accepted: number;
  rejected: number;
}

/** The answer on one change. */
export interface ReviewAnswer {
  callId: string;
  decision: "accept" | "reject";
  text?: string;
  hunks?: HunkCounts;
  message?: string;
}

/** Above this many changed lines on either side, hunks are not counted (the text still is sent). */
const MAX_DIFF_LINES = 4000;

/** A proposal's hunk: the old file's lines it replaces and the lines it puts there. */
interface Hunk {
  removed: string[];
  added: string[];
}

/**
 * The hunks of the change from old to proposed: a line diff (longest
 * common subsequence of the lines between the common head and tail).
 * undefined when the changed middle is too large to diff here.
 */
export function hunksOf(old: string, proposed: string): Hunk[] | undefined {
  const a = old.split("\n");
  const b = proposed.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) {
    head++;
  }
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) {
    tail++;
  }
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length > MAX_DIFF_LINES || y.length > MAX_DIFF_LINES) {
    return undefined;
  }
  // lcs[i][j]: the common lines of x[i:] and y[j:].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const hunks: Hunk[] = [];
  let cur: Hunk | undefined;
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      cur = undefined;
      i++;
      j++;
      continue;
    }
    cur ??= hunks[hunks.push({ removed: [], added: [] }) - 1];
    if (j < y.length && (i === x.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      cur.added.push(y[j++]);
    } else {
      cur.removed.push(x[i++]);
    }
  }
  return hunks;
}

/** Whether lines appear, in a row, in text's lines. */
function hasBlock(lines: string[], block: string[]): boolean {
  if (block.length === 0) {
    return true;
  }
  outer: for (let k = 0; k + block.length <= lines.length; k++) {
    for (let m = 0; m < block.length; m++) {
      if (lines[k + m] !== block[m]) {
        continue outer;
      }
    }
    return true;
  }
  return false;
}

/**
 * Counts the proposal's hunks the user kept and reverted in accepted: a
 * hunk is rejected when what it put there is gone and what it replaced is
 * back (the diff editor's "revert block" does exactly that); a hunk the
 * user typed into counts as accepted, since the server tells the model
 * the exact difference anyway.
 */
export function countHunks(old: string, proposed: string, accepted: string): HunkCounts | undefined {
  const hunks = hunksOf(old, proposed);
  if (!hunks) {
    return undefined;
  }
  const lines = accepted.split("\n");
  const counts: HunkCounts = { accepted: 0, rejected: 0 };
  for (const h of hunks) {
    const gone = h.added.length > 0 ? !hasBlock(lines, h.added) : false;
    const back = h.removed.length > 0 ? hasBlock(lines, h.removed) : gone;
    if ((h.added.length === 0 && back) || (gone && back)) {
      counts.rejected++;
    } else {
      counts.accepted++;
    }
  }
  return counts;
}

/**
 * The answer on one change the user accepted with text (the proposal as
 * they left it): text and hunk counts only when they changed it.
 */
export function acceptedAnswer(change: ReviewChange, text: string): ReviewAnswer {
  if (text === change.newText) {
    return { callId: change.callId, decision: "accept" };
  }
  const answer: ReviewAnswer = { callId: change.callId, decision: "accept", text };
  const hunks = countHunks(change.oldText ?? "", change.newText, text);
  if (hunks) {
    answer.hunks = hunks;
  }
  return answer;
}
