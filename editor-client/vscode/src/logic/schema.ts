/**
 * Checks a tool input typed by hand against the tool's JSON schema before it
 * is sent, so a typo is caught in the input box instead of coming back as a
 * failed call. Ajv does the checking: it is the reference JSON Schema
 * validator for JavaScript and knows every keyword the tools' schemas use.
 */
import Ajv, { ErrorObject, ValidateFunction } from "ajv";

/** Outcome of {@link checkInput}. */
export type InputCheck = { ok: true; value: unknown } | { ok: false; message: string };

const ajv = new Ajv({
  allErrors: true,
  // Tool schemas may carry keywords and formats Ajv does not know (MCP tools
  // bring their own); they must not stop the check.
  strict: false,
  validateFormats: false,
  validateSchema: false,
});

const compiled = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: object): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    // Ajv's default class does not load draft 2020-12 by $schema; the
    // keywords the tools use are the same in draft-07.
    const { $schema: _ignored, $id: _id, ...rest } = schema as Record<string, unknown>;
    v = ajv.compile(rest);
    compiled.set(schema, v);
  }
  return v;
}

/** Parses `text` as JSON and checks it against `schema` (if any). */
export function checkInput(text: string, schema: object | undefined): InputCheck {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `Not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, message: "The input must be a JSON object." };
  }
  if (!schema) {
    return { ok: true, value };
  }
  const validate = validatorFor(schema);
  if (validate(value)) {
    return { ok: true, value };
  }
  return { ok: false, message: describeErrors(validate.errors ?? []) };
}

/** One line per error, naming the field: "command: is required". */
export function describeErrors(errors: ErrorObject[]): string {
  const lines = errors.map((e) => {
    let field = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
    if (e.keyword === "required") {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      field = field ? `${field}.${missing}` : missing;
      return `${field}: is required`;
    }
    if (e.keyword === "additionalProperties") {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      return `${field ? field + "." : ""}${extra}: is not a known field`;
    }
    if (e.keyword === "enum") {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return `${field || "input"}: must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
    }
    return `${field || "input"}: ${e.message}`;
  });
  return Array.from(new Set(lines)).join("; ");
}
