/**
 * Diagnostics asked of VS Code's TypeScript server directly.
 *
 * VS Code's TypeScript reports a document's diagnostics some time after a
 * change, in several steps, and not at all when nothing changed (an edit of
 * a clean file fires no event). Waiting for its reports after an agent's
 * edit either took the whole bound or, on a loaded machine, took a late
 * report about the text before the edit for the answer. The TypeScript
 * extension lets other extensions ask its server for a document's
 * syntactic and semantic diagnostics (`typescript.tsserverRequest` with
 * `syntacticDiagnosticsSync` and `semanticDiagnosticsSync`); it sends the
 * document's pending changes first, so the answer is about the text as it
 * is now. This file turns that answer into what the editor would show.
 */

/** A position as tsserver gives it: 1-based line and UTF-16 offset. */
export interface TsLocation {
  line: number;
  offset: number;
}

/** A diagnostic as tsserver's `*DiagnosticsSync` requests return it. */
export interface TsServerDiagnostic {
  start: TsLocation;
  end: TsLocation;
  text: string;
  code?: number;
  category: string;
  source?: string;
}

/** A diagnostic in the shape toolhost/diagnostics answers (LSP's). */
export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  message: string;
  code?: string | number;
  source?: string;
}

/** The source VS Code's TypeScript gives diagnostics that name none. */
export const TS_SOURCE = "ts";

/** The languages whose documents VS Code's TypeScript checks. */
export const TS_LANGUAGES: ReadonlySet<string> = new Set(["typescript", "typescriptreact", "javascript", "javascriptreact"]);

/**
 * Codes the TypeScript extension reports as warnings rather than errors
 * while `reportStyleChecksAsWarnings` is on (its default): unused
 * declarations, unreachable code, unused labels, fallthrough, and not all
 * paths returning.
 */
const STYLE_CHECK_CODES: ReadonlySet<number> = new Set([6133, 6138, 6192, 6196, 7027, 7028, 7029, 7030]);

const ERROR = 1;
const WARNING = 2;

function isTsLocation(v: unknown): v is TsLocation {
  const l = v as TsLocation;
  return typeof l === "object" && l !== null && Number.isInteger(l.line) && Number.isInteger(l.offset);
}

function isTsServerDiagnostic(v: unknown): v is TsServerDiagnostic {
  const d = v as TsServerDiagnostic;
  return typeof d === "object" && d !== null && isTsLocation(d.start) && isTsLocation(d.end) &&
    typeof d.text === "string" && typeof d.category === "string";
}

/**
 * The diagnostics in tsserver's answers to the `*DiagnosticsSync` requests
 * (each `{type: "response", success: true, body: [...]}`), or undefined
 * when an answer is missing, failed or not of that shape: the caller then
 * falls back to waiting for the editor's reports.
 */
export function tsAnswerDiagnostics(answers: unknown[]): TsServerDiagnostic[] | undefined {
  const all: TsServerDiagnostic[] = [];
  for (const a of answers) {
    const r = a as { type?: unknown; success?: unknown; body?: unknown };
    if (typeof r !== "object" || r === null || r.type !== "response" || r.success !== true || !Array.isArray(r.body)) {
      return undefined;
    }
    if (!r.body.every(isTsServerDiagnostic)) {
      return undefined;
    }
    all.push(...r.body);
  }
  return all;
}

/**
 * The errors and warnings among ds as VS Code's TypeScript shows them:
 * 0-based positions, the error category a warning for a style check when
 * styleChecksAsWarnings, suggestions (hints) left out: toolhost adds only
 * errors and warnings to an edit's result.
 */
export function tsProblems(ds: TsServerDiagnostic[], styleChecksAsWarnings: boolean): LspDiagnostic[] {
  const out: LspDiagnostic[] = [];
  for (const d of ds) {
    // As VS Code's TypeScript converts them: suggestions are hints (left
    // out), a warning is one, and any other category an error.
    let severity: number;
    if (d.category === "suggestion") {
      continue;
    } else if (d.category === "warning") {
      severity = WARNING;
    } else if (d.category === "error" && styleChecksAsWarnings && d.code !== undefined && STYLE_CHECK_CODES.has(d.code)) {
      severity = WARNING;
    } else {
      severity = ERROR;
    }
    out.push({
      range: {
        start: { line: d.start.line - 1, character: d.start.offset - 1 },
        end: { line: d.end.line - 1, character: d.end.offset - 1 },
      },
      severity,
      message: d.text,
      code: d.code,
      source: d.source || TS_SOURCE,
    });
  }
  return out;
}

/**
 * A document's diagnostics with TypeScript's errors and warnings replaced
 * by asked, its server's answer about the text as it is now. The editor's
 * reports from other sources (a linter, say) and TypeScript's hints stay.
 */
export function withTsAnswer(editor: LspDiagnostic[], asked: LspDiagnostic[]): LspDiagnostic[] {
  const tsSources = new Set(asked.map((d) => d.source));
  tsSources.add(TS_SOURCE);
  const replaced = (d: LspDiagnostic) => tsSources.has(d.source) && d.severity <= WARNING;
  return [...editor.filter((d) => !replaced(d)), ...asked];
}
