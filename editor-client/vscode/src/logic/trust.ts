/**
 * The trust question: the modal's text for a `toolhost/requestTrust`
 * request, the answer for the button pressed, and the status bar's words.
 * Free of VS Code so it runs under plain Node.
 */

/** One thing an untrusted folder asks for (a hook's command, a server, a rule). */
export interface TrustItem {
  file: string;
  key: string;
  what: string;
  why?: string;
}

/** Params of `toolhost/requestTrust` (docs/protocol.md). */
export interface TrustParams {
  folder: string;
  items: TrustItem[];
  message?: string;
  trustCommand?: string;
}

/** Answer to `toolhost/requestTrust`. */
export interface TrustAnswer {
  trust: boolean;
}

/** The `trust` object of `toolhost/status` and `toolhost/trustChanged`. */
export interface TrustState {
  roots?: Array<{ root: string; trusted: boolean; reason: string }>;
  ignored?: TrustItem[];
  declined?: boolean;
}

export const TRUST = "Trust Folder";
export const DONT_TRUST = "Don't Trust";
export const TRUST_ACTIONS = [TRUST, DONT_TRUST] as const;

/** Most items listed in the modal; the rest are counted. */
export const MAX_ITEMS = 30;

/** The modal's message and detail: the folder, then every item it asks for. */
export function trustPrompt(p: TrustParams): { message: string; detail: string } {
  const items = p.items ?? [];
  const lines = items.slice(0, MAX_ITEMS).map((i) => `• ${i.what}  (${relative(p.folder, i.file)})`);
  if (items.length > MAX_ITEMS) {
    lines.push(`… and ${items.length - MAX_ITEMS} more (toolhost: Show Status lists them)`);
  }
  return {
    message: `Do you trust the authors of ${p.folder}? Its toolhost settings ask to:`,
    detail:
      lines.join("\n") +
      "\n\nUntil you trust the folder, toolhost ignores all of this. Trusting runs these commands and grants these permissions" +
      (p.trustCommand ? `; from a shell: ${p.trustCommand}` : "") +
      ".",
  };
}

/** Only the Trust button trusts; closing the modal does not. */
export function trustAnswer(choice: string | undefined): TrustAnswer {
  return { trust: choice === TRUST };
}

/**
 * The status bar's text and tooltip for a trust state, or undefined when
 * there is nothing to say (trusted, or nothing ignored). restricted is set
 * when VS Code has the folder in Restricted Mode.
 */
export function trustStatus(state: TrustState | undefined, restricted: boolean): { text: string; tooltip: string } | undefined {
  const ignored = state?.ignored ?? [];
  if (ignored.length === 0) {
    return undefined;
  }
  const why = restricted
    ? "VS Code has this folder in Restricted Mode, so toolhost did not ask to trust it."
    : "You did not trust this folder.";
  return {
    text: `$(shield) toolhost: ${ignored.length} folder setting${ignored.length === 1 ? "" : "s"} ignored`,
    tooltip: `${why} Ignored:\n${ignored.map((i) => `• ${i.what}`).join("\n")}`,
  };
}

function relative(folder: string, file: string): string {
  const prefix = folder.endsWith("/") ? folder : folder + "/";
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}
