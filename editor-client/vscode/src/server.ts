/**
 * The server's life as the user sees it: starting, running, crashed,
 * stopped or not configured, each shown in the status bar item with an
 * action. The extension spawns `toolhost serve` itself, so a binary that
 * never answers, or one replaced by a new path, is killed rather than left
 * running. After any restart, what the user chose in this session (the
 * permission mode, "Always allow" rules, the review choice) is sent again,
 * and the status bar shows the mode the server reports.
 */
import { ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import * as os from "node:os";
import * as vscode from "vscode";
import { CloseAction, ErrorAction, LanguageClient, State } from "vscode-languageclient/node";
import { registerCallProgress } from "./callProgress";
import { ClientEvents, createClient } from "./client";
import { ANTHROPIC_EXTENSION_ID, claudeIdeEnabled } from "./logic/claudeIde";
import { initializationOptions, modeOf, statusBarText } from "./logic/modes";
import { type PathOrigin, pathOrigin, pathSetting, pathSettings, remoteSettingsFile, resolveServerPath, settingsFileValue, withPathSettings } from "./logic/serverPath";
import { ClientRequests } from "./logic/protocol";

/** What the status bar item says about the server. */
export type ServerState = "starting" | "running" | "crashed" | "stopped" | "notConfigured";

/** The extension's id (publisher.name), to find its own folder and bundled binary. */
const EXTENSION_ID = "toolhost.toolhost";

/** How long the server may take to answer initialize before it is stopped. */
export const START_TIMEOUT_MS = 15000;

/** How long the first start waits for VS Code to know toolhost.path (see pathSetting). */
const SETTINGS_WAIT_MS = 10000;

/** Crashes within CRASH_WINDOW_MS after which it is not restarted by itself. */
const MAX_AUTO_RESTARTS = 3;
const CRASH_WINDOW_MS = 3 * 60 * 1000;

/** Runs `toolhost serve` and keeps the status bar item true to its state. */
export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  state: ServerState = "stopped";
  /** The permission mode the server reports (undefined until it runs). */
  mode: string | undefined;
  /** The binary the last start ran, found as every start finds it (Show Status names it). */
  binary: string | undefined;
  /** The toolhost.path value the last start read: a change to toolhost.path that leaves it restarts nothing. */
  private startedWithPath: string | undefined;
  /** Where that value was set: the messages about it and their Open Settings name that place. */
  private pathOrigin: PathOrigin = "unset";
  private child: ChildProcess | undefined;
  /** Bumped by every start and stop: callbacks of an older process are ignored. */
  private generation = 0;
  private crashes: number[] = [];
  /** The mode chosen in this session (status bar, command), re-applied after a restart. */
  private chosenMode: string | undefined;
  /** "Always allow" rules of this session, re-applied after a restart. */
  private readonly sessionRules: string[] = [];
  /** The review choice of this session (toggle command), if any. */
  reviewInPreview: boolean | undefined;
  /** The status bar message shown last, cleared when the state changes. */
  private flash: vscode.Disposable | undefined;

  constructor(
    private readonly output: vscode.OutputChannel,
    private readonly statusItem: vscode.StatusBarItem,
    private readonly events: ClientEvents,
    private readonly onGone: () => void,
    /** The extension's global storage: a remote window's Remote settings file lies beside it. */
    private readonly globalStorage: vscode.Uri,
  ) {
    this.show("stopped");
  }

  /** Remembers rules the user always allowed, for later restarts. */
  rememberRules(rules: string[]): void {
    for (const r of rules) {
      if (!this.sessionRules.includes(r)) {
        this.sessionRules.push(r);
      }
    }
  }

  /** Records the mode the user chose (and the server confirmed). */
  chooseMode(mode: string): void {
    this.chosenMode = mode;
    this.showMode(mode);
  }

  /** Shows the server's mode in the status bar. */
  showMode(mode: string | undefined): void {
    this.mode = mode;
    if (this.state === "running") {
      this.show("running");
    }
  }

  /** The running client, or undefined. */
  running(): LanguageClient | undefined {
    return this.client?.isRunning() ? this.client : undefined;
  }

  /**
   * Waits for the user's answer to a dialog the server asked for. When the
   * server stopped while the dialog was open (a modal cannot be closed from
   * here), the answer has no one to go to: nothing is sent, the call is
   * known to be cancelled, and the user is told so instead of meeting the
   * protocol library's "Pending response rejected".
   */
  async answerWhileConnected<T>(what: string, dialog: () => Promise<T>): Promise<T> {
    const gen = this.generation;
    const answer = await dialog();
    if (gen === this.generation) {
      return answer;
    }
    this.output.appendLine(`the answer to "${what}" was not sent: the server that asked has stopped`);
    // A review dismissed because the server went away was not the user's doing.
    if (answer !== null && answer !== undefined) {
      void vscode.window.showWarningMessage(
      `toolhost: the server restarted while "${what}" waited for your answer, so that call was cancelled and nothing ran. Ask the agent to run it again if you still want it.`,
      "Show Output",
      ).then((a) => a && this.output.show(true));
    }
    // Never settles: the connection this answer belonged to is gone.
    return new Promise<T>(() => undefined);
  }

  /** Starts the server (does nothing while one runs). */
  async start(): Promise<void> {
    if (this.client) {
      return;
    }
    const gen = ++this.generation;
    const configured = await this.pathSetting();
    if (gen !== this.generation) {
      return;
    }
    this.startedWithPath = configured;
    this.pathOrigin = pathOrigin(configured, vscode.env.remoteName, vscode.env.remoteName && configured ? await this.remoteSettingsValue() : undefined);
    if (gen !== this.generation) {
      return;
    }
    const config = vscode.workspace.getConfiguration("toolhost");
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const extensionPath = vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath;
    const resolved = resolveServerPath(configured, { HOME: os.homedir(), PATH: process.env.PATH }, extensionPath);
    if ("error" in resolved) {
      const error = withPathSettings(resolved.error, vscode.env.remoteName, this.pathOrigin);
      this.output.appendLine(error);
      this.show("notConfigured", error);
      void vscode.window.showErrorMessage(error, "Open Settings").then((open) => open && this.openPathSettings());
      return;
    }
    this.binary = resolved.path;
    const mode = this.chosenMode ?? config.get<string>("permissionMode");
    const review = this.reviewInPreview ?? config.get<boolean>("reviewEditsInPreview") ?? false;
    const init = initializationOptions(mode, review) as { permissions?: { allow?: string[] } };
    // Claude Code's IDE protocol, unless Anthropic's extension is the
    // CLI's IDE here (docs/agents.md, "Claude Code CLI").
    (init as Record<string, unknown>).server = {
      claudeCodeIde: claudeIdeEnabled(config.get<string>("claudeCodeIde"), vscode.extensions.getExtension(ANTHROPIC_EXTENSION_ID) !== undefined),
    };
    if (this.sessionRules.length > 0) {
      init.permissions = { ...(init.permissions ?? {}), allow: [...this.sessionRules] };
    }
    const serverOptions = () => {
      const child = spawn(resolved.path, ["serve"], { cwd: folder, stdio: "pipe" });
      this.child = child;
      child.on("error", (err) => this.output.appendLine(`could not run ${resolved.path}: ${err.message}`));
      child.stderr?.on("data", (chunk: Buffer) => this.output.append(chunk.toString()));
      return Promise.resolve(child);
    };
    const client = createClient(serverOptions, this.output, init, this.events, {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        void this.closed(gen);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    });
    this.client = client;
    this.show("starting");
    this.output.appendLine(`starting ${resolved.path} serve (from ${resolved.source === "toolhost.path" ? "the setting toolhost.path" : resolved.source === "bundled" ? "the extension's own bin/" : "PATH"})`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${resolved.path} did not answer within ${START_TIMEOUT_MS / 1000} s, so it was stopped. Check that toolhost.path names the toolhost binary (or clear it to use the bundled one), then run "toolhost: Restart Server".`)),
        START_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([client.start(), timeout]);
    } catch (err) {
      if (gen !== this.generation) {
        return;
      }
      // This process is done with: its connection closing later is not a
      // crash to restart from.
      this.generation++;
      this.kill();
      this.client = undefined;
      const message = err instanceof Error ? err.message : String(err);
      this.output.appendLine(`error: ${message}`);
      this.show("crashed", message);
      const where = resolved.source === "toolhost.path" ? ` (the binary the setting toolhost.path names: ${resolved.path})` : ` (${resolved.path})`;
      void this.offerRestart(`toolhost could not start${where}: ${message}`, true);
      return;
    } finally {
      clearTimeout(timer);
    }
    if (gen !== this.generation) {
      return;
    }
    // After start: the library registers its own progress handler then.
    registerCallProgress(client);
    this.show("running");
    const status = await client.sendRequest(ClientRequests.status, {}).catch(() => undefined);
    this.showMode(modeOf(status) ?? mode ?? "default");
    this.events.serverStarted(client, status);
  }

  /**
   * toolhost.path as every start reads it: only the user's (or remote)
   * value counts, as VS Code scopes it; a folder's own settings never
   * choose the program that runs. While VS Code does not know the setting
   * yet (an early activation), it waits (bounded) for it, so that the
   * first start and a restart after a crash read the same value.
   */
  private async pathSetting(): Promise<string | undefined> {
    const read = () => pathSetting(vscode.workspace.getConfiguration("toolhost").inspect<string>("path"));
    const first = read();
    if (first.settled) {
      return first.value;
    }
    this.output.appendLine("waiting for VS Code to read the extension's settings before reading toolhost.path");
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      };
      const timer = setTimeout(done, SETTINGS_WAIT_MS);
      const sub = vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration("toolhost") && read().settled) {
          done();
        }
      });
    });
    return read().value;
  }

  /**
   * The Remote settings' own toolhost.path (undefined: none), read from
   * their file, since the configuration API merges it with the User value;
   * null when the file is not where VS Code keeps it or cannot be read.
   */
  private async remoteSettingsValue(): Promise<string | undefined | null> {
    const file = remoteSettingsFile(this.globalStorage.path);
    if (!file) {
      return null;
    }
    const uri = this.globalStorage.with({ path: file });
    try {
      return settingsFileValue(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    } catch (err) {
      // No file: the Remote settings were never written, so they hold no value.
      return err instanceof vscode.FileSystemError && err.code === "FileNotFound" ? undefined : null;
    }
  }

  /** Opens the Settings tab where toolhost.path is set for this window, at the setting. */
  private async openPathSettings(): Promise<void> {
    // An object: the Remote tab's command takes no bare query string.
    await vscode.commands.executeCommand(pathSettings(vscode.env.remoteName).command, { query: "toolhost.path" });
  }

  /** Whether toolhost.path now differs from the value the last start read. */
  pathChanged(): boolean {
    return pathSetting(vscode.workspace.getConfiguration("toolhost").inspect<string>("path")).value !== this.startedWithPath;
  }

  /** Stops the server and its process. */
  async stop(): Promise<void> {
    this.generation++;
    const client = this.client;
    this.client = undefined;
    if (client && client.state === State.Running) {
      await client.stop(2000).catch(() => undefined);
    }
    this.kill();
    this.onGone();
    this.show("stopped");
  }

  /** Stops and starts again, keeping the session's choices. */
  async restart(): Promise<void> {
    await this.stop();
    this.crashes = [];
    await this.start();
    if (this.state === "running") {
      this.message("toolhost: restarted; mode and session rules applied again");
    }
  }

  /** The connection closed without stop(): a crash. */
  private async closed(gen: number): Promise<void> {
    if (gen !== this.generation) {
      return;
    }
    this.generation++;
    this.client = undefined;
    const child = this.child;
    this.child = undefined;
    this.onGone();
    // The pipes close before the exit status arrives: wait for it briefly,
    // so the message can say how the process ended.
    if (child && child.exitCode === null && child.signalCode === null) {
      await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 1000))]);
    }
    const how = child && (child.signalCode || child.exitCode !== null)
      ? (child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`)
      : "the connection closed";
    this.output.appendLine(`the server stopped (${how})`);
    const now = Date.now();
    this.crashes = this.crashes.filter((t) => now - t < CRASH_WINDOW_MS);
    this.crashes.push(now);
    if (this.crashes.length <= MAX_AUTO_RESTARTS) {
      this.output.appendLine("restarting it; the session's mode and rules are applied again");
      await this.start();
      if (this.state === "running") {
        this.message(`toolhost: the server stopped (${how}) and was restarted`);
      }
      return;
    }
    this.show("crashed", `stopped ${this.crashes.length} times in 3 minutes (${how})`);
    void this.offerRestart(`toolhost stopped ${this.crashes.length} times in 3 minutes (last: ${how}) and was not restarted.`);
  }

  /** The one message about a server that stopped or never started, with what to do next. */
  private async offerRestart(message: string, settings = false): Promise<void> {
    const actions = settings ? ["Restart Server", "Show Output", "Open Settings"] : ["Restart Server", "Show Output"];
    const action = await vscode.window.showErrorMessage(message, ...actions);
    if (action === "Restart Server") {
      await this.restart();
    } else if (action === "Show Output") {
      this.output.show(true);
    } else if (action === "Open Settings") {
      await this.openPathSettings();
    }
  }

  /** Shows a passing status bar message. */
  private message(text: string): void {
    this.flash?.dispose();
    this.flash = vscode.window.setStatusBarMessage(text, 8000);
  }

  private kill(): void {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }

  /** Sets the state and the status bar item that shows it. */
  private show(state: ServerState, why?: string): void {
    this.state = state;
    if (state !== "running") {
      this.flash?.dispose();
      this.flash = undefined;
    }
    const item = this.statusItem;
    item.backgroundColor = undefined;
    switch (state) {
      case "starting":
        item.text = "$(sync~spin) toolhost: starting";
        item.tooltip = "toolhost is starting — click for its output";
        item.command = "toolhost.showOutput";
        break;
      case "running":
        item.text = statusBarText(this.mode ?? "default");
        item.tooltip = "toolhost permission mode — click to change";
        item.command = "toolhost.setPermissionMode";
        break;
      case "crashed":
        item.text = "$(error) toolhost: crashed";
        item.tooltip = `toolhost ${why ?? "stopped"} — click to restart`;
        item.command = "toolhost.restartServer";
        item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
        break;
      case "notConfigured":
        item.text = "$(warning) toolhost: not found";
        item.tooltip = `${why ?? "toolhost was not found"} — click to set toolhost.path`;
        item.command = { title: "Open Settings", command: pathSettings(vscode.env.remoteName).command, arguments: [{ query: "toolhost.path" }] };
        item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
        break;
      default:
        item.text = statusBarText(undefined);
        item.tooltip = "toolhost is stopped — click to start it";
        item.command = "toolhost.restartServer";
    }
  }

  dispose(): void {
    void this.stop();
  }
}


