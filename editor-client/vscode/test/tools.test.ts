import { strict as assert } from "node:assert";
import { test } from "node:test";
import { inputTemplate, toolChoices, toolSchema } from "../src/logic/tools";

const schema = { type: "object", properties: { file_path: { type: "string" } }, required: ["file_path"] };

test("toolSchema reads each listing format", () => {
  assert.equal(toolSchema({ name: "Read", input_schema: schema }), schema);
  assert.equal(toolSchema({ name: "Read", inputSchema: schema }), schema);
  assert.equal(toolSchema({ function: { name: "Read", parameters: schema } }), schema);
});

test("toolChoices keeps enabled tools, sorted, with docs and tags", () => {
  const choices = toolChoices([
    { name: "Write", description: "Writes a file.\nMore.", category: "core", risk: "medium", input_schema: schema },
    { name: "Bash", docs: { short: "Runs a command" }, category: "core" },
    { name: "WebSearch", enabled: false },
    { function: { name: "Grep", description: "Searches" } },
  ]);
  assert.deepEqual(
    choices.map((c) => [c.name, c.description, c.detail]),
    [
      ["Bash", "core", "Runs a command"],
      ["Grep", "", "Searches"],
      ["Write", "core · risk medium", "Writes a file."],
    ],
  );
  assert.equal(choices[2].schema, schema);
});

test("inputTemplate fills required fields with empty values of their type", () => {
  const s = {
    type: "object",
    properties: {
      a: { type: "string" },
      b: { type: "integer" },
      c: { type: "boolean" },
      d: { type: "array" },
      e: { type: ["object", "null"] },
      f: { type: "string" },
    },
    required: ["a", "b", "c", "d", "e"],
  };
  assert.equal(inputTemplate(s), '{"a":"","b":0,"c":false,"d":[],"e":{}}');
  assert.equal(inputTemplate(undefined), "{}");
});
