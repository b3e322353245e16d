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
/**
 * The modal's buttons, the focused default first: Enter (or a click on
 * autopilot) must not trust a folder whose hooks may run `curl … | sh`.
 */
export const TRUST_ACTIONS = [DONT_TRUST, TRUST] as const;

/** Whether an item runs something the moment the folder is trusted. */
export function runsAtOnce(i: TrustItem): boolean {
  return /runs a command/i.test(i.why ?? "") || ["hooks", "mcpServers", "env", "enableAllProjectMcpServers", "enabledMcpjsonServers"].includes(i.key);
}

/** Most items listed in the modal; the rest are counted. */
export const MAX_ITEMS = 30;

/**
 * The modal's message and detail: what would run at once (hooks, MCP
 * servers, environment) first, then the rest the folder asks for.
 */
export function trustPrompt(p: TrustParams): { message: string; detail: string } {
  const items = p.items ?? [];
  const runs = items.filter(runsAtOnce);
  const rest = items.filter((i) => !runsAtOnce(i));
  const line = (i: TrustItem) => `• ${i.what}  (${relative(p.folder, i.file)})`;
  const lines: string[] = [];
  let shown = 0;
  for (const [title, group] of [
    ["Runs at once when trusted:", runs],
    [runs.length > 0 ? "Also grants:" : "Grants:", rest],
  ] as const) {
    const room = Math.max(0, MAX_ITEMS - shown);
    if (group.length === 0 || room === 0) {
      continue;
    }
    lines.push(title, ...group.slice(0, room).map(line));
    shown += Math.min(room, group.length);
  }
  if (items.length > shown) {
    lines.push(`… and ${items.length - shown} more (toolhost: Show Status lists them)`);
  }
  const message =
    runs.length > 0
      ? `Trusting ${p.folder} runs its commands at once. Do you trust its authors?`
      : `Do you trust the authors of ${p.folder}? Its toolhost settings ask to:`;
  return {
    message,
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
