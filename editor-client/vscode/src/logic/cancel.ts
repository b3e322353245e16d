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

/** LSP's RequestCancelled: the answer to a request the client cancelled. */
export const REQUEST_CANCELLED = -32800;

/**
 * Whether a request failed because the user cancelled it (the answer the
 * server gives a request it was sent `$/cancelRequest` for, or the error
 * the client raises when it gives up waiting) — a choice to report as
 * such, not an error.
 */
export function cancelledByUser(err: unknown, token: Pick<Cancellation, "isCancellationRequested"> | undefined): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === REQUEST_CANCELLED || token?.isCancellationRequested === true;
}
