import { strict as assert } from "node:assert";
import { test } from "node:test";
import { diskText } from "../src/logic/unsaved";

test("diskText: the disk gets its content plus the agent's change, never the typing", () => {
  const disk = "a\nb\nc\nd\ne\n";
  const buffer = "a\nb\nTYPED\nc\nd\ne\n";
  const cases: Array<[string, string, string]> = [
    ["change after the typing", "a\nb\nTYPED\nc\nD!\ne\n", "a\nb\nc\nD!\ne\n"],
    ["change before the typing", "A!\nb\nTYPED\nc\nd\ne\n", "A!\nb\nc\nd\ne\n"],
    ["lines added before the typing", "a\nnew\nb\nTYPED\nc\nd\ne\n", "a\nnew\nb\nc\nd\ne\n"],
    ["lines removed after the typing", "a\nb\nTYPED\nc\ne\n", "a\nb\nc\ne\n"],
  ];
  for (const [name, proposed, want] of cases) {
    assert.deepEqual(diskText(buffer, proposed, disk), { text: want }, name);
  }
  assert.ok("error" in diskText(buffer, "a\nb\nEDITED\nc\nd\ne\n", disk), "a change of the typed line");
  assert.deepEqual(diskText(disk, "a\nB\nc\nd\ne\n", disk), { text: "a\nB\nc\nd\ne\n" }, "no typing");
});
