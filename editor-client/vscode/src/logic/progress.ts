/**
 * A running call's progress as a notification shows it. The server's
 * reports are the last lines of a command's output, with their line
 * breaks; a VS Code notification is one line (it folds line breaks into
 * spaces, which would run "step 1 step 2" together), so it shows the last
 * line that has text.
 */

/** Longest line shown; a notification cuts longer text anyway. */
export const MAX_PROGRESS_CHARS = 200;

/** The last line of `message` that has text, trimmed and cut to MAX_PROGRESS_CHARS. */
export function progressLine(message: string | undefined): string | undefined {
  const lines = (message ?? "").split(/\r?\n|\r/).map((l) => l.trim()).filter((l) => l !== "");
  const last = lines[lines.length - 1];
  if (last === undefined) {
    return undefined;
  }
  return last.length > MAX_PROGRESS_CHARS ? `${last.slice(0, MAX_PROGRESS_CHARS)}…` : last;
}
