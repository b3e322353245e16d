/**
 * Claude Code's IDE protocol in VS Code. The server (toolhost serve) runs
 * the WebSocket and the lock file; this file answers the tools only the
 * editor can (toolhost/ideTool), gives the integrated terminals
 * CLAUDE_CODE_SSE_PORT and ENABLE_IDE_INTEGRATION, and reports the
 * selection (debounced) and "Mention in Claude Code" (toolhost/ideNotify).
 *
 * openDiff opens VS Code's diff editor with the proposal in a writable
 * in-memory file (scheme toolhost-proposal): the user edits it as any
 * file; saving it (Ctrl+S) or "Accept Proposal" accepts it as it is,
 * "Reject Proposal" or closing the diff rejects it.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { ClientNotifications } from "./logic/protocol";
import { findRange, selectionParams, severityName, type SelectionParams } from "./logic/claudeIde";
import { closeTabsOf, tabShows } from "./review";

export const PROPOSAL_SCHEME = "toolhost-proposal";

/** How long the selection must rest before it is reported. */
const SELECTION_DEBOUNCE_MS = 150;

/**
 * A writable in-memory folder for the proposals under review (Claude
 * Code's openDiff and toolhost/reviewChanges, changeReview.ts).
 */
export class ProposalFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, Uint8Array>();
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  /** Called when a proposal is saved (written) by the user. */
  onWrite: (uri: vscode.Uri) => void = () => undefined;

  set(uri: vscode.Uri, text: string): void {
    this.files.set(uri.path, new TextEncoder().encode(text));
  }
  remove(uri: vscode.Uri): void {
    this.files.delete(uri.path);
  }
  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }
  stat(uri: vscode.Uri): vscode.FileStat {
    const data = this.files.get(uri.path);
    if (!data) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return { type: vscode.FileType.File, ctime: 0, mtime: Date.now(), size: data.length };
  }
  readDirectory(): [string, vscode.FileType][] {
    return [];
  }
  createDirectory(): void {}
  readFile(uri: vscode.Uri): Uint8Array {
    const data = this.files.get(uri.path);
    if (!data) {
      throw vscode.FileSystemError.FileNotFound(uri);
    }
    return data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(uri.path, content);
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
    this.onWrite(uri);
  }
  delete(): void {}
  rename(): void {
    throw vscode.FileSystemError.NoPermissions("proposals cannot be renamed");
  }
}

interface Review {
  uri: vscode.Uri;
  settle(saved: boolean): void;
}

/** The extension's side of Claude Code's IDE protocol. */
export class ClaudeIde implements vscode.Disposable {
  readonly proposals = new ProposalFiles();
  private readonly reviews = new Map<string, Review>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private client: LanguageClient | undefined;
  private counter = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastSent = "";

  constructor(private readonly env: vscode.EnvironmentVariableCollection) {
    this.proposals.onWrite = (uri) => this.reviewOf(uri)?.settle(true);
    this.subscriptions.push(
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.proposals, { isCaseSensitive: true }),
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          for (const r of [...this.reviews.values()]) {
            if (tabShows(tab, r.uri)) {
              r.settle(false);
            }
          }
        }
      }),
      vscode.window.onDidChangeTextEditorSelection((e) => this.selectionChanged(e.textEditor)),
      vscode.commands.registerCommand("toolhost.claude.accept", (uri?: vscode.Uri) => this.answer(true, uri)),
      vscode.commands.registerCommand("toolhost.claude.reject", (uri?: vscode.Uri) => this.answer(false, uri)),
      vscode.commands.registerCommand("toolhost.claude.mention", () => this.mention()),
    );
  }

  /** The server runs: its status says whether the listener does. */
  started(client: LanguageClient, status: unknown): void {
    const ide = (status as { claudeCodeIde?: { port?: number } } | undefined)?.claudeCodeIde;
    this.client = client;
    if (!ide?.port) {
      this.env.clear();
      return;
    }
    this.env.description = "toolhost: lets the Claude Code CLI use this window as its IDE";
    this.env.replace("CLAUDE_CODE_SSE_PORT", String(ide.port));
    this.env.replace("ENABLE_IDE_INTEGRATION", "true");
  }

  /** The server stopped: the terminals lose the port, the reviews are rejected. */
  stopped(): void {
    this.client = undefined;
    this.env.clear();
    for (const r of [...this.reviews.values()]) {
      r.settle(false);
    }
  }

  /** Answers toolhost/ideTool. */
  async tool(params: { name?: string; arguments?: Record<string, unknown> }, token: vscode.CancellationToken): Promise<unknown> {
    const args = params?.arguments ?? {};
    const str = (k: string) => (typeof args[k] === "string" ? (args[k] as string) : "");
    switch (params?.name) {
      case "openDiff":
        return this.openDiff(str("old_file_path") || str("new_file_path"), str("new_file_contents"), str("tab_name"), token);
      case "close_tab":
        this.reviews.get(str("tab_name"))?.settle(false);
        return {};
      case "closeAllDiffTabs": {
        const all = [...this.reviews.values()];
        all.forEach((r) => r.settle(false));
        return { closed: all.length };
      }
      case "getDiagnostics":
        return diagnostics(str("uri"));
      case "getOpenEditors":
        return openEditors();
      case "getCurrentSelection": {
        const ed = vscode.window.activeTextEditor;
        return ed && ed.document.uri.scheme === "file" ? { success: true, ...selectionOf(ed) } : { success: false, message: "No active editor found" };
      }
      case "saveDocument": {
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === str("filePath"));
        if (!doc) {
          return { success: false, message: `Document not open: ${str("filePath")}` };
        }
        const saved = await doc.save();
        return { success: saved, filePath: str("filePath"), saved, message: saved ? "Document saved successfully" : "The document could not be saved" };
      }
      case "openFile":
        return openFile(str("filePath"), args);
    }
    throw new Error(`toolhost: the IDE tool ${params?.name} is not one this extension answers`);
  }

  private async openDiff(file: string, proposal: string, tabName: string, token: vscode.CancellationToken): Promise<{ saved: boolean; text?: string }> {
    this.reviews.get(tabName)?.settle(false);
    const id = ++this.counter;
    const uri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${id}/${path.basename(file)}` });
    this.proposals.set(uri, proposal);
    let left = vscode.Uri.file(file);
    const exists = await vscode.workspace.fs.stat(left).then(() => true, () => false);
    if (!exists && !vscode.workspace.textDocuments.some((d) => d.uri.toString() === left.toString())) {
      left = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${id}/empty/${path.basename(file)}` });
      this.proposals.set(left, "");
    }
    let settle!: (saved: boolean) => void;
    const answered = new Promise<boolean>((resolve) => (settle = resolve));
    const review: Review = { uri, settle: (saved) => settle(saved) };
    this.reviews.set(tabName, review);
    const cancelled = token.onCancellationRequested(() => settle(false));
    try {
      const title = `${vscode.workspace.asRelativePath(file)}: current ↔ Claude's proposal (editable; save to accept)`;
      await vscode.commands.executeCommand("vscode.diff", left, uri, title, { preview: false });
      const saved = await answered;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      const text = doc ? doc.getText() : new TextDecoder().decode(this.proposals.readFile(uri));
      if (doc?.isDirty) {
        // Written to the in-memory folder only, so closing the tab asks nothing.
        await doc.save();
      }
      return saved ? { saved: true, text } : { saved: false };
    } finally {
      cancelled.dispose();
      if (this.reviews.get(tabName) === review) {
        this.reviews.delete(tabName);
      }
      await closeTabsOf(uri);
      this.proposals.remove(uri);
    }
  }

  private reviewOf(uri: vscode.Uri): Review | undefined {
    return [...this.reviews.values()].find((r) => r.uri.toString() === uri.toString());
  }

  private answer(saved: boolean, uri?: vscode.Uri): void {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    const r = (target && this.reviewOf(target)) ?? [...this.reviews.values()].pop();
    if (!r) {
      void vscode.window.showInformationMessage("toolhost: no Claude Code proposal is waiting.");
      return;
    }
    r.settle(saved);
  }

  private notify(method: string, params: unknown): void {
    void this.client?.sendNotification(ClientNotifications.ideNotify, { method, params }).catch(() => undefined);
  }

  private selectionChanged(editor: vscode.TextEditor): void {
    if (editor.document.uri.scheme !== "file" || !this.client) {
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const params = selectionOf(editor);
      const key = JSON.stringify(params);
      if (key !== this.lastSent) {
        this.lastSent = key;
        this.notify("selection_changed", params);
      }
    }, SELECTION_DEBOUNCE_MS);
  }

  /** "toolhost: Mention in Claude Code": the selected lines as at_mentioned. */
  private mention(): void {
    const ed = vscode.window.activeTextEditor;
    if (!ed || ed.document.uri.scheme !== "file" || !this.client) {
      void vscode.window.showInformationMessage("toolhost: open a file, select lines, and run the Claude Code CLI in a terminal of this window.");
      return;
    }
    this.notify("at_mentioned", { filePath: ed.document.uri.fsPath, lineStart: ed.selection.start.line, lineEnd: ed.selection.end.line });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.stopped();
    this.subscriptions.forEach((s) => s.dispose());
  }
}

function selectionOf(ed: vscode.TextEditor): SelectionParams {
  const s = ed.selection;
  return selectionParams(ed.document.getText(s), ed.document.uri.fsPath, ed.document.uri.toString(),
    { line: s.start.line, character: s.start.character }, { line: s.end.line, character: s.end.character });
}

function diagnostics(uri: string): unknown[] {
  const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = uri
    ? [[vscode.Uri.parse(uri), vscode.languages.getDiagnostics(vscode.Uri.parse(uri))]]
    : vscode.languages.getDiagnostics().filter(([, d]) => d.length > 0);
  return entries.map(([u, ds]) => ({
    uri: u.toString(),
    diagnostics: ds.map((d) => ({
      message: d.message,
      severity: severityName(d.severity),
      source: d.source,
      code: typeof d.code === "object" ? d.code.value : d.code,
      range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
    })),
  }));
}

function openEditors(): unknown {
  const tabs = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (!(tab.input instanceof vscode.TabInputText) || tab.input.uri.scheme !== "file") {
        continue;
      }
      const uri = tab.input.uri;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      tabs.push({ uri: uri.toString(), isActive: tab.isActive && group.isActive, label: tab.label, languageId: doc?.languageId, isDirty: tab.isDirty });
    }
  }
  return { tabs };
}

async function openFile(file: string, args: Record<string, unknown>): Promise<unknown> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const front = args.makeFrontmost !== false;
  const ed = await vscode.window.showTextDocument(doc, { preview: args.preview === true, preserveFocus: !front });
  if (typeof args.startText === "string" && args.startText) {
    const r = findRange(doc.getText(), args.startText, typeof args.endText === "string" ? args.endText : undefined, args.selectToEndOfLine === true);
    if (r) {
      ed.selection = new vscode.Selection(doc.positionAt(r.start), doc.positionAt(r.end));
      ed.revealRange(ed.selection);
    }
  }
  return { success: true, filePath: file, languageId: doc.languageId, lineCount: doc.lineCount };
}
