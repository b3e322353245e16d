import { strict as assert } from "node:assert";
import { test } from "node:test";
import { ChangedFile, ChangeTurn, fileDescription, rewindSummary, turnLabel } from "../src/logic/changes";

const file = (over: Partial<ChangedFile>): ChangedFile => ({ path: "/w/a.ts", uri: "file:///w/a.ts", after: "h2", rewindable: true, ...over });

test("fileDescription says what the turn did and where the file stands", () => {
  const cases: [Partial<ChangedFile>, string][] = [
    [{ before: "h1", state: "asLeft" }, "changed"],
    [{ created: true, state: "asLeft" }, "created"],
    [{ before: "h1", state: "rewound" }, "changed · rewound"],
    [{ before: "h1", state: "changedSince" }, "changed · changed since"],
    [{ before: "h1", rewindable: false, state: "asLeft" }, "changed · too large to rewind"],
  ];
  for (const [over, want] of cases) {
    assert.equal(fileDescription(file(over)), want, JSON.stringify(over));
  }
});

test("turnLabel names the agent and the time, with the date on another day", () => {
  const turn: ChangeTurn = { id: "t", agent: "Claude Code", started: "2026-03-04T10:20:00Z", ended: "2026-03-04T10:21:00Z", calls: [], files: [] };
  const started = new Date(turn.started);
  const hm = started.toTimeString().slice(0, 5);
  assert.equal(turnLabel(turn, started), `Claude Code · ${hm}`);
  assert.equal(turnLabel(turn, new Date("2027-01-01T00:00:00Z")), `Claude Code · 2026-03-04 ${hm}`);
});

test("rewindSummary warns when a file was kept", () => {
  const base = { turn: "t", label: "l", restored: ["/w/a.ts"], message: "Rewound a.ts." };
  assert.deepEqual(rewindSummary({ ...base, kept: [] }), { text: "toolhost: Rewound a.ts.", warn: false });
  assert.equal(rewindSummary({ ...base, kept: [{ path: "/w/b.ts", reason: "you changed b.ts after the turn" }] }).warn, true);
});
