import { strict as assert } from "node:assert";
import { test } from "node:test";
import { memberSummary, TeamModel, teamNodes, type TeamState } from "../src/logic/teams";

const created: TeamState = {
  name: "docs",
  description: "Document the loader",
  members: [
    { name: "writer", taskId: "agent-1", state: "working", pending: 0 },
    { name: "reviewer", taskId: "agent-2", state: "working", pending: 0 },
  ],
};

test("a created team shows its members with their states, and each notification replaces it", () => {
  const model = new TeamModel();
  assert.equal(model.apply(created), "team docs started: writer, reviewer");
  assert.equal(model.working(), 2);
  let [team] = teamNodes(model.list());
  assert.equal(team.label, "docs");
  assert.equal(team.description, "2 working");
  assert.match(team.tooltip, /Document the loader/);
  assert.deepEqual(
    team.children.map((m) => [m.label, m.description, m.icon]),
    [
      ["writer", "working", "sync~spin"],
      ["reviewer", "working", "sync~spin"],
    ],
  );

  // The writer goes idle; the reviewer has two unread messages.
  const later: TeamState = {
    ...created,
    members: [
      { name: "writer", taskId: "agent-1", state: "idle", pending: 0 },
      { name: "reviewer", taskId: "agent-2", state: "working", pending: 2 },
    ],
  };
  assert.equal(model.apply(later), "team docs: writer idle");
  [team] = teamNodes(model.list());
  assert.equal(team.description, "1 working, 1 idle");
  assert.deepEqual(
    team.children.map((m) => m.description),
    ["idle", "working, 2 unread messages"],
  );
  assert.match(team.children[0].tooltip, /task agent-1/);
  assert.equal(model.working(), 1);
  // Only a message arrived: nothing to announce, the view still updates.
  assert.equal(model.apply({ ...later, members: [later.members[0], { ...later.members[1], pending: 3 }] }), "");
  assert.equal(teamNodes(model.list())[0].children[1].description, "working, 3 unread messages");
});

test("a team whose members all ended stays; TeamDelete's notification removes it", () => {
  const model = new TeamModel();
  model.apply(created);
  model.apply({ name: "other", members: [{ name: "solo", state: "working", pending: 0 }] });
  const ended: TeamState = { ...created, members: created.members.map((m) => ({ ...m, state: "ended" })) };
  assert.equal(model.apply(ended), "team docs: writer ended, reviewer ended");
  assert.deepEqual(
    model.list().map((t) => t.name),
    ["docs", "other"],
  );
  assert.equal(model.apply({ ...ended, name: "DOCS", deleted: true }), "team DOCS deleted");
  assert.deepEqual(
    model.list().map((t) => t.name),
    ["other"],
  );
  // A new team may take the name again.
  assert.equal(model.apply(created), "team docs started: writer, reviewer");
  model.clear();
  assert.deepEqual(model.list(), []);
  assert.equal(model.working(), 0);
});

test("malformed notifications are ignored", () => {
  const model = new TeamModel();
  assert.equal(model.apply(undefined), undefined);
  assert.equal(model.apply({ name: "", members: [] }), undefined);
  assert.equal(model.apply({ name: "x" } as TeamState), "team x started");
  assert.deepEqual(teamNodes(model.list())[0].children, []);
});

test("member summary counts states in a fixed order", () => {
  assert.equal(memberSummary([{ name: "a", state: "ended" }, { name: "b", state: "working" }, { name: "c", state: "ended" }]), "1 working, 2 ended");
  assert.equal(memberSummary([]), "");
});
