// Starting and stopping code-server for the end-to-end test: a fresh user
// data folder with settings, the .vsix installed in a fresh extensions
// folder, a free port, and a readiness check by polling /healthz.
import { spawn, execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Installs the .vsix into extensionsDir with code-server's CLI. */
export function installExtension({ node, codeServer, extensionsDir, userDataDir, vsix }) {
  execFileSync(node, [codeServer, "--extensions-dir", extensionsDir, "--user-data-dir", userDataDir, "--install-extension", vsix], {
    stdio: "pipe",
  });
}

/**
 * Writes VS Code user settings, and the same as the machine's: code-server
 * runs extensions as on a remote machine, which takes machine-scoped
 * settings (toolhost.path, toolhost.permissionMode) from the machine's
 * settings only.
 */
export function writeUserSettings(userDataDir, settings) {
  for (const scope of ["User", "Machine"]) {
    const dir = path.join(userDataDir, scope);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings, null, 2));
  }
}

/**
 * Starts code-server on `port` with `folder` open; resolves once /healthz
 * answers (polled every 200 ms, at most timeoutMs). Returns {stop, logFile}.
 * Workspace trust is off unless workspaceTrust is set.
 */
export async function startCodeServer({ node, codeServer, port, userDataDir, extensionsDir, folder, logFile, env, workspaceTrust = false, timeoutMs = 60000 }) {
  const log = fs.openSync(logFile, "w");
  const child = spawn(
    node,
    [
      codeServer,
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      ...(workspaceTrust ? [] : ["--disable-workspace-trust"]),
      "--user-data-dir", userDataDir,
      "--extensions-dir", extensionsDir,
      folder,
    ],
    { stdio: ["ignore", log, log], detached: true, env: { ...process.env, ...env } },
  );
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const stop = () => {
    if (!exited) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    fs.closeSync(log);
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) {
      stop();
      throw new Error(`code-server exited early; see ${logFile}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) {
        return { stop, logFile };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error(`code-server did not answer on port ${port} within ${timeoutMs} ms; see ${logFile}`);
}
