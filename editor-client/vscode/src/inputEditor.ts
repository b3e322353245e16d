/**
 * Run Tool's JSON editor: a tool's input written in a real editor, multi-line,
 * checked against the tool's schema by VS Code's JSON support (the document
 * names the schema file next to it in "$schema"), and run from the editor's
 * title bar. The files live in the extension's storage folder.
 */
import * as path from "node:path";
import * as vscode from "vscode";

/** The folder (under the extension's storage) that holds input documents. */
export const INPUT_FOLDER = "toolhost-inputs";
const SUFFIX = ".input.json";

/** Opens `<tool>.input.json` with `value` (the input so far) and the tool's schema beside it. */
export async function openInputEditor(storage: vscode.Uri, name: string, schema: unknown, value: string): Promise<void> {
  const dir = vscode.Uri.joinPath(storage, INPUT_FOLDER);
  await vscode.workspace.fs.createDirectory(dir);
  const schemaUri = vscode.Uri.joinPath(dir, `${name}.schema.json`);
  await vscode.workspace.fs.writeFile(schemaUri, Buffer.from(JSON.stringify(schema ?? {}, null, 2)));
  let input: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(value);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) {
      input = parsed as Record<string, unknown>;
    }
  } catch {
    // A half-typed input starts over from an empty object.
  }
  const uri = vscode.Uri.joinPath(dir, `${name}${SUFFIX}`);
  await vscode.workspace.fs.writeFile(uri, Buffer.from(JSON.stringify({ $schema: schemaUri.toString(), ...input }, null, 2) + "\n"));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  vscode.window.setStatusBarMessage(`toolhost: write the input of ${name}, then press Run (▶) in the editor's title bar`, 10000);
}

/** The tool an input document is for, or undefined when `uri` is not one. */
export function inputToolName(uri: vscode.Uri): string | undefined {
  const base = path.basename(uri.fsPath);
  if (path.basename(path.dirname(uri.fsPath)) !== INPUT_FOLDER || !base.endsWith(SUFFIX)) {
    return undefined;
  }
  return base.slice(0, -SUFFIX.length);
}

/** The schema stored beside an input document. */
export async function inputSchema(uri: vscode.Uri, name: string): Promise<unknown> {
  const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(uri, "..", `${name}.schema.json`));
  return JSON.parse(Buffer.from(bytes).toString("utf8"));
}
