/** Permission modes (design section 4) and how the status bar shows them. */

/** A mode with a one-line explanation for the picker. */
export interface ModeInfo {
  mode: string;
  description: string;
}

export const MODES: ModeInfo[] = [
  { mode: "default", description: "ask before edits, commands and other side effects" },
  { mode: "acceptEdits", description: "apply edits without asking; ask before commands" },
  { mode: "plan", description: "read-only: changing calls are refused" },
  { mode: "bypassPermissions", description: "run everything without asking" },
  { mode: "dontAsk", description: "never ask: what would be asked is denied" },
];

/** Whether `mode` is one the server knows. */
export function isMode(mode: string): boolean {
  return MODES.some((m) => m.mode === mode);
}

/** Status bar text for a mode; `undefined` while the server is not running. */
export function statusBarText(mode: string | undefined): string {
  return mode ? `$(shield) toolhost: ${mode}` : "$(circle-slash) toolhost: stopped";
}

/** Reads the permission mode out of a `toolhost/status` result. */
export function modeOf(status: unknown): string | undefined {
  const s = status as { permissionMode?: unknown; mode?: unknown; permissions?: { mode?: unknown } } | undefined;
  for (const v of [s?.permissionMode, s?.mode, s?.permissions?.mode]) {
    if (typeof v === "string" && v !== "") {
      return v;
    }
  }
  return undefined;
}

/**
 * initializationOptions for a configured mode and preview choice, in the
 * settings file's shape.
 */
export function initializationOptions(mode: string | undefined, reviewInPreview = false): object {
  const opts: Record<string, unknown> = mode && isMode(mode) ? { permissions: { defaultMode: mode } } : {};
  if (reviewInPreview) {
    opts.edit = { reviewInEditor: true };
  }
  return opts;
}

/** The workspace/didChangeConfiguration settings for the preview choice. */
export function reviewSettings(reviewInPreview: boolean): object {
  return { edit: { reviewInEditor: reviewInPreview } };
}
