import { strict as assert } from "node:assert";
import { test } from "node:test";
import { checkInput } from "../src/logic/schema";

const bashSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    command: { type: "string" },
    timeout: { type: "number", maximum: 600000 },
    run_in_background: { type: "boolean" },
    mode: { type: "string", enum: ["a", "b"] },
    url: { type: "string", format: "uri" },
  },
  required: ["command"],
  additionalProperties: false,
};

test("checkInput accepts valid input and returns the parsed value", () => {
  const r = checkInput('{"command":"ls","timeout":1000}', bashSchema);
  assert.deepEqual(r, { ok: true, value: { command: "ls", timeout: 1000 } });
});

test("checkInput names the field that is wrong", () => {
  const cases: Array<[string, RegExp]> = [
    ["{}", /^command: is required$/],
    ['{"command": 3}', /^command: must be string$/],
    ['{"command":"ls","timeout":700000}', /^timeout: must be <= 600000$/],
    ['{"command":"ls","mode":"c"}', /^mode: must be one of "a", "b"$/],
    ['{"command":"ls","colour":1}', /^colour: is not a known field$/],
    ['{"command":', /^Not valid JSON/],
    ["[1]", /must be a JSON object/],
    ["null", /must be a JSON object/],
  ];
  for (const [text, want] of cases) {
    const r = checkInput(text, bashSchema);
    assert.equal(r.ok, false, text);
    assert.match((r as { message: string }).message, want, text);
  }
});

test("checkInput reports every error at once", () => {
  const r = checkInput('{"timeout":"soon"}', bashSchema);
  assert.equal(r.ok, false);
  const message = (r as { message: string }).message;
  assert.match(message, /command: is required/);
  assert.match(message, /timeout: must be number/);
});

test("checkInput without a schema only requires an object", () => {
  assert.equal(checkInput('{"anything": [1]}', undefined).ok, true);
});

test("checkInput ignores unknown formats and keywords", () => {
  const schema = { type: "object", properties: { u: { type: "string", format: "made-up", "x-extra": true } } };
  assert.equal(checkInput('{"u":"not a uri"}', schema).ok, true);
});
