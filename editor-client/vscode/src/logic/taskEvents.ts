/**
 * Which `toolhost/taskChanged` events the user is told of beyond the output
 * channel: a Monitor's start and end (it watches a command or a WebSocket
 * for minutes, and the user should know that something is watching, and
 * when it stops). Other background tasks are only logged.
 */

/** The params of toolhost/taskChanged. */
export interface TaskChange {
  taskId: string;
  status: string;
  command?: string;
  exitCode?: number;
}

/** The status bar text for a task change, or undefined to only log it. */
export function taskNotice(t: TaskChange | undefined): string | undefined {
  if (!t || typeof t.taskId !== "string" || !t.taskId.startsWith("monitor-")) {
    return undefined;
  }
  const what = t.command ? `: ${t.command}` : "";
  if (t.status === "running") {
    return `toolhost: watching ${t.taskId}${what}`;
  }
  const exit = t.exitCode !== undefined ? ` (exit ${t.exitCode})` : "";
  return `toolhost: ${t.taskId} ${t.status}${exit}${what}`;
}
