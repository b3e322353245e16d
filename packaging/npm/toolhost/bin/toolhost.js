#!/usr/bin/env node
// The npm launcher of toolhost. The binary itself comes in one optional
// dependency per platform (@toolhost/linux-x64, …); npm installs only the
// one whose "os" and "cpu" match this machine. Finding it here, at run time,
// is what lets the package work with no install script: nothing runs at
// `npm install`, and npm 11's allowScripts has nothing to approve.
"use strict";
const { spawn } = require("node:child_process");

const npmOS = { linux: "linux", darwin: "darwin", win32: "win32" }[process.platform];
const npmCPU = { x64: "x64", arm64: "arm64" }[process.arch];
const pkg = `@toolhost/${npmOS}-${npmCPU}`;
const exe = process.platform === "win32" ? "toolhost.exe" : "toolhost";

function binaryPath() {
  if (process.env.TOOLHOST_BINARY) {
    return process.env.TOOLHOST_BINARY;
  }
  if (!npmOS || !npmCPU) {
    fail(`toolhost has no npm package for ${process.platform}-${process.arch}; build it from source: https://github.com/toolhost/toolhost`);
  }
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `the package ${pkg} (toolhost's binary for this machine) is not installed. ` +
        "It is an optional dependency of toolhost: install again without --omit=optional / --no-optional, " +
        "or set TOOLHOST_BINARY to a toolhost binary.",
    );
  }
}

function fail(message) {
  process.stderr.write(`toolhost: ${message}\n`);
  process.exit(1);
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit" });
// The launcher stands in for the binary: signals sent to it (an MCP client
// stopping its server, Ctrl-C) go on to the binary, and its exit is ours.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => fail(`could not run ${err.path ?? "the binary"}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
