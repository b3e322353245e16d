import { test } from "node:test";
import * as assert from "node:assert/strict";
import { acceptedAnswer, countHunks, hunksOf } from "../src/logic/reviewChanges";

const old = "a\nb\nc\nd\ne\nf\n";
const proposed = "a\nB\nc\nd\nE\nf\nnew\n";

test("hunksOf finds each changed block", () => {
  assert.deepEqual(hunksOf(old, proposed), [
    { removed: ["b"], added: ["B"] },
    { removed: ["e"], added: ["E"] },
    { removed: [], added: ["new"] },
  ]);
});

test("countHunks", async (t) => {
  const cases: { name: string; accepted: string; want: { accepted: number; rejected: number } }[] = [
    { name: "all kept", accepted: proposed, want: { accepted: 3, rejected: 0 } },
    { name: "one reverted", accepted: "a\nb\nc\nd\nE\nf\nnew\n", want: { accepted: 2, rejected: 1 } },
    { name: "insertion reverted", accepted: "a\nB\nc\nd\nE\nf\n", want: { accepted: 2, rejected: 1 } },
    { name: "typed into a hunk", accepted: "a\nBee\nc\nd\nE\nf\nnew\n", want: { accepted: 3, rejected: 0 } },
    { name: "all reverted", accepted: old, want: { accepted: 0, rejected: 3 } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.deepEqual(countHunks(old, proposed, c.accepted), c.want));
  }
});

test("acceptedAnswer sends text and counts only when the user changed the proposal", () => {
  const change = { callId: "w1", toolName: "Write", path: "/w/a", label: "Write a", oldText: old, newText: proposed };
  assert.deepEqual(acceptedAnswer(change, proposed), { callId: "w1", decision: "accept" });
  assert.deepEqual(acceptedAnswer(change, "a\nb\nc\nd\nE\nf\nnew\n"), {
    callId: "w1",
    decision: "accept",
    text: "a\nb\nc\nd\nE\nf\nnew\n",
    hunks: { accepted: 2, rejected: 1 },
  });
  const created = { ...change, oldText: null, newText: "x\n" };
  assert.deepEqual(acceptedAnswer(created, "x\ny\n"), { callId: "w1", decision: "accept", text: "x\ny\n", hunks: { accepted: 1, rejected: 0 } });
});
