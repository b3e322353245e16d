import { strict as assert } from "node:assert";
import { test } from "node:test";
import { needsConfirmation, touchedUris } from "../src/logic/edits";

test("touchedUris lists edited, created and renamed-to documents once each", () => {
  const uris = touchedUris({
    changes: { "file:///w/a.txt": [] },
    documentChanges: [
      { kind: "create", uri: "file:///w/new.txt" },
      { textDocument: { uri: "file:///w/new.txt" } },
      { textDocument: { uri: "file:///w/a.txt" } },
      { kind: "rename", uri: "file:///w/old.txt", newUri: "file:///w/moved.txt" },
      { kind: "delete", uri: "file:///w/gone.txt" },
    ],
  });
  assert.deepEqual(uris, ["file:///w/a.txt", "file:///w/new.txt", "file:///w/moved.txt"]);
});

test("needsConfirmation looks at every change annotation", () => {
  assert.equal(needsConfirmation({}), false);
  assert.equal(needsConfirmation({ changeAnnotations: { a: { label: "Edit" } } }), false);
  assert.equal(
    needsConfirmation({ changeAnnotations: { a: { label: "x" }, b: { label: "Edit", needsConfirmation: true } } }),
    true,
  );
});
