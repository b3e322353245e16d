/**
 * The editor's language intelligence for the agent: `toolhost/diagnostics`
 * answered from VS Code's diagnostics (a TypeScript or JavaScript
 * document's asked of VS Code's TypeScript server about its text as it is
 * now; other languages' waited for, within the server's bound, to follow
 * an edit the agent just made), and
 * `toolhost/languageFeature` answered by the language servers VS Code
 * runs, through its `vscode.execute*Provider` commands.
 */
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { untilCancelled } from "./logic/cancel";
import { ServerRequests } from "./logic/protocol";
import { LspDiagnostic, TS_LANGUAGES, tsAnswerDiagnostics, tsProblems, withTsAnswer } from "./logic/tsDiagnostics";

/** How long diagnostics must stay unchanged to count as settled. */
const QUIET_MS = 200;

/** How long a request without a wait (the diagnostics before an edit, the
 * getDiagnostics tool) gives TypeScript's server to answer before the
 * editor's last reports are taken instead. */
const ASK_BOUND_MS = 5000;

interface DiagnosticsParams {
  uris?: string[];
  waitMs?: number;
}

interface LspPosition {
  line: number;
  character: number;
}

interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

interface LanguageFeatureParams {
  operation: string;
  uri: string;
  position: LspPosition;
  query?: string;
}

/** The language of the open document key, if it is open. */
function languageOf(key: string): string | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key)?.languageId;
}

/**
 * Counts, per document, the changes of its diagnostics and remembers the
 * count when the agent's last edit of it began, so a wait knows whether the
 * diagnostics it sees already follow that edit.
 */
export class DiagnosticsTracker implements vscode.Disposable {
  private readonly changes = new Map<string, number>();
  private readonly editedAt = new Map<string, number>();
  /**
   * The languages of the documents whose diagnostics changed this session:
   * some extension reports on them. Unlike Neovim's, VS Code's API does
   * not say which documents a language server watches; without this, an
   * edit of a file no extension reports on (plain text, a language without
   * its extension) waited out the whole bound for a report never coming.
   */
  private readonly reportedLanguages = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly subscription: vscode.Disposable;

  constructor() {
    this.subscription = vscode.languages.onDidChangeDiagnostics((e) => {
      for (const uri of e.uris) {
        const key = uri.toString();
        this.changes.set(key, (this.changes.get(key) ?? 0) + 1);
        const language = languageOf(key);
        if (language) {
          this.reportedLanguages.add(language);
        }
      }
      for (const l of [...this.listeners]) {
        l();
      }
    });
  }

  /** Marks that an edit of these documents (protocol URIs) begins now. */
  editing(uris: string[]): void {
    for (const u of uris) {
      const key = vscode.Uri.parse(u).toString();
      this.editedAt.set(key, this.changes.get(key) ?? 0);
    }
  }

  /** Whether key was edited and its diagnostics changed since. */
  private followed(key: string): boolean {
    const at = this.editedAt.get(key);
    return at === undefined || (this.changes.get(key) ?? 0) > at;
  }

  /**
   * Waits, at most waitMs, until each of keys had its diagnostics change
   * after its last edit and then stay unchanged for QUIET_MS. A document of
   * a language nothing has reported on this session is not waited for.
   */
  settle(keys: string[], waitMs: number, token: vscode.CancellationToken): Promise<void> {
    const pending = keys.filter((k) => this.editedAt.has(k) && this.reportedLanguages.has(languageOf(k) ?? ""));
    if (waitMs <= 0 || pending.length === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(deadline);
        clearTimeout(quiet);
        this.listeners.delete(check);
        cancelled.dispose();
        resolve();
      };
      const check = () => {
        if (!pending.every((k) => this.followed(k))) {
          return;
        }
        clearTimeout(quiet);
        quiet = setTimeout(finish, QUIET_MS);
      };
      const deadline = setTimeout(finish, waitMs);
      const cancelled = token.onCancellationRequested(finish);
      this.listeners.add(check);
      check();
    });
  }

  dispose(): void {
    this.subscription.dispose();
    this.listeners.clear();
  }
}

/** LSP severity (1 error .. 4 hint) of a VS Code one (0 error .. 3 hint). */
function lspSeverity(s: vscode.DiagnosticSeverity): number {
  return s + 1;
}

function lspPosition(p: vscode.Position): LspPosition {
  return { line: p.line, character: p.character };
}

function lspRange(r: vscode.Range): LspRange {
  return { start: lspPosition(r.start), end: lspPosition(r.end) };
}

function lspDiagnostic(d: vscode.Diagnostic): LspDiagnostic {
  let code: string | number | undefined;
  if (typeof d.code === "object" && d.code !== null) {
    code = d.code.value;
  } else {
    code = d.code;
  }
  return { range: lspRange(d.range), severity: lspSeverity(d.severity), message: d.message, code, source: d.source };
}

/** Resolves to what p resolves to, or to undefined after ms, on cancellation or when p fails. */
async function within<T>(p: Promise<T>, ms: number, token: vscode.CancellationToken): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await untilCancelled(Promise.race([p.catch(() => undefined), deadline]), token, undefined);
  } finally {
    clearTimeout(timer);
  }
}

/** File names VS Code's TypeScript checks, for a document not open yet. */
const TS_FILE = /\.(?:[cm]?[jt]s|[jt]sx)$/i;

/**
 * The errors and warnings of a TypeScript or JavaScript document as VS
 * Code's TypeScript server reports them for its text as it is now, or
 * undefined when the document is of another language, its validation is
 * off, or the server does not answer within ms. A file not open yet is
 * opened (not shown): the agent is about to edit it, or asks about it, and
 * the diagnostics before an edit must be its server's too, or every
 * problem the file had would pass for one the edit made.
 */
async function askTypeScript(uri: vscode.Uri, ms: number, token: vscode.CancellationToken): Promise<LspDiagnostic[] | undefined> {
  const deadline = Date.now() + ms;
  let doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (!doc && uri.scheme === "file" && TS_FILE.test(uri.path) && ms > 0) {
    doc = await within(Promise.resolve(vscode.workspace.openTextDocument(uri)), ms, token);
  }
  ms = deadline - Date.now();
  if (!doc || !TS_LANGUAGES.has(doc.languageId) || ms <= 0) {
    return undefined;
  }
  const section = doc.languageId.startsWith("typescript") ? "typescript" : "javascript";
  if (!vscode.workspace.getConfiguration(section, uri).get<boolean>("validate.enable", true)) {
    return undefined;
  }
  const ask = (command: string) => vscode.commands.executeCommand<unknown>("typescript.tsserverRequest", command, { file: uri });
  const answers = await within(Promise.all([ask("syntacticDiagnosticsSync"), ask("semanticDiagnosticsSync")]), ms, token);
  const ds = answers && tsAnswerDiagnostics(answers);
  if (!ds) {
    return undefined;
  }
  const styleChecksAsWarnings = vscode.workspace.getConfiguration("typescript", uri).get<boolean>("reportStyleChecksAsWarnings", true);
  return tsProblems(ds, styleChecksAsWarnings);
}

/**
 * Answers toolhost/diagnostics. TypeScript's server is asked about the
 * documents it checks (no event, and no late report about the text before
 * the edit, can then pass for the answer); the other documents' reports
 * are waited for as settle says, in what is left of the wait.
 */
export async function diagnostics(tracker: DiagnosticsTracker, params: DiagnosticsParams, token: vscode.CancellationToken): Promise<object> {
  const uris = (params?.uris ?? []).map((u) => vscode.Uri.parse(u));
  const waitMs = params?.waitMs ?? 0;
  const started = Date.now();
  const asked = await Promise.all(uris.map((u) => askTypeScript(u, waitMs > 0 ? waitMs : ASK_BOUND_MS, token)));
  const unasked = uris.filter((_, i) => asked[i] === undefined).map((u) => u.toString());
  await tracker.settle(unasked, waitMs - (Date.now() - started), token);
  if (uris.length > 0) {
    const items = uris.flatMap((u, i) => {
      if (u.scheme !== "file") {
        return [];
      }
      const editor = vscode.languages.getDiagnostics(u).map(lspDiagnostic);
      const ts = asked[i];
      return [{ uri: u.toString(), diagnostics: ts ? withTsAnswer(editor, ts) : editor }];
    });
    return { items };
  }
  const items = vscode.languages
    .getDiagnostics()
    .filter(([u, ds]) => u.scheme === "file" && ds.length > 0)
    .map(([u, ds]) => ({ uri: u.toString(), diagnostics: ds.map(lspDiagnostic) }));
  return { items };
}

type Located = vscode.Location | vscode.LocationLink;

function lspLocation(l: Located): object {
  if ("targetUri" in l) {
    return { uri: l.targetUri.toString(), range: lspRange(l.targetSelectionRange ?? l.targetRange) };
  }
  return { uri: l.uri.toString(), range: lspRange(l.range) };
}

/** Hover contents as one markdown text. */
function hoverText(hovers: vscode.Hover[]): string {
  const parts: string[] = [];
  for (const h of hovers) {
    for (const c of h.contents) {
      if (typeof c === "string") {
        parts.push(c);
      } else if ("language" in c) {
        parts.push("```" + c.language + "\n" + c.value + "\n```");
      } else {
        parts.push(c.value);
      }
    }
  }
  return parts.join("\n\n");
}

function lspDocumentSymbol(s: vscode.DocumentSymbol | vscode.SymbolInformation): object {
  // vscode.executeDocumentSymbolProvider answers objects that are both a
  // SymbolInformation and a DocumentSymbol: read them as the tree they are
  // (with children), or a file's members are lost.
  if (!("children" in s)) {
    return { name: s.name, kind: s.kind + 1, containerName: s.containerName, location: lspLocation(s.location) };
  }
  return {
    name: s.name,
    detail: s.detail,
    kind: s.kind + 1,
    range: lspRange(s.range),
    selectionRange: lspRange(s.selectionRange),
    children: s.children.map(lspDocumentSymbol),
  };
}

function lspCallItem(i: vscode.CallHierarchyItem): object {
  return { name: i.name, kind: i.kind + 1, detail: i.detail, uri: i.uri.toString(), range: lspRange(i.range), selectionRange: lspRange(i.selectionRange) };
}

/** Answers toolhost/languageFeature with the language servers' result, in LSP's shape. */
export async function languageFeature(params: LanguageFeatureParams): Promise<unknown> {
  const uri = vscode.Uri.parse(params.uri);
  // Opening the document (without showing it) lets its language server see it.
  await vscode.workspace.openTextDocument(uri);
  const pos = new vscode.Position(params.position.line, params.position.character);
  const exec = <T>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);
  switch (params.operation) {
    case "goToDefinition":
      return ((await exec<Located[]>("vscode.executeDefinitionProvider", uri, pos)) ?? []).map(lspLocation);
    case "goToImplementation":
      return ((await exec<Located[]>("vscode.executeImplementationProvider", uri, pos)) ?? []).map(lspLocation);
    case "findReferences":
      return ((await exec<vscode.Location[]>("vscode.executeReferenceProvider", uri, pos)) ?? []).map(lspLocation);
    case "hover": {
      const hovers = (await exec<vscode.Hover[]>("vscode.executeHoverProvider", uri, pos)) ?? [];
      if (hovers.length === 0) {
        return null;
      }
      const range = hovers.find((h) => h.range)?.range;
      return { contents: { kind: "markdown", value: hoverText(hovers) }, range: range ? lspRange(range) : undefined };
    }
    case "documentSymbol":
      return ((await exec<(vscode.DocumentSymbol | vscode.SymbolInformation)[]>("vscode.executeDocumentSymbolProvider", uri)) ?? []).map(
        lspDocumentSymbol,
      );
    case "workspaceSymbol":
      return ((await exec<vscode.SymbolInformation[]>("vscode.executeWorkspaceSymbolProvider", params.query ?? "")) ?? []).map(
        lspDocumentSymbol,
      );
    case "prepareCallHierarchy":
      return ((await exec<vscode.CallHierarchyItem[]>("vscode.prepareCallHierarchy", uri, pos)) ?? []).map(lspCallItem);
    case "incomingCalls":
    case "outgoingCalls": {
      const items = (await exec<vscode.CallHierarchyItem[]>("vscode.prepareCallHierarchy", uri, pos)) ?? [];
      if (items.length === 0) {
        return [];
      }
      if (params.operation === "incomingCalls") {
        const calls = (await exec<vscode.CallHierarchyIncomingCall[]>("vscode.provideIncomingCalls", items[0])) ?? [];
        return calls.map((c) => ({ from: lspCallItem(c.from), fromRanges: c.fromRanges.map(lspRange) }));
      }
      const calls = (await exec<vscode.CallHierarchyOutgoingCall[]>("vscode.provideOutgoingCalls", items[0])) ?? [];
      return calls.map((c) => ({ to: lspCallItem(c.to), fromRanges: c.fromRanges.map(lspRange) }));
    }
  }
  throw new Error(`unknown operation ${JSON.stringify(params.operation)}`);
}

/** Answers the language requests for client; the tracker is disposed with the returned disposable. */
export function registerIntel(client: LanguageClient, tracker: DiagnosticsTracker): void {
  client.onRequest(ServerRequests.diagnostics, (params: DiagnosticsParams, token: vscode.CancellationToken) =>
    diagnostics(tracker, params, token),
  );
  client.onRequest(ServerRequests.languageFeature, (params: LanguageFeatureParams) => languageFeature(params));
}
