/**
 * Claude Code's IDE protocol, the parts without VS Code: whether the
 * extension serves it, and the shapes of its answers.
 */

/** Anthropic's own extension, which is the CLI's IDE in VS Code when enabled. */
export const ANTHROPIC_EXTENSION_ID = "anthropic.claude-code";

/**
 * Whether the server should serve Claude Code's IDE protocol: the setting
 * `toolhost.claudeCodeIde` ("auto", the default, means "unless Anthropic's
 * extension is enabled", so the CLI does not find two IDEs for one window).
 */
export function claudeIdeEnabled(setting: string | undefined, anthropicEnabled: boolean): boolean {
  switch (setting) {
    case "on":
      return true;
    case "off":
      return false;
    default:
      return !anthropicEnabled;
  }
}

/** VS Code's DiagnosticSeverity (0 Error … 3 Hint) as the protocol names it. */
export function severityName(severity: number): string {
  return ["Error", "Warning", "Information", "Hint"][severity] ?? "Error";
}

export interface Position {
  line: number;
  character: number;
}

/** selection_changed params (0-based lines and characters). */
export interface SelectionParams {
  text: string;
  filePath: string;
  fileUrl: string;
  selection: { start: Position; end: Position; isEmpty: boolean };
}

export function selectionParams(text: string, filePath: string, fileUrl: string, start: Position, end: Position): SelectionParams {
  return { text, filePath, fileUrl, selection: { start, end, isEmpty: start.line === end.line && start.character === end.character } };
}

/** Where startText (and endText after it) occur in text, as offsets; undefined when startText is absent. */
export function findRange(text: string, startText: string, endText?: string, toEndOfLine = false): { start: number; end: number } | undefined {
  const start = text.indexOf(startText);
  if (start < 0) {
    return undefined;
  }
  let end = start + startText.length;
  if (endText) {
    const e = text.indexOf(endText, start);
    if (e >= 0) {
      end = e + endText.length;
    }
  }
  if (toEndOfLine) {
    const nl = text.indexOf("\n", end);
    end = nl < 0 ? text.length : nl;
  }
  return { start, end };
}
