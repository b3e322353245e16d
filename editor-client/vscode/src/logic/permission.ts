/**
 * Permission prompts: the message and detail a modal shows for a
 * `toolhost/requestPermission` request, and the answer for the button the
 * user pressed. Free of VS Code so it runs under plain Node.
 */

/** Params of `toolhost/requestPermission` (design section 2). */
export interface PermissionParams {
  callId?: string;
  toolName: string;
  input?: unknown;
  title?: string;
  risk?: string;
  preview?: { kind: "diff" | "command" | "url" | string; text: string; path?: string; newText?: string };
  suggestions?: string[];
  broaderSuggestions?: string[];
}

/** Answer to `toolhost/requestPermission`. */
export interface PermissionAnswer {
  decision: "allow" | "allowAlways" | "deny";
  message?: string;
  rules?: string[];
}

/** Button labels. */
export const ALLOW = "Allow";
export const ALLOW_ALWAYS = "Always allow…";
export const DENY = "Deny";
export const DENY_FEEDBACK = "Deny with feedback…";

/**
 * The modal's buttons, in the order shown. Deny is the close affordance
 * (Escape, and no separate Cancel); a high-risk call puts "Deny with
 * feedback…" first, so Enter on the first button never approves it.
 */
export function permissionActions(p: Pick<PermissionParams, "risk">): string[] {
  if (isHighRisk(p)) {
    return [DENY_FEEDBACK, ALLOW, ALLOW_ALWAYS];
  }
  return [ALLOW, ALLOW_ALWAYS, DENY_FEEDBACK];
}

/** Whether the call is high or critical risk. */
export function isHighRisk(p: Pick<PermissionParams, "risk">): boolean {
  return p.risk === "high" || p.risk === "critical";
}

/** Longest detail shown; a modal with a huge diff is unreadable. */
export const MAX_DETAIL_LINES = 40;

/** The modal's text: a one-line message and a multi-line detail. */
export interface PermissionPrompt {
  message: string;
  detail: string;
}

/** The model's own description of the call (Bash's `description`), if any. */
export function callDescription(input: unknown): string | undefined {
  const d = (input as { description?: unknown } | undefined)?.description;
  return typeof d === "string" && d.trim() !== "" ? d.trim() : undefined;
}

/** Longest description of the agent shown; it must not push the command out of view. */
export const MAX_DESCRIPTION_CHARS = 300;

/**
 * Characters that change how text shows instead of showing themselves:
 * control characters (terminal escapes, carriage returns), bidirectional
 * embeddings, overrides, isolates and marks ("Trojan Source"), line and
 * paragraph separators. A prompt writes them out (`\u202e`) so the user
 * sees every character of what they approve.
 */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** text with its invisible characters escaped; with oneLine, newlines and tabs too. */
export function visible(text: string, oneLine = false): string {
  const out = text.replace(INVISIBLE, (c, at: number) => {
    const code = c.charCodeAt(0);
    if (c === "\r") {
      // A Windows line end (kept when lines are) moves the cursor nowhere new.
      return !oneLine && text[at + 1] === "\n" ? c : "\\r";
    }
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  return oneLine ? out.replace(/\n/g, "\\n").replace(/\t/g, "\\t") : out;
}

/**
 * Builds the modal's text for a request. The risk is a line of its own at
 * the top of the detail, not glued to the question; a command is shown
 * once, in the detail (the server's title quotes it too, so a command's
 * question is asked without it).
 */
export function permissionPrompt(p: PermissionParams): PermissionPrompt {
  const command = p.preview?.kind === "command" || (!p.preview && typeof (p.input as { command?: unknown } | undefined)?.command === "string");
  const question = command ? (p.toolName === "Bash" ? "Run this command?" : `Run this ${p.toolName} command?`) : p.title || `Allow ${p.toolName}?`;
  const message = visible(question, true);
  const parts: string[] = [];
  if (p.risk) {
    parts.push(`Risk: ${visible(p.risk, true)}`);
  }
  const why = callDescription(p.input);
  if (why) {
    const short = why.length > MAX_DESCRIPTION_CHARS ? `${why.slice(0, MAX_DESCRIPTION_CHARS)}…` : why;
    parts.push(`The agent says: ${visible(short, true)}`);
  }
  const body = p.preview?.text ?? describeInput(p.toolName, p.input);
  if (body) {
    parts.push(clip(visible(body), MAX_DETAIL_LINES));
  }
  if (p.suggestions && p.suggestions.length > 0) {
    // The rule for exactly this command would repeat the command shown
    // above: it is named, not quoted again.
    const shown = command ? [(p.input as { command?: unknown } | undefined)?.command, p.preview?.text].filter((t) => typeof t === "string") : [];
    const rules = p.suggestions.map((r) => (shown.some((t) => r === `${p.toolName}(${t})`) ? `${p.toolName}(this exact command)` : r));
    parts.push(`"${ALLOW_ALWAYS}" saves: ${visible(rules.join(", "), true)}`);
  }
  return { message, detail: parts.join("\n\n") };
}

/** One choice of rules for "Always allow…": what it saves, said plainly. */
export interface RuleChoice {
  label: string;
  detail: string;
  rules: string[];
}

/**
 * The choices "Always allow…" offers: the rules as narrow as the call first,
 * then each broader rule on its own. Empty when the request offers none.
 */
export function ruleChoices(p: Pick<PermissionParams, "suggestions" | "broaderSuggestions">): RuleChoice[] {
  const out: RuleChoice[] = [];
  if (p.suggestions && p.suggestions.length > 0) {
    out.push({ label: visible(p.suggestions.join(", "), true), detail: "exactly this call from now on", rules: p.suggestions });
  }
  for (const r of p.broaderSuggestions ?? []) {
    out.push({ label: visible(r, true), detail: "every call with this prefix", rules: [r] });
  }
  return out;
}

/**
 * The answer for the pressed button (undefined: the prompt was closed,
 * answered as null, which the server reports as dismissed). Feedback is the
 * user's own words, sent as typed; a plain denial carries no words.
 */
export function permissionAnswer(choice: string | undefined, extra: { feedback?: string; rules?: string[] } = {}): PermissionAnswer | null {
  switch (choice) {
    case ALLOW:
      return { decision: "allow" };
    case ALLOW_ALWAYS:
      return extra.rules && extra.rules.length > 0 ? { decision: "allowAlways", rules: extra.rules } : { decision: "allowAlways" };
    case DENY:
      return { decision: "deny" };
    case DENY_FEEDBACK: {
      const words = extra.feedback?.trim();
      return words ? { decision: "deny", message: extra.feedback } : { decision: "deny" };
    }
    default:
      return null;
  }
}

/** A short description of a call's input: the command, the path or the URL. */
export function describeInput(toolName: string, input: unknown): string {
  if (input === undefined || input === null) {
    return "";
  }
  if (typeof input === "object") {
    const o = input as Record<string, unknown>;
    for (const key of ["command", "file_path", "notebook_path", "url", "path", "pattern"]) {
      if (typeof o[key] === "string") {
        return key === "command" ? `$ ${o[key]}` : `${toolName}: ${o[key]}`;
      }
    }
  }
  return JSON.stringify(input, null, 2);
}

/** Keeps the first `max` lines and says how many were left out. */
export function clip(text: string, max: number): string {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.length <= max) {
    return text;
  }
  return [...lines.slice(0, max), `… ${lines.length - max} more lines`].join("\n");
}
