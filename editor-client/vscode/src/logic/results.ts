/**
 * A tool result (`toolhost/callTool`) or status (`toolhost/status`) as the
 * text of a read-only document.
 */
import type { TrustState } from "./trust";

/** One content block of a result. */
export interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  source?: { media_type?: string; data?: string };
}

/** The result of `toolhost/callTool`. */
export interface CallToolResult {
  content?: ContentBlock[];
  isError?: boolean;
  structured?: unknown;
  durationMs?: number;
}

/** Renders a result as Markdown: a heading, the answer, then the input. */
export function formatResult(name: string, input: unknown, result: CallToolResult): string {
  const state = result.isError ? "error" : "ok";
  const took = typeof result.durationMs === "number" ? `, ${result.durationMs} ms` : "";
  const lines = [`# ${name} — ${state}${took}`, ""];
  for (const block of result.content ?? []) {
    if (block.type === "text") {
      lines.push(fence(block.text ?? ""), "");
    } else if (block.type === "image") {
      const mime = block.mimeType ?? block.source?.media_type ?? "image";
      const data = block.data ?? block.source?.data ?? "";
      lines.push(`[${mime}, ${Math.floor((data.length * 3) / 4)} bytes]`, "");
    } else {
      lines.push(fence(JSON.stringify(block, null, 2), "json"), "");
    }
  }
  lines.push("Input:", "", fence(JSON.stringify(input, null, 2), "json"), "");
  return lines.join("\n");
}

/** What the extension knows about the server, shown above its status. */
export interface StatusHeader {
  version?: string;
  binary?: string;
  state?: string;
}

/** Keys whose values are credentials: never shown in a document. */
const SECRET_KEY = /token|secret|password|apikey|authorization/i;

/**
 * A copy of value with every credential (a key named like a token or
 * secret, at any depth) replaced by "(hidden)": a status document can be
 * read by any extension and seen on any screen share.
 */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(withoutSecrets);
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_KEY.test(k) && v !== undefined && v !== "" ? "(hidden)" : withoutSecrets(v)]),
    );
  }
  return value;
}

/** Renders `toolhost/status` as Markdown for a person; unknown fields as JSON; credentials hidden. */
export function formatStatus(raw: Record<string, unknown>, header: StatusHeader = {}): string {
  const status = withoutSecrets(raw) as Record<string, unknown>;
  const lines = ["# toolhost status", ""];
  if (typeof status.permissionMode === "string") {
    lines.push(`Permission mode: **${status.permissionMode}**`, "");
  }
  const facts: Array<[string, unknown]> = [
    ["Server", header.state],
    ["Version", header.version],
    ["Binary", header.binary],
    ["Roots", Array.isArray(status.roots) ? status.roots.join(", ") : status.roots],
    ["Edit review", editReviewText(status.editReview)],
    ["Position encoding", status.positionEncoding],
  ];
  const shown = facts.filter(([, v]) => v !== undefined && v !== "");
  for (const [k, v] of shown) {
    lines.push(`- ${k}: ${String(v)}`);
  }
  if (shown.length > 0) {
    lines.push("");
  }
  const known = new Set(["permissionMode", "roots", "editReview", "positionEncoding"]);
  // Trust first: the status bar's "N folder settings ignored" opens this
  // document, and the list it counts must be in view, not below the tools.
  const entries = Object.entries(status).sort(([a], [b]) => Number(b === "trust") - Number(a === "trust"));
  for (const [key, value] of entries) {
    if (known.has(key)) {
      continue;
    }
    lines.push(`## ${key}`, "");
    if (key === "tools" && Array.isArray(value)) {
      lines.push(...toolTable(value as Array<Record<string, unknown>>), "");
    } else if (key === "settingsProblems" && Array.isArray(value)) {
      lines.push(...(value.length === 0 ? ["None."] : (value as Array<Record<string, unknown>>).map((p) => `- ${p.file}${p.key ? ` (${p.key})` : ""}: ${p.message}`)), "");
    } else if (key === "trust" && value !== null && typeof value === "object") {
      lines.push(...trustLines(value as TrustState), "");
    } else if (key === "mcpServers" && Array.isArray(value)) {
      lines.push(...(value.length === 0 ? ["None."] : (value as Array<Record<string, unknown>>).map((m) => `- ${m.name} (${m.source}, ${m.transport}): ${m.state}${m.lastError ? ` — ${m.lastError}` : ""}`)), "");
    } else {
      lines.push(fence(JSON.stringify(value, null, 2), "json"), "");
    }
  }
  return lines.join("\n");
}

/**
 * Where VS Code shows an edit that needs approval, for the server's
 * `editReview`: "dialog" is the server asking by a permission request,
 * which this extension shows in the diff editor; "editor" is the edit
 * arriving for confirmation, which VS Code shows in its Refactor Preview;
 * "turn" is a turn's changes reviewed as one (toolhost/reviewChanges).
 */
export function editReviewText(editReview: unknown): string | undefined {
  switch (editReview) {
    case "dialog":
      return "diff editor (Allow or Deny in its title bar)";
    case "editor":
      return "Refactor Preview (toolhost.reviewEditsInPreview)";
    case "turn":
      return "one review per turn, every file's hunks in it (toolhost.reviewChangesAsOne)";
    default:
      return editReview === undefined ? undefined : String(editReview);
  }
}

/** The trust section: each root, and every folder setting ignored, listed. */
function trustLines(trust: TrustState): string[] {
  const lines = (trust.roots ?? []).map((r) => `- ${r.root}: ${r.trusted ? "trusted" : "not trusted"}${r.reason ? ` (${r.reason})` : ""}`);
  const ignored = trust.ignored ?? [];
  if (ignored.length > 0) {
    lines.push("", `### ${ignored.length} folder setting${ignored.length === 1 ? "" : "s"} ignored until the folder is trusted`, "");
    lines.push(...ignored.map((i) => `- ${i.what} (${i.file}${i.key ? `, ${i.key}` : ""})`));
  }
  return lines.length > 0 ? lines : ["Nothing to trust."];
}

/** Wraps text in a code fence long enough not to clash with fences inside it. */
export function fence(text: string, lang = ""): string {
  let ticks = "```";
  while (text.includes(ticks)) {
    ticks += "`";
  }
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** The tools of a status as a Markdown table. */
function toolTable(tools: Array<Record<string, unknown>>): string[] {
  const cell = (v: unknown) => String(v ?? "").replace(/\|/g, "\\|");
  return [
    "| tool | category | enabled |",
    "| --- | --- | --- |",
    ...tools.map((t) => `| ${cell(t.name)} | ${cell(t.category)} | ${t.enabled === false ? "no" : "yes"} |`),
  ];
}
