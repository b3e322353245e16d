/**
 * The editor side of AskUserQuestion and permission prompts: QuickPicks and
 * InputBoxes for questions, a modal warning for permissions. The wording and
 * answers come from the pure modules in ./logic.
 */
import * as vscode from "vscode";
import { askQuestions, AskUserQuestionParams, AskUserQuestionResult, QuestionPickItem, QuestionUI } from "./logic/questions";
import { PERMISSION_ACTIONS, PermissionAnswer, permissionAnswer, PermissionParams, permissionPrompt } from "./logic/permission";
import { untilCancelled } from "./logic/cancel";

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
        const picked = await vscode.window.showQuickPick(items, { ...options, canPickMany: true }, token);
        return picked?.map((p) => p.source);
      }
      const picked = await vscode.window.showQuickPick(items, options, token);
      return picked ? [picked.source] : undefined;
    },
    async input(prompt, title) {
      return vscode.window.showInputBox({ title, prompt, ignoreFocusOut: true, placeHolder: "Your answer" }, token);
    },
  };
}

/** Handles `toolhost/askUserQuestion`. */
export function askUserQuestion(params: AskUserQuestionParams, token?: vscode.CancellationToken): Promise<AskUserQuestionResult> {
  return askQuestions(params, vscodeQuestionUI(token));
}

/**
 * Handles `toolhost/requestPermission` with a modal warning. VS Code cannot
 * close a modal from outside, so when the server cancels its request the
 * answer (a dismissal) goes out at once; the user's later click is ignored.
 */
export async function requestPermission(params: PermissionParams, token?: vscode.CancellationToken): Promise<PermissionAnswer> {
  const prompt = permissionPrompt(params);
  const choice = await untilCancelled(
    vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...PERMISSION_ACTIONS),
    token,
    undefined,
  );
  return permissionAnswer(choice);
}
