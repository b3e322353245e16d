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
  preview?: { kind: "diff" | "command" | "url" | string; text: string };
  suggestions?: string[];
}

/** Answer to `toolhost/requestPermission`. */
export interface PermissionAnswer {
  decision: "allow" | "allowAlways" | "deny";
  message?: string;
}

/** Button labels, in the order shown. */
export const ALLOW = "Allow";
export const ALLOW_ALWAYS = "Always allow";
export const DENY = "Deny";
export const PERMISSION_ACTIONS = [ALLOW, ALLOW_ALWAYS, DENY] as const;

/** Longest detail shown; a modal with a huge diff is unreadable. */
export const MAX_DETAIL_LINES = 40;

/** The modal's text: a one-line message and a multi-line detail. */
export interface PermissionPrompt {
  message: string;
  detail: string;
}

/** Builds the modal's text for a request. */
export function permissionPrompt(p: PermissionParams): PermissionPrompt {
  const risk = p.risk ? ` [risk: ${p.risk}]` : "";
  const message = `${p.title || `Allow ${p.toolName}?`}${risk}`;
  const parts: string[] = [];
  const body = p.preview?.text ?? describeInput(p.toolName, p.input);
  if (body) {
    parts.push(clip(body, MAX_DETAIL_LINES));
  }
  if (p.suggestions && p.suggestions.length > 0) {
    parts.push(`"${ALLOW_ALWAYS}" adds: ${p.suggestions.join(", ")}`);
  }
  return { message, detail: parts.join("\n\n") };
}

/** Maps the pressed button (undefined: the modal was closed) to the answer. */
export function permissionAnswer(choice: string | undefined): PermissionAnswer {
  switch (choice) {
    case ALLOW:
      return { decision: "allow" };
    case ALLOW_ALWAYS:
      return { decision: "allowAlways" };
    case DENY:
      return { decision: "deny", message: "the user denied the call" };
    default:
      return { decision: "deny", message: "the user dismissed the permission prompt" };
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
