/**
 * The todo list of `toolhost/todos` as tree items: one per todo, labelled
 * with its subject (what the task is, which stays put as it runs), the one
 * in progress saying what is being done beside it; and a summary for the
 * view.
 */

/** One todo, in Claude Code's TodoWrite shape. */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed" | string;
  activeForm?: string;
}

/** A tree item without VS Code's types: label, status text and icon id. */
export interface TodoNode {
  label: string;
  description: string;
  icon: string;
  done: boolean;
}

const ICONS: Record<string, string> = {
  pending: "circle-large-outline",
  in_progress: "sync",
  completed: "pass-filled",
};

/** Builds the nodes, in the order the server sent them. */
export function todoNodes(todos: Todo[] | undefined): TodoNode[] {
  return (todos ?? []).map((t) => {
    const active = t.status === "in_progress";
    return {
      label: t.content,
      description: active && t.activeForm ? `in progress: ${t.activeForm}` : t.status.replace("_", " "),
      icon: ICONS[t.status] ?? "circle-large-outline",
      done: t.status === "completed",
    };
  });
}

/** "2/5 done", or "" for an empty list. */
export function todoSummary(todos: Todo[] | undefined): string {
  const list = todos ?? [];
  if (list.length === 0) {
    return "";
  }
  const done = list.filter((t) => t.status === "completed").length;
  return `${done}/${list.length} done`;
}

/** Todos not yet done: the number on the view's badge. */
export function openCount(todos: Todo[] | undefined): number {
  return (todos ?? []).filter((t) => t.status !== "completed").length;
}
