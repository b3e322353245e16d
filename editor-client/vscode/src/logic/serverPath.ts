/**
 * Finding the toolhost binary: the `toolhost.path` setting (with `~` and
 * `${workspaceFolder}` expanded), else `toolhost` on PATH.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Expands `~` and `${workspaceFolder}` in a configured path. */
export function expandPath(configured: string, home: string, workspaceFolder: string | undefined): string {
  let p = configured.trim();
  if (p === "~" || p.startsWith("~/")) {
    p = path.join(home, p.slice(1));
  }
  if (workspaceFolder) {
    p = p.split("${workspaceFolder}").join(workspaceFolder);
  }
  if (!path.isAbsolute(p) && workspaceFolder && p.includes(path.sep)) {
    p = path.join(workspaceFolder, p);
  }
  return p;
}

/** Looks `name` up in a PATH string; undefined when absent. */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    if (!dir) {
      continue;
    }
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** Resolves the command to start, or explains why there is none. */
export function resolveServerPath(
  configured: string | undefined,
  env: { HOME?: string; PATH?: string },
  workspaceFolder: string | undefined,
): { path: string } | { error: string } {
  if (configured && configured.trim() !== "") {
    const p = expandPath(configured, env.HOME ?? "", workspaceFolder);
    if (!isExecutable(p)) {
      return { error: `toolhost.path is set to "${configured}", but ${p} is not an executable file.` };
    }
    return { path: p };
  }
  const found = findOnPath(process.platform === "win32" ? "toolhost.exe" : "toolhost", env.PATH);
  if (!found) {
    return { error: "toolhost was not found on PATH. Install it or set toolhost.path." };
  }
  return { path: found };
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) {
      return false;
    }
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
