/**
 * A tool result (`toolhost/callTool`) or status (`toolhost/status`) as the
 * text of a read-only document.
 */

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

/** Renders a result as Markdown: a heading, the input, the content. */
export function formatResult(name: string, input: unknown, result: CallToolResult): string {
  const state = result.isError ? "error" : "ok";
  const took = typeof result.durationMs === "number" ? `, ${result.durationMs} ms` : "";
  const lines = [`# ${name} — ${state}${took}`, "", "Input:", "", fence(JSON.stringify(input, null, 2), "json"), "", "Result:", ""];
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
  return lines.join("\n");
}

/** Renders `toolhost/status` as Markdown; unknown fields as JSON. */
export function formatStatus(status: Record<string, unknown>): string {
  const lines = ["# toolhost status", ""];
  if (typeof status.permissionMode === "string") {
    lines.push(`Permission mode: **${status.permissionMode}**`, "");
  }
  for (const [key, value] of Object.entries(status)) {
    if (key === "permissionMode") {
      continue;
    }
    lines.push(`## ${key}`, "");
    if (key === "tools" && Array.isArray(value)) {
      lines.push(...toolTable(value as Array<Record<string, unknown>>), "");
    } else {
      lines.push(fence(JSON.stringify(value, null, 2), "json"), "");
    }
  }
  return lines.join("\n");
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
