// Claude Code's tool input schemas beside toolhost's, for parity.test.mjs
// (which lists the tools of both servers over the connections it already
// has). Two sources of truth, in this order:
//   - the listing of `claude mcp serve`: for every tool both servers list,
//     the input schemas are compared exactly: types, properties and their
//     order, required, enums, defaults, bounds, patterns, formats,
//     additionalProperties, $schema, nested items. Descriptions are not
//     compared, of the tools nor of their properties: toolhost writes its
//     own (they say what toolhost does, e.g. a relative path resolves
//     against the workspace root); a property Claude Code describes must
//     still have a description in toolhost. The order of keys inside one
//     schema object is not compared (JSON objects are unordered and the
//     schema means the same); the order of the properties is, since a
//     model reads them in that order.
//   - sdk-tools.d.ts (shipped in @anthropic-ai/claude-code) for the tools
//     toolhost serves that Claude Code's server does not list: what a
//     TypeScript type can say is compared (property names, required,
//     types, enums, nested objects and arrays, open objects, item counts
//     written as tuples).
// A difference fails the test unless it is in `intended` below, and an
// intended difference that no longer exists fails it too.
import { readFileSync } from "node:fs";

// intended are the differences toolhost keeps, each with its reason:
// "tool path" → { ours, theirs, why } (undefined: the key is absent).
// Paths are dotted from the tool's input schema; "sdk:" entries are
// against sdk-tools.d.ts.
export const intended = new Map([
  ["Agent properties.run_in_background", {
    ours: { type: "boolean" }, theirs: undefined,
    why: "sdk-tools.d.ts types it (AgentInput) though Claude Code's server does not list it; toolhost runs a sub-agent as a background task read with TaskOutput",
  }],
  ["Bash properties.dangerouslyDisableSandbox", {
    ours: { type: "boolean" }, theirs: undefined,
    why: "sdk-tools.d.ts types it (BashInput); toolhost accepts and ignores it: whether commands run in a sandbox is the user's setting (bash.sandbox), never the model's",
  }],
  ["Read properties.offset.minimum", {
    ours: undefined, theirs: 0,
    why: "a negative offset reads from line 1 instead of failing the call (issue 29; parity case \"a negative offset reads from line 1\")",
  }],
  ["SendMessage properties.to.allOf", {
    ours: undefined, theirs: [{ pattern: "^[^\\n\\r]*$" }, { pattern: "^[\\s\\S]{0,300}$" }],
    why: "toolhost looks the name up among the running agents and answers any other name, a long or multi-line one included, with the names it has",
  }],
  ["SendMessage properties.notify_when_idle", {
    ours: undefined, theirs: { type: "boolean" },
    why: "it subscribes to another Claude Code session on the same machine going idle; toolhost has no such sessions to watch",
  }],
  ["ToolSearch required", {
    ours: ["query"], theirs: ["max_results", "query"],
    why: "max_results has a default (5): toolhost answers a call without it rather than refusing it",
  }],
  ["sdk:ExitPlanMode properties.plan", {
    ours: { type: "string" }, theirs: undefined,
    why: "toolhost also takes the plan inline; without it the plan file is shown (docs/tools.md, ExitPlanMode)",
  }],
]);

// withoutDescriptions is a schema with every description left out.
function withoutDescriptions(v) {
  if (Array.isArray(v)) return v.map(withoutDescriptions);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !(k === "description" && typeof x === "string")).map(([k, x]) => [k, withoutDescriptions(x)]));
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// diff lists where a (toolhost's) and b (Claude Code's) differ: one entry
// per key present on one side only or with a different value, recursing
// through objects; "required" is compared as a set, the property names of
// "properties" also in order.
export function diff(a, b, path = "", out = []) {
  const at = (k) => (path ? `${path}.${k}` : k);
  const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObj(a) || !isObj(b)) {
    if (!same(a, b)) out.push({ path, ours: a, theirs: b });
    return out;
  }
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (k === "required" && Array.isArray(a[k]) && Array.isArray(b[k])) {
      if (!same([...a[k]].sort(), [...b[k]].sort())) out.push({ path: at(k), ours: [...a[k]].sort(), theirs: [...b[k]].sort() });
    } else if (!(k in a) || !(k in b)) {
      out.push({ path: at(k), ours: a[k], theirs: b[k] });
    } else {
      diff(a[k], b[k], at(k), out);
    }
  }
  if (path.endsWith("properties") || path === "properties") {
    const common = (x, y) => Object.keys(x).filter((k) => k in y);
    if (!same(common(a, b), common(b, a))) out.push({ path: at("(order)"), ours: common(a, b), theirs: common(b, a) });
  }
  return out;
}

// undescribed lists the properties Claude Code describes that toolhost
// leaves without a description.
function undescribed(ours, theirs, path = "") {
  const out = [];
  for (const [name, t] of Object.entries(theirs?.properties ?? {})) {
    const o = ours?.properties?.[name];
    if (!o) continue;
    if (t.description && !o.description) out.push(`${path}${name}`);
    out.push(...undescribed(o, t, `${path}${name}.`));
    if (t.items && o.items) out.push(...undescribed(o.items, t.items, `${path}${name}[].`));
  }
  return out;
}

// compareListings compares the tools both servers list; it returns the
// differences (each with tool, path, ours, theirs) and the names compared.
export function compareListings(ours, theirs) {
  const mine = new Map(ours.map((t) => [t.name, t.inputSchema]));
  const differences = [];
  const compared = [];
  for (const t of theirs) {
    if (!mine.has(t.name)) continue;
    compared.push(t.name);
    const o = mine.get(t.name);
    for (const d of diff(withoutDescriptions(o), withoutDescriptions(t.inputSchema))) differences.push({ tool: t.name, ...d });
    for (const p of undescribed(o, t.inputSchema)) differences.push({ tool: t.name, path: `properties.${p}.description`, ours: undefined, theirs: "(described)" });
  }
  return { differences, compared };
}

// --- sdk-tools.d.ts ---

// tokens splits TypeScript declarations (comments removed) into tokens.
function tokens(src) {
  const out = [];
  const re = /\s+|("(?:[^"\\]|\\.)*")|([A-Za-z_$][\w$]*)|(\.\.\.|[{}[\]()|;:?,&<>])/gy;
  for (let m; re.lastIndex < src.length; ) {
    const at = re.lastIndex;
    if (!(m = re.exec(src))) throw new Error(`sdk-tools.d.ts: cannot read at ${JSON.stringify(src.slice(at, at + 40))}`);
    if (m[1]) out.push({ str: JSON.parse(m[1]) });
    else if (m[2] || m[3]) out.push(m[2] ?? m[3]);
  }
  return out;
}

// parseType reads one TypeScript type of json-schema-to-typescript's
// output from toks (consumed) as a reduced schema (see reduce).
function parseType(toks) {
  const eat = (t) => {
    if (toks[0] !== t) throw new Error(`sdk-tools.d.ts: want ${t}, have ${JSON.stringify(toks.slice(0, 5))}`);
    toks.shift();
  };
  const primary = () => {
    let t;
    const tok = toks.shift();
    if (tok === "(") {
      t = union();
      eat(")");
    } else if (tok?.str !== undefined) {
      t = { type: "string", enum: [tok.str] };
    } else if (tok === "string" || tok === "number" || tok === "boolean") {
      t = { type: tok };
    } else if (tok === "unknown") {
      t = {};
    } else if (tok === "{") {
      t = { type: "object", properties: {}, required: [], additionalProperties: false };
      while (toks[0] !== "}") {
        if (toks[0] === "[") {
          eat("[");
          toks.shift();
          eat(":");
          eat("string");
          eat("]");
          eat(":");
          const v = union();
          t.additionalProperties = Object.keys(v).length ? v : true;
        } else {
          const name = toks.shift();
          const key = name.str ?? name;
          const optional = toks[0] === "?";
          if (optional) toks.shift();
          eat(":");
          t.properties[key] = union();
          if (!optional) t.required.push(key);
        }
        if (toks[0] === ";" || toks[0] === ",") toks.shift();
      }
      eat("}");
      t.required.sort();
    } else if (tok === "[") {
      // A tuple: n items, or at least n with a rest (...T[]).
      const elems = [];
      let rest = false;
      while (toks[0] !== "]") {
        if (toks[0] === "...") {
          toks.shift();
          rest = true;
          elems.push(union().items);
        } else {
          elems.push(union());
        }
        if (toks[0] === ",") toks.shift();
      }
      eat("]");
      if (!elems.every((e) => same(e, elems[0]))) throw new Error("sdk-tools.d.ts: a tuple of mixed items");
      const n = elems.length - (rest ? 1 : 0);
      t = rest ? { type: "array", items: elems[0], minItems: n } : { type: "array", items: elems[0], minItems: n, maxItems: n };
    } else {
      throw new Error(`sdk-tools.d.ts: unexpected ${JSON.stringify(tok)}`);
    }
    while (toks[0] === "[" && toks[1] === "]") {
      toks.splice(0, 2);
      t = { type: "array", items: t };
    }
    return t;
  };
  const union = () => {
    if (toks[0] === "|") toks.shift();
    const alts = [primary()];
    while (toks[0] === "|") {
      toks.shift();
      alts.push(primary());
    }
    if (alts.length === 1) return alts[0];
    if (alts.every((a) => a.enum)) return { type: "string", enum: alts.flatMap((a) => a.enum).sort() };
    if (alts.every((a) => a.type === "array" && a.minItems !== undefined && same(a.items, alts[0].items))) {
      // Tuples of every length from n to m: an array of n to m items.
      return { type: "array", items: alts[0].items, minItems: Math.min(...alts.map((a) => a.minItems)), maxItems: Math.max(...alts.map((a) => a.maxItems)) };
    }
    return { type: alts.map((a) => a.type).sort() };
  };
  return union();
}

// sdkInputs reads the input interfaces of sdk-tools.d.ts: tool name →
// reduced schema. An interface is named after its tool (FileReadInput is
// Read's).
export function sdkInputs(path) {
  const src = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const out = new Map();
  for (const m of src.matchAll(/^export interface (\w+)Input (?=\{)/gm)) {
    const toks = tokens(src.slice(m.index + m[0].length, src.indexOf("\n}", m.index) + 2));
    out.set(m[1].replace(/^File(?=Read|Edit|Write)/, ""), parseType(toks));
  }
  return out;
}

// reduce is what sdk-tools.d.ts can say of a JSON schema: types (integer
// is a number), enums (as sets), properties, required, open or closed
// objects, array items and item counts.
export function reduce(s) {
  if (s.enum) return { type: "string", enum: [...s.enum].sort() };
  if (s.type === undefined) return {};
  const type = Array.isArray(s.type) ? s.type.map((t) => (t === "integer" ? "number" : t)).sort() : s.type === "integer" ? "number" : s.type;
  const out = { type };
  if (type === "object") {
    out.properties = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, reduce(v)]));
    out.required = [...(s.required ?? [])].sort();
    const ap = s.additionalProperties;
    out.additionalProperties = ap === false ? false : ap === undefined || ap === true || Object.keys(ap).length === 0 ? true : reduce(ap);
  }
  if (type === "array") {
    out.items = s.items ? reduce(s.items) : {};
    if (s.maxItems !== undefined) Object.assign(out, { minItems: s.minItems ?? 0, maxItems: s.maxItems });
    else if (s.minItems > 0) out.minItems = s.minItems;
  }
  return out;
}

// compareSDK compares the tools toolhost lists and Claude Code's server
// does not with their sdk-tools.d.ts types; differences carry "sdk:" tools.
export function compareSDK(ours, theirs, dts) {
  const served = new Set(theirs.map((t) => t.name));
  const differences = [];
  const compared = [];
  for (const t of ours) {
    if (served.has(t.name) || !dts.has(t.name)) continue;
    compared.push(t.name);
    for (const d of diff(reduce(t.inputSchema), dts.get(t.name))) differences.push({ tool: `sdk:${t.name}`, ...d });
  }
  return { differences, compared };
}

// unexplained checks differences against intended: the differences not
// listed (or listed with other values), and the listed ones not found.
export function unexplained(differences) {
  const found = new Set();
  const extra = [];
  for (const d of differences) {
    const key = `${d.tool} ${d.path}`;
    const want = intended.get(key);
    if (want && same(want.ours, d.ours) && same(want.theirs, d.theirs)) found.add(key);
    else extra.push(d);
  }
  const gone = [...intended.keys()].filter((k) => !found.has(k));
  return { extra, gone };
}
