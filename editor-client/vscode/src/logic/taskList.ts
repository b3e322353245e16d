/**
 * The task list of `toolhost/taskList` (TaskCreate, TaskUpdate, ...) shown
 * in the same tree as the todo list of `toolhost/todos`: each task becomes a
 * todo labelled with its id, owner and open blockers.
 */
import type { Todo } from "./todos";

/** One task as the server sends it. */
export interface BoardTask {
  id: string;
  subject: string;
  status: string;
  activeForm?: string;
  owner?: string;
  blockedBy?: string[];
}

/** The tasks as todos, in the order the server sent them. */
export function taskListAsTodos(tasks: BoardTask[] | undefined): Todo[] {
  const list = tasks ?? [];
  const done = new Set(list.filter((t) => t.status === "completed").map((t) => t.id));
  return list.map((t) => {
    let content = `#${t.id} ${t.subject}`;
    if (t.owner) {
      content += ` (${t.owner})`;
    }
    const open = (t.blockedBy ?? []).filter((id) => !done.has(id));
    if (open.length > 0) {
      content += ` [blocked by ${open.map((id) => "#" + id).join(", ")}]`;
    }
    const todo: Todo = { content, status: t.status };
    if (t.activeForm) {
      todo.activeForm = t.activeForm;
    }
    return todo;
  });
}
