/**
 * The tool list of `toolhost/listTools` as the "Run Tool…" picker shows it.
 * The server answers in the format asked for (anthropic, openai or mcp), so
 * the name and schema are read from wherever that format keeps them.
 */

/** A tool as listed by the server; the fields vary by format. */
export interface ListedTool {
  name?: string;
  description?: string;
  input_schema?: object;
  inputSchema?: object;
  parameters?: object;
  function?: { name?: string; description?: string; parameters?: object };
  category?: string;
  sideEffect?: string;
  risk?: string;
  enabled?: boolean;
  docs?: { short?: string; long?: string; examples?: unknown[] };
}

/** What the picker needs of one tool. */
export interface ToolChoice {
  name: string;
  label: string;
  description: string;
  detail: string;
  schema?: object;
}

/** Reads the name of a listed tool in any format. */
export function toolName(t: ListedTool): string {
  return t.name ?? t.function?.name ?? "";
}

/** Reads the input schema of a listed tool in any format. */
export function toolSchema(t: ListedTool): object | undefined {
  return t.input_schema ?? t.inputSchema ?? t.parameters ?? t.function?.parameters;
}

/** Builds the picker entries, enabled tools only, sorted by name. */
export function toolChoices(tools: ListedTool[]): ToolChoice[] {
  return tools
    .filter((t) => t.enabled !== false && toolName(t) !== "")
    .map((t) => {
      const name = toolName(t);
      const short = t.docs?.short ?? firstLine(t.description ?? t.function?.description ?? "");
      const tags = [t.category, t.risk ? `risk ${t.risk}` : undefined].filter(Boolean);
      return {
        name,
        label: name,
        description: tags.join(" · "),
        detail: short,
        schema: toolSchema(t),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * A starting input for the input box: the required fields with empty values
 * of their type, so the user fills in blanks rather than recalls names.
 */
export function inputTemplate(schema: object | undefined): string {
  const s = schema as { properties?: Record<string, { type?: string | string[] }>; required?: string[] } | undefined;
  const out: Record<string, unknown> = {};
  for (const key of s?.required ?? []) {
    const type = s?.properties?.[key]?.type;
    const t = Array.isArray(type) ? type[0] : type;
    out[key] = t === "number" || t === "integer" ? 0 : t === "boolean" ? false : t === "array" ? [] : t === "object" ? {} : "";
  }
  return JSON.stringify(out);
}

function firstLine(s: string): string {
  return s.split("\n", 1)[0].trim();
}
