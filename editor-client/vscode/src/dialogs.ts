/**
 * The editor side of AskUserQuestion and permission prompts: QuickPicks and
 * InputBoxes for questions, a modal warning for permissions. The wording and
 * answers come from the pure modules in ./logic.
 */
import * as vscode from "vscode";
import { askQuestions, AskUserQuestionParams, AskUserQuestionResult, QuestionPickItem, QuestionUI } from "./logic/questions";
import { PERMISSION_ACTIONS, PermissionAnswer, permissionAnswer, PermissionParams, permissionPrompt } from "./logic/permission";

/** QuestionUI over VS Code's QuickPick and InputBox. */
export const vscodeQuestionUI: QuestionUI = {
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
      const picked = await vscode.window.showQuickPick(items, { ...options, canPickMany: true });
      return picked?.map((p) => p.source);
    }
    const picked = await vscode.window.showQuickPick(items, options);
    return picked ? [picked.source] : undefined;
  },
  async input(prompt, title) {
    return vscode.window.showInputBox({ title, prompt, ignoreFocusOut: true, placeHolder: "Your answer" });
  },
};

/** Handles `toolhost/askUserQuestion`. */
export function askUserQuestion(params: AskUserQuestionParams): Promise<AskUserQuestionResult> {
  return askQuestions(params, vscodeQuestionUI);
}

/** Handles `toolhost/requestPermission` with a modal warning. */
export async function requestPermission(params: PermissionParams): Promise<PermissionAnswer> {
  const prompt = permissionPrompt(params);
  const choice = await vscode.window.showWarningMessage(
    prompt.message,
    { modal: true, detail: prompt.detail },
    ...PERMISSION_ACTIONS,
  );
  return permissionAnswer(choice);
}
