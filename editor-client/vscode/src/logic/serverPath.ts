/**
 * Finding the toolhost binary: the `toolhost.path` setting when set, else
 * the binary the platform's VSIX carries in its `bin/`, else `toolhost` on
 * PATH.
 *
 * `toolhost.path` is a machine setting, and it is never resolved against
 * the opened folder: a relative path or `${workspaceFolder}` would let a
 * cloned folder that ships its own `bin/toolhost` choose the program that
 * runs when it opens, in Restricted Mode too. Such values are refused with
 * a message; `~` (the user's home) is the only expansion.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseJsonc } from "jsonc-parser";

/** Where the binary that runs came from (shown in the output channel). */
export type ServerSource = "toolhost.path" | "bundled" | "PATH";

/** The binary to start, or why there is none and what to do. */
export type ResolvedServer = { path: string; source: ServerSource } | { error: string };

/** The binary's file name on this platform. */
export function binaryName(platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? "toolhost.exe" : "toolhost";
}

/** Where a platform VSIX carries its binary, inside the extension's folder. */
export function bundledPath(extensionPath: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionPath, "bin", binaryName(platform));
}

/**
 * Expands a leading `~` to the user's home and checks that what is left is
 * an absolute path, never one read against the opened folder.
 */
export function expandPath(configured: string, home: string): { path: string } | { error: string } {
  let p = configured.trim();
  if (p.includes("${")) {
    return {
      error: `toolhost.path is "${configured}", but variables such as \${workspaceFolder} are not expanded: it is a machine setting, and the opened folder never chooses the program that runs. Set toolhost.path to the binary's absolute path, or clear it to use the binary bundled with the extension.`,
    };
  }
  if (p === "~" || p.startsWith("~/") || p.startsWith("~\\")) {
    p = path.join(home, p.slice(1));
  }
  if (!path.isAbsolute(p)) {
    return {
      error: `toolhost.path is "${configured}", a relative path; it is not resolved against the opened folder (that folder could ship its own binary). Set toolhost.path to the binary's absolute path (~/ for your home works), or clear it to use the binary bundled with the extension.`,
    };
  }
  return { path: p };
}

/** Looks `name` up in a PATH string; undefined when absent. Relative PATH entries are skipped. */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    // A relative entry would be read against the opened folder, the server's working folder.
    if (!dir || !path.isAbsolute(dir)) {
      continue;
    }
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/**
 * The value of `toolhost.path` that counts, from the configuration's
 * inspect(): the user's own (in a remote window, the Remote settings'),
 * never a folder's. `settled` is false while VS Code does not know the
 * setting yet (it has no default): until it has read the extension's
 * settings it has not applied their machine scope, so a value shown then
 * may be the local User settings' one that it drops a moment later. Read
 * then, the first start would find a path that the restart after a crash
 * does not.
 */
export function pathSetting(inspected: { defaultValue?: unknown; globalValue?: unknown } | undefined): { value: string | undefined; settled: boolean } {
  const value = typeof inspected?.globalValue === "string" ? inspected.globalValue : undefined;
  return { value, settled: inspected?.defaultValue !== undefined };
}

/** Resolves the binary to start: the setting, else the bundled binary, else PATH. */
export function resolveServerPath(
  configured: string | undefined,
  env: { HOME?: string; PATH?: string },
  extensionPath: string | undefined,
  platform: NodeJS.Platform = process.platform,
): ResolvedServer {
  if (configured && configured.trim() !== "") {
    const expanded = expandPath(configured, env.HOME ?? "");
    if ("error" in expanded) {
      return expanded;
    }
    if (!isExecutable(expanded.path)) {
      return {
        error: `toolhost.path is set to "${configured}", but ${expanded.path} is not an executable file. Correct toolhost.path, or clear it to use the binary bundled with the extension.`,
      };
    }
    return { path: expanded.path, source: "toolhost.path" };
  }
  if (extensionPath) {
    const bundled = bundledPath(extensionPath, platform);
    if (fs.existsSync(bundled)) {
      makeExecutable(bundled);
      if (isExecutable(bundled)) {
        return { path: bundled, source: "bundled" };
      }
    }
  }
  const found = findOnPath(binaryName(platform), env.PATH);
  if (!found) {
    return {
      error: `toolhost was not found: this installation of the extension carries no toolhost binary for ${platform}-${process.arch}, and there is none on PATH. Install the extension's VSIX for your platform, or set toolhost.path to the binary's absolute path.`,
    };
  }
  return { path: found, source: "PATH" };
}

/**
 * Sets the execute bits of the bundled binary when unpacking the VSIX lost
 * them (a zip need not carry Unix modes). The file is the extension's own.
 */
function makeExecutable(p: string): void {
  if (process.platform === "win32" || isExecutable(p)) {
    return;
  }
  try {
    fs.chmodSync(p, 0o755);
  } catch {
    // Reported by the caller: the file stays not executable.
  }
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

/**
 * Where the value of toolhost.path that this window got was set. In a
 * remote window VS Code hands the extension the Remote settings' value
 * when they have one; with none it may hand over the User settings' one
 * (code-server does at some first starts of a window, never after a
 * change of the Remote settings), and the API does not say which it did. "unknown":
 * a value whose origin the Remote settings' file could not tell.
 */
export type PathOrigin = "User" | "Remote" | "unknown" | "unset";

/**
 * The origin of `value` (the toolhost.path this window got). In a remote
 * window, remoteValue is the Remote settings' own toolhost.path: undefined
 * when they have none, null when their file could not be read.
 */
export function pathOrigin(value: string | undefined, remoteName: string | undefined, remoteValue: string | undefined | null): PathOrigin {
  if (value === undefined || value.trim() === "") {
    return "unset";
  }
  if (!remoteName) {
    return "User";
  }
  if (remoteValue === null) {
    return "unknown";
  }
  // A Remote value is the one VS Code hands over; without one, the value came from the User settings.
  return remoteValue !== undefined && remoteValue.trim() !== "" ? "Remote" : "User";
}

/**
 * Where VS Code and code-server keep a remote window's Remote (machine)
 * settings: `<data>/Machine/settings.json`, beside the extension's global
 * storage `<data>/User/globalStorage/<extension id>`. Undefined when the
 * storage path is not laid out so.
 */
export function remoteSettingsFile(globalStoragePath: string): string | undefined {
  const parts = globalStoragePath.split("/");
  if (parts.length < 4 || parts[parts.length - 2] !== "globalStorage" || parts[parts.length - 3] !== "User") {
    return undefined;
  }
  return [...parts.slice(0, -3), "Machine", "settings.json"].join("/");
}

/** toolhost.path in a settings file's text (JSON with comments); undefined when it has none. */
export function settingsFileValue(text: string): string | undefined {
  const settings: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  const value = settings !== null && typeof settings === "object" ? (settings as Record<string, unknown>)["toolhost.path"] : undefined;
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** Where toolhost.path is set for this window, and the command that opens that settings tab. */
export interface PathSettings {
  /** The tab's name, as the Settings editor shows it. */
  where: string;
  command: string;
}

/**
 * The Settings tab to open at toolhost.path. In a remote window (SSH, a
 * container, WSL, code-server: `vscode.env.remoteName` is set) that is
 * the Remote settings of the machine the window runs on, wherever the
 * value came from: VS Code uses their value first, while a change of a
 * User value it handed over may not reach the window (code-server reports
 * none).
 */
export function pathSettings(remoteName: string | undefined): PathSettings {
  return remoteName
    ? { where: `Remote settings (${remoteName})`, command: "workbench.action.openRemoteSettings" }
    : { where: "User settings", command: "workbench.action.openSettings" };
}

/**
 * A message about toolhost.path; in a remote window it goes on with where
 * the value was set and which value that window uses.
 */
export function withPathSettings(message: string, remoteName: string | undefined, origin: PathOrigin): string {
  if (!remoteName) {
    return message;
  }
  const remote = `Remote settings (${remoteName})`;
  switch (origin) {
    case "Remote":
      return `${message} It is set in the ${remote}, whose value this remote window uses before one in your User settings.`;
    case "User":
      return `${message} It is set in your User settings: the ${remote} have no toolhost.path, so VS Code handed the User value to this remote window. Set toolhost.path in the ${remote}, whose value this window uses first: a change of the User value may not reach this window.`;
    case "unknown":
      return `${message} This remote window uses toolhost.path from the ${remote}, else the one in your User settings.`;
    default:
      return `${message} In this remote window (${remoteName}), set toolhost.path in the ${remote}: VS Code does not always hand a value in your User settings to a remote window.`;
  }
}
