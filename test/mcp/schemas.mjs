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
import ts from "typescript";

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

// typeOf reads one TypeScript type node of json-schema-to-typescript's
// output as a reduced schema (see reduce). The declarations are parsed by
// the TypeScript compiler; only the shapes that generator writes are
// understood, and anything else is an error naming it.
function typeOf(node, src) {
  const K = ts.SyntaxKind;
  const fail = () => {
    throw new Error(`sdk-tools.d.ts: cannot reduce ${K[node.kind]}: ${node.getText(src).slice(0, 60)}`);
  };
  switch (node.kind) {
    case K.ParenthesizedType:
      return typeOf(node.type, src);
    case K.StringKeyword:
      return { type: "string" };
    case K.NumberKeyword:
      return { type: "number" };
    case K.BooleanKeyword:
      return { type: "boolean" };
    case K.UnknownKeyword:
      return {};
    case K.LiteralType:
      if (!ts.isStringLiteral(node.literal)) fail();
      return { type: "string", enum: [node.literal.text] };
    case K.TypeLiteral:
      return objectOf(node.members, src);
    case K.ArrayType:
      return { type: "array", items: typeOf(node.elementType, src) };
    case K.TupleType: {
      // n items, or at least n with a rest (...T[]).
      let rest = false;
      const elems = node.elements.map((e) => {
        if (!ts.isRestTypeNode(e)) return typeOf(e, src);
        rest = true;
        return typeOf(e.type, src).items;
      });
      if (!elems.every((e) => same(e, elems[0]))) throw new Error("sdk-tools.d.ts: a tuple of mixed items");
      const n = elems.length - (rest ? 1 : 0);
      return rest ? { type: "array", items: elems[0], minItems: n } : { type: "array", items: elems[0], minItems: n, maxItems: n };
    }
    case K.UnionType: {
      const alts = node.types.map((t) => typeOf(t, src));
      if (alts.every((a) => a.enum)) return { type: "string", enum: alts.flatMap((a) => a.enum).sort() };
      if (alts.every((a) => a.type === "array" && a.minItems !== undefined && same(a.items, alts[0].items))) {
        // Tuples of every length from n to m: an array of n to m items.
        return { type: "array", items: alts[0].items, minItems: Math.min(...alts.map((a) => a.minItems)), maxItems: Math.max(...alts.map((a) => a.maxItems)) };
      }
      return { type: alts.map((a) => a.type).sort() };
    }
  }
  return fail();
}

// objectOf reads an interface's or a type literal's members as a reduced
// object schema: an index signature makes it open.
function objectOf(members, src) {
  const t = { type: "object", properties: {}, required: [], additionalProperties: false };
  for (const m of members) {
    if (ts.isIndexSignatureDeclaration(m)) {
      const v = typeOf(m.type, src);
      t.additionalProperties = Object.keys(v).length ? v : true;
    } else if (ts.isPropertySignature(m)) {
      const key = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : m.name.getText(src);
      t.properties[key] = typeOf(m.type, src);
      if (!m.questionToken) t.required.push(key);
    } else {
      throw new Error(`sdk-tools.d.ts: cannot reduce member ${ts.SyntaxKind[m.kind]}: ${m.getText(src).slice(0, 60)}`);
    }
  }
  t.required.sort();
  return t;
}

// sdkInputs reads the input interfaces of sdk-tools.d.ts: tool name →
// reduced schema. An interface is named after its tool (FileReadInput is
// Read's).
export function sdkInputs(path) {
  const src = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const out = new Map();
  for (const st of src.statements) {
    if (!ts.isInterfaceDeclaration(st) || !st.name.text.endsWith("Input")) continue;
    const tool = st.name.text.slice(0, -"Input".length).replace(/^File(?=Read|Edit|Write)/, "");
    out.set(tool, objectOf(st.members, src));
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
