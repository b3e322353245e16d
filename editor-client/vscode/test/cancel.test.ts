import { strict as assert } from "node:assert";
import { test } from "node:test";
import { Cancellation, untilCancelled } from "../src/logic/cancel";

/** A token whose cancel() fires its listeners, like vscode-jsonrpc's. */
function source(): Cancellation & { cancel(): void; listeners: number } {
  const listeners = new Set<() => void>();
  return {
    isCancellationRequested: false,
    get listeners() {
      return listeners.size;
    },
    onCancellationRequested(l: () => void) {
      listeners.add(l);
      return { dispose: () => listeners.delete(l) };
    },
    cancel() {
      (this as { isCancellationRequested: boolean }).isCancellationRequested = true;
      for (const l of [...listeners]) {
        l();
      }
    },
  };
}

test("untilCancelled answers as soon as the server cancels, before the dialog closes", async () => {
  const tok = source();
  const never = new Promise<string>(() => {});
  const answer = untilCancelled(never, tok, "dismissed");
  tok.cancel();
  assert.equal(await answer, "dismissed");
  assert.equal(tok.listeners, 0, "the listener is removed");
});

test("untilCancelled passes the dialog's answer through and stops listening", async () => {
  const tok = source();
  assert.equal(await untilCancelled(Promise.resolve("Allow"), tok, "dismissed"), "Allow");
  assert.equal(tok.listeners, 0);
  assert.equal(await untilCancelled(Promise.resolve("Deny"), undefined, "dismissed"), "Deny");
  const done = source();
  done.cancel();
  assert.equal(await untilCancelled(new Promise<string>(() => {}), done, "dismissed"), "dismissed");
});
