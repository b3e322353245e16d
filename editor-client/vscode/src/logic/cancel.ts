/**
 * Waiting on a dialog that the server may cancel: the server sends
 * `$/cancelRequest` when the tool call that asked ends first, and the
 * client's answer should go out then rather than when the user finally
 * clicks.
 */

/** The part of a cancellation token read here (VS Code's and vscode-jsonrpc's fit). */
export interface Cancellation {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): { dispose(): void };
}

/** Resolves with `dialog`'s answer, or with `onCancel` as soon as `token` is cancelled. */
export function untilCancelled<T>(dialog: PromiseLike<T>, token: Cancellation | undefined, onCancel: T): Promise<T> {
  if (!token) {
    return Promise.resolve(dialog);
  }
  if (token.isCancellationRequested) {
    return Promise.resolve(onCancel);
  }
  return new Promise<T>((resolve, reject) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      resolve(onCancel);
    });
    dialog.then(
      (v: T) => {
        sub.dispose();
        resolve(v);
      },
      (err: unknown) => {
        sub.dispose();
        reject(err);
      },
    );
  });
}
