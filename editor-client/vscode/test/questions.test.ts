import { strict as assert } from "node:assert";
import { test } from "node:test";
import { askQuestions, BACK_LABEL, formatAnswer, OTHER_LABEL, QuestionPick, QuestionPickItem, questionPick, QuestionUI } from "../src/logic/questions";

/** A QuestionUI that answers from a script and records what it was shown. */
function scripted(picks: Array<string[] | undefined>, inputs: Array<string | undefined> = []) {
  const shown: QuestionPick[] = [];
  const ui: QuestionUI = {
    async pick(pick) {
      shown.push(pick);
      const labels = picks.shift();
      return labels?.map((l) => {
        const item = [...pick.items, ...pick.actions].find((i) => i.label === l);
        assert.ok(item, `no item ${l} in ${pick.items.map((i) => i.label)}`);
        return item as QuestionPickItem;
      });
    },
    async input() {
      return inputs.shift();
    },
  };
  return { ui, shown };
}

const color = {
  question: "Which color?",
  header: "Color",
  options: [
    { label: "Red", description: "warm" },
    { label: "Blue", description: "cool" },
  ],
};

test("questionPick: Other… and the way back are rows of a single-select, buttons of a multi-select", () => {
  const cases = [
    { multiSelect: false, items: ["Red", "Blue", OTHER_LABEL, BACK_LABEL], actions: [] as string[] },
    // Rows of a multi-select are checkboxes "toggle all" ticks.
    { multiSelect: true, items: ["Red", "Blue"], actions: [OTHER_LABEL, BACK_LABEL] },
  ];
  for (const c of cases) {
    const pick = questionPick({ ...color, multiSelect: c.multiSelect }, 1, 3);
    assert.match(pick.title, /^Color \(2\/3\): /);
    assert.equal(pick.canPickMany, c.multiSelect);
    assert.deepEqual(pick.items.map((i) => i.label), c.items, `multiSelect ${c.multiSelect}`);
    assert.deepEqual(pick.actions.map((i) => i.label), c.actions, `multiSelect ${c.multiSelect}`);
    assert.equal(pick.items[0].description, "warm");
    assert.ok([...pick.items, ...pick.actions].find((i) => i.label === OTHER_LABEL)?.other);
  }
});

test("questionPick of a single question has no step counter", () => {
  assert.equal(questionPick(color, 0, 1).title, `Color: ${color.question}`);
});

test("formatAnswer joins labels with comma-space and appends free text", () => {
  const cases: Array<[string[], string | undefined, string]> = [
    [["Red"], undefined, "Red"],
    [["Red", "Blue"], undefined, "Red, Blue"],
    [["Red", OTHER_LABEL], "  green ", "Red, green"],
    [[OTHER_LABEL], "   ", ""],
  ];
  for (const [labels, text, want] of cases) {
    const items = labels.map((l) => ({ label: l, other: l === OTHER_LABEL }));
    assert.equal(formatAnswer(items, text), want, `${labels} + ${text}`);
  }
});

test("askQuestions answers every question by its text", async () => {
  const size = { question: "Which size?", header: "Size", multiSelect: true, options: [{ label: "S" }, { label: "M" }, { label: "L" }] };
  const { ui, shown } = scripted([["Blue"], ["S", "L"]]);
  const result = await askQuestions({ questions: [color, size] }, ui);
  assert.deepEqual(result, { answers: { "Which color?": "Blue", "Which size?": "S, L" } });
  assert.equal(shown.length, 2);
  assert.equal(shown[1].canPickMany, true);
});

test("askQuestions takes free text from Other…", async () => {
  const { ui } = scripted([[OTHER_LABEL]], ["Magenta"]);
  assert.deepEqual(await askQuestions({ questions: [color] }, ui), { answers: { "Which color?": "Magenta" } });
});

test("askQuestions reports dismissal and drops earlier answers", async () => {
  const cases: Array<[string, Array<string[] | undefined>, Array<string | undefined>]> = [
    ["picker closed", [undefined], []],
    ["nothing picked", [[]], []],
    ["free text box closed", [[OTHER_LABEL]], [undefined]],
    ["second question closed", [["Red"], undefined], []],
  ];
  for (const [name, picks, inputs] of cases) {
    const { ui } = scripted(picks, inputs);
    const result = await askQuestions({ questions: [color, { ...color, question: "Again?" }] }, ui);
    assert.deepEqual(result, { answers: {}, dismissed: true }, name);
  }
});

test("askQuestions goes back to the previous question and replaces its answer", async () => {
  const q1 = { question: "First?", options: [{ label: "A" }, { label: "B" }] };
  const q2 = { question: "Second?", options: [{ label: "C" }] };
  const script = ["A", BACK_LABEL, "B", "C"];
  const seen: string[] = [];
  const ui: QuestionUI = {
    async pick(pick) {
      seen.push(pick.title);
      const label = script.shift();
      return pick.items.filter((i) => i.label === label);
    },
    async input() {
      return undefined;
    },
  };
  const result = await askQuestions({ questions: [q1, q2] }, ui);
  assert.deepEqual(result, { answers: { "First?": "B", "Second?": "C" } });
  assert.equal(seen.length, 4);
  for (const multiSelect of [false, true]) {
    const first = questionPick({ ...q1, multiSelect }, 0, 2);
    assert.ok(![...first.items, ...first.actions].some((i) => i.back), "no way back from the first question");
  }
});
