/**
 * The teams of `toolhost/teamChanged` notifications (TeamCreate, SendMessage,
 * TeamDelete): the current state of every team this client started, as tree
 * nodes for the Team view, without VS Code's types.
 */

/** One member as the server sends it. */
export interface TeamMember {
  name: string;
  taskId?: string;
  state: "working" | "idle" | "ended" | string;
  /** Messages delivered to the member and not yet read. */
  pending?: number;
}

/** The params of toolhost/teamChanged: a team's whole state. */
export interface TeamState {
  name: string;
  description?: string;
  members: TeamMember[];
  /** The last notification of a team that TeamDelete removed. */
  deleted?: boolean;
}

/** A tree node: a team (with its members as children) or a member. */
export interface TeamNode {
  kind: "team" | "member";
  /** The team's name, for a member its team's. */
  team: string;
  label: string;
  description: string;
  tooltip: string;
  icon: string;
  children: TeamNode[];
}

const MEMBER_ICONS: Record<string, string> = {
  working: "sync~spin",
  idle: "debug-pause",
  ended: "pass",
};

/**
 * The teams shown: each notification replaces its team's state (names
 * compare without case, as the server's do); a deleted team is dropped.
 */
export class TeamModel {
  private readonly teams = new Map<string, TeamState>();

  /**
   * Applies one notification; returns a line saying what changed for the
   * user ("" when nothing they would notice did), or undefined when the
   * params are not a team's state.
   */
  apply(change: TeamState | undefined): string | undefined {
    if (!change || typeof change.name !== "string" || change.name === "") {
      return undefined;
    }
    const key = change.name.toLowerCase();
    const before = this.teams.get(key);
    if (change.deleted) {
      this.teams.delete(key);
      return `team ${change.name} deleted`;
    }
    const next = { ...change, members: Array.isArray(change.members) ? change.members : [] };
    this.teams.set(key, next);
    if (!before) {
      const names = next.members.map((m) => m.name).join(", ");
      return names ? `team ${next.name} started: ${names}` : `team ${next.name} started`;
    }
    const was = new Map(before.members.map((m) => [m.name, m.state]));
    const moved = next.members.filter((m) => was.get(m.name) !== m.state).map((m) => `${m.name} ${m.state}`);
    return moved.length > 0 ? `team ${next.name}: ${moved.join(", ")}` : "";
  }

  /** Forgets every team (the server that ran them is gone). */
  clear(): void {
    this.teams.clear();
  }

  /** The teams, by name. */
  list(): TeamState[] {
    return [...this.teams.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Members still working, over every team: the view's badge. */
  working(): number {
    return this.list().reduce((n, t) => n + t.members.filter((m) => m.state === "working").length, 0);
  }
}

/** "2 working, 1 idle, 1 ended" for a team's members (states in that order). */
export function memberSummary(members: TeamMember[]): string {
  const counts = new Map<string, number>();
  for (const m of members) {
    counts.set(m.state, (counts.get(m.state) ?? 0) + 1);
  }
  const order = ["working", "idle", "ended", ...[...counts.keys()].filter((s) => !(s in MEMBER_ICONS))];
  return order.filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s}`).join(", ");
}

function memberDescription(m: TeamMember): string {
  const pending = m.pending ?? 0;
  if (pending <= 0) {
    return m.state;
  }
  return `${m.state}, ${pending} unread message${pending === 1 ? "" : "s"}`;
}

/** The tree: one node per team, its members below in the server's order. */
export function teamNodes(teams: TeamState[]): TeamNode[] {
  return teams.map((t) => {
    const members: TeamNode[] = t.members.map((m) => ({
      kind: "member",
      team: t.name,
      label: m.name,
      description: memberDescription(m),
      tooltip: `${m.name} (${t.name}): ${memberDescription(m)}${m.taskId ? `; task ${m.taskId} (TaskOutput shows its replies)` : ""}`,
      icon: MEMBER_ICONS[m.state] ?? "question",
      children: [],
    }));
    const summary = memberSummary(t.members);
    return {
      kind: "team",
      team: t.name,
      label: t.name,
      description: summary,
      tooltip: t.description ? `${t.name}: ${t.description}\n${summary}` : `${t.name}: ${summary}`,
      icon: "organization",
      children: members,
    };
  });
}
