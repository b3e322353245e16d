/**
 * The editor side of AskUserQuestion and permission prompts: QuickPicks and
 * InputBoxes for questions; the diff editor or a modal for permissions. The wording and
 * answers come from the pure modules in ./logic.
 */
import * as vscode from "vscode";
import { askQuestions, AskUserQuestionParams, AskUserQuestionResult, QuestionPick, QuestionPickItem, QuestionUI } from "./logic/questions";
import {
  ALLOW_ALWAYS,
  DENY,
  DENY_FEEDBACK,
  permissionActions,
  PermissionAnswer,
  permissionAnswer,
  PermissionParams,
  permissionPrompt,
  ruleChoices,
} from "./logic/permission";
import { untilCancelled } from "./logic/cancel";
import { DiffReviews, reviewLabel } from "./review";

/**
 * QuestionUI over VS Code's QuickPick and InputBox. They close when the
 * server cancels its request (the tool call was cancelled), which ends the
 * questions as dismissed.
 */
export function vscodeQuestionUI(token?: vscode.CancellationToken): QuestionUI {
  return {
    async pick(pick) {
      type Item = vscode.QuickPickItem & { source: QuestionPickItem };
      const items: Item[] = pick.items.map((source) => ({
        label: source.label,
        description: source.description,
        source,
      }));
      const options = {
        title: pick.title,
        placeHolder: pick.placeholder,
        ignoreFocusOut: true,
        matchOnDescription: true,
      };
      if (pick.canPickMany) {
        return pickMany(items, pick, token);
      }
      const picked = await vscode.window.showQuickPick(items, options, token);
      return picked ? [picked.source] : undefined;
    },
    async input(prompt, title) {
      return vscode.window.showInputBox({ title, prompt, ignoreFocusOut: true, placeHolder: "Your answer" }, token);
    },
  };
}

/**
 * A multi-select question: its rows are the options alone (checkboxes that
 * "toggle all" ticks); Other… and the way back are the title bar's buttons.
 * OK answers with the ticked rows; Other… with them and the free text
 * asked next.
 */
function pickMany<T extends vscode.QuickPickItem & { source: QuestionPickItem }>(
  items: T[],
  pick: QuestionPick,
  token?: vscode.CancellationToken,
): Promise<QuestionPickItem[] | undefined> {
  type Button = vscode.QuickInputButton & { source: QuestionPickItem };
  const buttons: Button[] = pick.actions.map((source) =>
    source.back
      ? { iconPath: new vscode.ThemeIcon("arrow-left"), tooltip: source.label, source }
      : { iconPath: new vscode.ThemeIcon("edit"), tooltip: `${source.label} (${source.description})`, source },
  );
  const qp = vscode.window.createQuickPick<T>();
  qp.title = pick.title;
  qp.placeholder = pick.placeholder;
  qp.canSelectMany = true;
  qp.ignoreFocusOut = true;
  qp.matchOnDescription = true;
  qp.items = items;
  qp.buttons = buttons;
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: QuestionPickItem[] | undefined) => {
      if (!done) {
        done = true;
        resolve(value);
        cancelled?.dispose();
        qp.dispose();
      }
    };
    const cancelled = token?.onCancellationRequested(() => finish(undefined));
    qp.onDidAccept(() => finish(qp.selectedItems.map((i) => i.source)));
    qp.onDidTriggerButton((b) => {
      const action = (b as Button).source;
      finish(action.back ? [action] : [...qp.selectedItems.map((i) => i.source), action]);
    });
    qp.onDidHide(() => finish(undefined));
    qp.show();
  });
}

/** Handles `toolhost/askUserQuestion`. */
export function askUserQuestion(params: AskUserQuestionParams, token?: vscode.CancellationToken): Promise<AskUserQuestionResult> {
  return askQuestions(params, vscodeQuestionUI(token));
}

/** Remembers the rules of "Always allow" answers, to apply them again after a restart. */
export type RuleMemory = (rules: string[]) => void;

/**
 * Handles `toolhost/requestPermission`. A change of one file is reviewed in
 * the diff editor; anything else in a modal whose close affordance is Deny
 * (no separate Cancel). "Deny with feedback…" asks for the user's words,
 * sent as typed; "Always allow…" shows the rules it saves and, when broader
 * ones are offered, lets the user pick.
 */
export async function requestPermission(
  params: PermissionParams,
  reviews: DiffReviews,
  remember: RuleMemory,
  token?: vscode.CancellationToken,
): Promise<PermissionAnswer | null> {
  let choice: string | undefined;
  if (DiffReviews.canReview(params)) {
    choice = reviewLabel(await reviews.review(params, token)) || undefined;
  } else {
    const prompt = permissionPrompt(params);
    const items: vscode.MessageItem[] = permissionActions(params).map((title) => ({ title }));
    items.push({ title: DENY, isCloseAffordance: true });
    // VS Code cannot close a modal from outside: when the server cancels
    // its request the answer (a dismissal) goes out at once and the user's
    // later click is ignored.
    const picked = await untilCancelled(
      vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...items),
      token,
      undefined,
    );
    choice = picked?.title;
  }
  if (token?.isCancellationRequested) {
    return null;
  }
  if (choice === DENY_FEEDBACK) {
    const feedback = await vscode.window.showInputBox({
      title: `Deny: ${params.title || params.toolName}`,
      prompt: "Tell the agent why, or what to do instead. It reads your words as you type them.",
      placeHolder: "e.g. use the staging database, not production",
      ignoreFocusOut: true,
    }, token);
    return permissionAnswer(DENY_FEEDBACK, { feedback });
  }
  if (choice === ALLOW_ALWAYS) {
    const choices = ruleChoices(params);
    let rules: string[] | undefined;
    if (choices.length > 1) {
      const picked = await vscode.window.showQuickPick(
        choices.map((c) => ({ label: c.label, detail: c.detail, rules: c.rules })),
        { title: "Always allow: which rule to save?", placeHolder: "The rule is saved to .toolhost/settings.local.json", ignoreFocusOut: true },
        token,
      );
      if (!picked) {
        return null;
      }
      rules = picked.rules;
    } else {
      rules = choices[0]?.rules;
    }
    if (rules && rules.length > 0) {
      remember(rules);
      vscode.window.setStatusBarMessage(`toolhost: always allowed ${rules.join(", ")}`, 8000);
    }
    return permissionAnswer(ALLOW_ALWAYS, { rules });
  }
  return permissionAnswer(choice);
}
