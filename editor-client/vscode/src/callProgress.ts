/**
 * A running call's progress as a notification with Cancel. The language
 * client shows the server's work-done progress in the window's status bar,
 * which has no Cancel and no room for output; a long Bash must be
 * stoppable from where it shows, whoever started it (Run Tool, an agent).
 * So the client's own handler of `window/workDoneProgress/create` is
 * replaced: each progress is a notification whose Cancel sends
 * `window/workDoneProgress/cancel` (the server ends the call and its
 * processes, and the call's result says it was interrupted), and whose
 * message is the output's last line.
 */
import * as vscode from "vscode";
import {
  LanguageClient,
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateParams,
  WorkDoneProgressCreateRequest,
} from "vscode-languageclient/node";
import { progressLine } from "./logic/progress";

/** How long a call runs before its notification shows. */
const SHOW_AFTER_MS = 1000;

/**
 * Replaces the client's progress handler; call it once the client runs
 * (the library registers its own while starting). Every notification ends
 * with its progress or when the server stops.
 */
export function registerCallProgress(client: LanguageClient): vscode.Disposable {
  const ending = new Set<() => void>();
  const stopped = client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      ending.forEach((end) => end());
      ending.clear();
    }
  });
  const handler = client.onRequest(WorkDoneProgressCreateRequest.type, (params: WorkDoneProgressCreateParams) => {
    const token = params.token;
    // The notification opens SHOW_AFTER_MS after "begin", whose title
    // names the call ("Bash: sleep 40; echo finished"): a call that ends
    // sooner (most Reads, Greps) shows none.
    let title = "";
    let line: string | undefined;
    let report: ((line: string) => void) | undefined;
    let resolve: (() => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let ended = false;
    const end = () => {
      ended = true;
      clearTimeout(timer);
      sub.dispose();
      ending.delete(end);
      resolve?.();
    };
    ending.add(end);
    const show = () =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `toolhost: ${title}`, cancellable: true },
        (progress, cancel) => {
          report = (message) => progress.report({ message });
          if (line) {
            report(line);
          }
          cancel.onCancellationRequested(() => {
            void client.sendNotification(WorkDoneProgressCancelNotification.type, { token }).catch(() => undefined);
          });
          return ended ? Promise.resolve() : new Promise<void>((r) => (resolve = r));
        },
      );
    const sub = client.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind === "begin") {
        title = value.title;
        timer = setTimeout(() => void show(), SHOW_AFTER_MS);
      } else if (value.kind === "report") {
        line = progressLine(value.message) ?? line;
        if (line) {
          report?.(line);
        }
      } else {
        end();
      }
    });
  });
  return vscode.Disposable.from(handler, stopped, { dispose: () => ending.forEach((end) => end()) });
}
