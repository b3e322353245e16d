/**
 * VS Code agent mode: how toolhost's decision on a call becomes the chat's
 * confirmation, and how a result becomes the text the model reads. Free of
 * VS Code so it runs under plain Node.
 */

/** Prefix of the language-model tools that stand for toolhost's tools. */
export const LM_TOOL_PREFIX = "toolhost_";

/** toolhost's tool name of a language-model tool ("toolhost_Read" → "Read"). */
export function toolhostName(lmName: string): string {
  return lmName.startsWith(LM_TOOL_PREFIX) ? lmName.slice(LM_TOOL_PREFIX.length) : lmName;
}

/** The answer of `toolhost/checkPermission`. */
export interface CheckResult {
  decision: "allow" | "ask" | "deny";
  reason?: string;
  title?: string;
  risk?: string;
  preview?: { kind: string; text: string };
  suggestions?: string[];
  /** The opaque token `toolhost/callTool` presents to run the call as checked. */
  approval?: string;
}

/** How many checked calls wait for their invocation at most. */
export const MAX_PENDING_APPROVALS = 64;

/**
 * The approval tokens of checked calls, from prepareInvocation to invoke
 * (VS Code passes nothing between the two but the input): by tool and
 * input, each taken once. A call whose token is missing (never checked,
 * forgotten, another input) goes without one, and toolhost asks in its
 * own dialog.
 */
export class PendingApprovals {
  private readonly tokens = new Map<string, string>();

  /** Keeps the token of a check of name with input. */
  put(name: string, input: unknown, token: string | undefined): void {
    const key = approvalKey(name, input);
    this.tokens.delete(key);
    if (token) {
      this.tokens.set(key, token);
    }
    while (this.tokens.size > MAX_PENDING_APPROVALS) {
      this.tokens.delete(this.tokens.keys().next().value as string);
    }
  }

  /** Takes the token of a check of name with input, if any. */
  take(name: string, input: unknown): string | undefined {
    const key = approvalKey(name, input);
    const token = this.tokens.get(key);
    this.tokens.delete(key);
    return token;
  }
}

function approvalKey(name: string, input: unknown): string {
  return name + "\u0000" + JSON.stringify(input ?? {});
}

/**
 * The tools whose calls change files. The chat's confirmation offers
 * "Allow in this Session", which would let every later call of the tool
 * run unasked, its change unreviewed; so toolhost reviews their changes
 * itself (its diff review, toolhost/requestPermission) and the chat asks
 * nothing. Only toolhost's own settings (the acceptEdits mode, an allow
 * rule) let a change run without that review.
 */
export const FILE_CHANGE_TOOLS: ReadonlySet<string> = new Set(["Edit", "Write", "NotebookEdit"]);

/** Whether toolhost, not the chat, reviews this call (see FILE_CHANGE_TOOLS). */
export function reviewedByToolhost(name: string, check: CheckResult): boolean {
  return check.decision === "ask" && FILE_CHANGE_TOOLS.has(name);
}

/** Longest preview shown in the chat's confirmation. */
export const MAX_PREVIEW_LINES = 60;

/** A confirmation in the chat: a title and a Markdown message. */
export interface Confirmation {
  title: string;
  message: string;
}

/**
 * The chat's confirmation for a check: only "ask" has one. "allow" runs
 * with no prompt; "deny" runs nothing either, and the call's result carries
 * toolhost's refusal to the model.
 */
export function confirmationFor(name: string, check: CheckResult): Confirmation | undefined {
  if (check.decision !== "ask" || reviewedByToolhost(name, check)) {
    return undefined;
  }
  const parts: string[] = [];
  if (check.preview?.text) {
    parts.push(fence(clipLines(check.preview.text, MAX_PREVIEW_LINES), languageOf(check.preview.kind)));
  }
  const notes: string[] = [];
  if (check.risk) {
    notes.push(`Risk: ${check.risk}.`);
  }
  if (check.reason) {
    notes.push(`toolhost asks because ${check.reason}.`);
  }
  if (notes.length > 0) {
    parts.push(notes.join(" "));
  }
  return { title: check.title || `Allow ${name}?`, message: parts.join("\n\n") };
}

/** The chat's line while a call runs ("toolhost Read README.md"). */
export function invocationMessage(name: string, input: unknown): string {
  const target = describeTarget(input);
  return target ? `toolhost ${name}: ${target}` : `toolhost ${name}`;
}

function describeTarget(input: unknown): string {
  if (!input || typeof input !== "object") {
    return "";
  }
  const i = input as Record<string, unknown>;
  for (const key of ["file_path", "notebook_path", "command", "pattern", "url", "path", "description"]) {
    const v = i[key];
    if (typeof v === "string" && v.trim() !== "") {
      const oneLine = v.replace(/\s+/g, " ").trim();
      return oneLine.length > 80 ? `${oneLine.slice(0, 77)}...` : oneLine;
    }
  }
  return "";
}

/** A toolhost/callTool result, as much as agent mode needs of it. */
export interface CallResult {
  content?: { type: string; text?: string; data?: string; mimeType?: string }[];
  isError?: boolean;
}

/** A part of a language-model tool result. */
export type ResultPart = { kind: "text"; text: string } | { kind: "image"; data: string; mimeType: string };

/**
 * The parts of a result for the model: each text block, and images as
 * images (the caller turns them into text when the editor cannot carry
 * them). An error result is already worded for the model ("Error: ...").
 */
export function resultParts(result: CallResult | undefined): ResultPart[] {
  const out: ResultPart[] = [];
  for (const c of result?.content ?? []) {
    if (c.type === "image" && c.data) {
      out.push({ kind: "image", data: c.data, mimeType: c.mimeType || "image/png" });
    } else if (typeof c.text === "string") {
      out.push({ kind: "text", text: c.text });
    }
  }
  if (out.length === 0) {
    out.push({ kind: "text", text: result?.isError ? "Error: the call failed without a message." : "(no output)" });
  }
  return out;
}

function languageOf(kind: string): string {
  switch (kind) {
    case "diff":
      return "diff";
    case "command":
      return "sh";
    default:
      return "text";
  }
}

function fence(text: string, lang: string): string {
  // A fence longer than any run of backticks in the text.
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

function clipLines(text: string, max: number): string {
  const lines = text.split("\n");
  if (lines.length <= max) {
    return text;
  }
  return `${lines.slice(0, max).join("\n")}\n… ${lines.length - max} more lines`;
}
