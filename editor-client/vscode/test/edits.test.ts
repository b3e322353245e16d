import { strict as assert } from "node:assert";
import { test } from "node:test";
import { applyThenSave, needsConfirmation, REJECTED_REASON, REVIEW_MARKER, tickedPreview, touchedUris } from "../src/logic/edits";

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

test("applyThenSave: a failed save after an applied edit still answers applied", async () => {
  const logged: string[] = [];
  const log = (l: string) => logged.push(l);
  const failingSave = async () => {
    throw new Error("could not save /w/a.txt");
  };
  assert.deepEqual(await applyThenSave(async () => true, failingSave, false, log), { applied: true });
  assert.match(logged[0], /saving failed \(could not save \/w\/a.txt\)/);

  let saved = 0;
  const save = async () => {
    saved++;
  };
  assert.deepEqual(await applyThenSave(async () => true, save, false, log), { applied: true });
  assert.equal(saved, 1);
  assert.deepEqual(await applyThenSave(async () => false, save, true, log), { applied: false, failureReason: REJECTED_REASON });
  assert.deepEqual(await applyThenSave(async () => false, save, false, log), {
    applied: false,
    failureReason: "VS Code could not apply the edit",
  });
  assert.equal(saved, 1, "nothing is saved when the edit was not applied");
  const thrown = await applyThenSave(async () => {
    throw new Error("bad range");
  }, save, false, log);
  assert.deepEqual(thrown, { applied: false, failureReason: "bad range" });
});

test("tickedPreview moves the confirmation to an entry the preview does not list", () => {
  const edit = {
    documentChanges: [{ textDocument: { uri: "file:///w/a.txt", version: 3 }, edits: [{ newText: "x", annotationId: "toolhost" }] }],
    changeAnnotations: { toolhost: { label: "Edit a.txt", needsConfirmation: true } },
  };
  const out = tickedPreview(edit, "file:///ext/out");
  assert.equal(out.changeAnnotations!.toolhost.needsConfirmation, false, "the agent's change arrives ticked");
  assert.equal(out.changeAnnotations!.toolhost.label, "Edit a.txt", "labelled as the server labelled it");
  assert.equal(out.changeAnnotations![REVIEW_MARKER].needsConfirmation, true, "the preview still opens");
  // VS Code's preview skips creating what exists with ignoreIfExists, and applied it does nothing.
  assert.deepEqual(out.documentChanges![1], { kind: "create", uri: "file:///ext/out", options: { ignoreIfExists: true }, annotationId: REVIEW_MARKER });
  assert.equal(out.documentChanges!.length, 2);
  assert.equal(needsConfirmation(out), true);
  const created = tickedPreview({ documentChanges: [{ kind: "create", uri: "file:///w/n.txt" }] }, "file:///ext/out");
  assert.equal(needsConfirmation(created), true, "a change with no text edit still opens the preview");
});
