/**
 * AskUserQuestion in a picker: turning the tool's questions into picker
 * items, and the picked items into the answer the server expects
 * (`{answers: {question: answer}}`, multi-select labels joined by ", ").
 * Free of VS Code so it runs under plain Node; the editor supplies a
 * {@link QuestionUI}.
 */

import { visible } from "./permission";

/** One choice of a question, in Claude Code's shape. */
export interface QuestionOption {
  label: string;
  description?: string;
}

/** One question of AskUserQuestion, in Claude Code's shape. */
export interface Question {
  question: string;
  header?: string;
  options?: QuestionOption[];
  multiSelect?: boolean;
}

/** Params of the server's `toolhost/askUserQuestion` request. */
export interface AskUserQuestionParams {
  questions: Question[];
}

/**
 * Result of `toolhost/askUserQuestion`. A dismissed dialog answers
 * `{answers: {}, dismissed: true}`: the server reports it to the model as
 * "the user dismissed the question" instead of guessing an answer.
 */
export interface AskUserQuestionResult {
  answers: Record<string, string>;
  dismissed?: boolean;
}

/** Label of the entry that asks for a free-text answer. */
export const OTHER_LABEL = "Other…";

/** Label of the entry that goes back to the previous question. */
export const BACK_LABEL = "← Previous question";

/** A picker entry; `other` marks the free-text entry, `back` the way back. */
export interface QuestionPickItem {
  label: string;
  /** The option's own label, sent as the answer (label is it as shown). */
  answer?: string;
  description?: string;
  other?: boolean;
  back?: boolean;
}

/**
 * What one picker needs to show a question. In a multi-select every row is
 * a checkbox that "toggle all" ticks, so Other… and the way back are
 * `actions` there (the picker's buttons), never rows; in a single-select
 * they are rows after the options.
 */
export interface QuestionPick {
  title: string;
  placeholder: string;
  canPickMany: boolean;
  items: QuestionPickItem[];
  actions: QuestionPickItem[];
}

/** The dialogs an editor offers. Both resolve to undefined when dismissed. */
export interface QuestionUI {
  /**
   * The picked rows; when an action is pressed, that action after the
   * rows ticked so far (Other… keeps them, the way back ignores them).
   */
  pick(pick: QuestionPick): Promise<QuestionPickItem[] | undefined>;
  input(prompt: string, title: string): Promise<string | undefined>;
}

/** Builds the picker for question `index` of `total`. */
export function questionPick(q: Question, index: number, total: number): QuestionPick {
  const step = total > 1 ? ` (${index + 1}/${total})` : "";
  // Shown with invisible characters written out (see visible); the answer
  // is the label as the model wrote it.
  const items: QuestionPickItem[] = (q.options ?? []).map((o) => ({
    label: visible(o.label, true),
    answer: o.label,
    description: o.description ? visible(o.description, true) : undefined,
  }));
  const actions: QuestionPickItem[] = [{ label: OTHER_LABEL, description: "type your own answer", other: true }];
  if (index > 0) {
    actions.push({ label: BACK_LABEL, description: "change the answer before", back: true });
  }
  const canPickMany = Boolean(q.multiSelect);
  return {
    // The question is in the title too: a placeholder vanishes as soon as
    // the user types to filter.
    title: visible(`${q.header || "Question"}${step}: ${q.question}`, true),
    placeholder: visible(q.question, true) + (canPickMany ? ` (pick one or more; the buttons above: ${OTHER_LABEL}${index > 0 ? ", back" : ""})` : ""),
    canPickMany,
    items: canPickMany ? items : [...items, ...actions],
    actions: canPickMany ? actions : [],
  };
}

/**
 * Joins the picked labels (and the free text, if any) into one answer, as the
 * server expects for multi-select questions. Blank free text is dropped.
 */
export function formatAnswer(picked: QuestionPickItem[], freeText?: string): string {
  const parts = picked.filter((p) => !p.other).map((p) => p.answer ?? p.label);
  const text = freeText?.trim();
  if (text) {
    parts.push(text);
  }
  return parts.join(", ");
}

/**
 * Asks every question in turn. Dismissing any picker or the free-text box
 * dismisses the whole request; so does an empty selection.
 */
export async function askQuestions(
  params: AskUserQuestionParams,
  ui: QuestionUI,
): Promise<AskUserQuestionResult> {
  const questions = params?.questions ?? [];
  const answers: Record<string, string> = {};
  for (let i = 0; i < questions.length; i++) {
    const q = questions[i];
    const pick = questionPick(q, i, questions.length);
    const picked = await ui.pick(pick);
    if (!picked || picked.length === 0) {
      return { answers: {}, dismissed: true };
    }
    if (picked.some((p) => p.back)) {
      // Ask the previous question again; its new answer replaces the old.
      delete answers[questions[i - 1].question];
      i -= 2;
      continue;
    }
    let freeText: string | undefined;
    if (picked.some((p) => p.other)) {
      freeText = await ui.input(visible(q.question, true), pick.title);
      if (freeText === undefined) {
        return { answers: {}, dismissed: true };
      }
    }
    const answer = formatAnswer(picked, freeText);
    if (!answer) {
      return { answers: {}, dismissed: true };
    }
    answers[q.question] = answer;
  }
  return { answers };
}
