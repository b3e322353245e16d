/** The change journal's shapes (toolhost/changes, toolhost/rewind) and how the Changes view words them. */

/** A file a turn changed, and where it stands now. */
export interface ChangedFile {
  path: string;
  uri: string;
  before?: string;
  after: string;
  created?: boolean;
  rewindable: boolean;
  beforeFile?: string;
  state?: "asLeft" | "rewound" | "changedSince";
}

/** One turn of an agent: its calls and the files they changed. */
export interface ChangeTurn {
  id: string;
  agent: string;
  started: string;
  ended: string;
  calls: { id: string; tool?: string; files: ChangedFile[] }[];
  files: ChangedFile[];
}

/** toolhost/rewind's answer. */
export interface Rewound {
  turn: string;
  label: string;
  restored: string[];
  kept: { path: string; reason: string }[];
  message: string;
}

/** A turn's row: the agent and when it worked (local time, hours and minutes). */
export function turnLabel(turn: ChangeTurn, now: Date = new Date()): string {
  const started = new Date(turn.started);
  const sameDay = started.toDateString() === now.toDateString();
  const hm = started.toTimeString().slice(0, 5);
  return `${turn.agent} · ${sameDay ? hm : `${started.toISOString().slice(0, 10)} ${hm}`}`;
}

/** A file's row: what the turn did to it and where it stands now. */
export function fileDescription(f: ChangedFile): string {
  const what = f.created ? "created" : "changed";
  const state =
    f.state === "rewound" ? "rewound" : f.state === "changedSince" ? "changed since" : f.rewindable ? "" : "too large to rewind";
  return state ? `${what} · ${state}` : what;
}

/** The message a rewind shows, and whether it warns (a file was kept). */
export function rewindSummary(r: Rewound): { text: string; warn: boolean } {
  return { text: `toolhost: ${r.message}`, warn: r.kept.length > 0 };
}
