import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { bundledPath, expandPath, findOnPath, pathOrigin, pathSetting, pathSettings, remoteSettingsFile, resolveServerPath, settingsFileValue, withPathSettings } from "../src/logic/serverPath";

function tempBin(): { dir: string; bin: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-path-"));
  const bin = path.join(dir, "toolhost");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "plain"), "", { mode: 0o644 });
  return { dir, bin };
}

/** An extension folder as a platform VSIX unpacks it: bin/toolhost, mode `mode`. */
function tempExtension(mode: number): string {
  const ext = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-ext-"));
  fs.mkdirSync(path.join(ext, "bin"));
  fs.writeFileSync(path.join(ext, "bin", "toolhost"), "#!/bin/sh\n", { mode });
  fs.chmodSync(path.join(ext, "bin", "toolhost"), mode);
  return ext;
}

test("expandPath expands ~ and refuses what would be read against the opened folder", () => {
  const cases: { in: string; want?: string; refused?: RegExp }[] = [
    { in: "~/bin/toolhost", want: "/home/u/bin/toolhost" },
    { in: "  /opt/toolhost  ", want: "/opt/toolhost" },
    { in: "~", want: "/home/u" },
    { in: "bin/toolhost", refused: /relative path.*not resolved against the opened folder.*absolute path/ },
    { in: "./toolhost", refused: /relative path/ },
    { in: "toolhost", refused: /relative path/ },
    { in: "${workspaceFolder}/bin/toolhost", refused: /\$\{workspaceFolder\} are not expanded.*absolute path/ },
    { in: "${userHome}/bin/toolhost", refused: /not expanded/ },
  ];
  for (const c of cases) {
    const got = expandPath(c.in, "/home/u");
    if (c.refused) {
      assert.ok("error" in got, `${c.in}: expected a refusal, got ${JSON.stringify(got)}`);
      assert.match(got.error, c.refused, c.in);
      assert.match(got.error, /toolhost\.path/, `${c.in}: the message names the setting`);
    } else {
      assert.deepEqual(got, { path: c.want }, c.in);
    }
  }
});

test("findOnPath finds executables only, and never through a relative PATH entry", () => {
  const { dir, bin } = tempBin();
  assert.equal(findOnPath("toolhost", `/nonexistent${path.delimiter}${dir}`), bin);
  assert.equal(findOnPath("plain", dir), undefined);
  assert.equal(findOnPath("toolhost", ""), undefined);
  const rel = path.relative(process.cwd(), dir);
  assert.equal(findOnPath("toolhost", rel), undefined);
});

test("resolveServerPath: the setting, else the bundled binary, else PATH; failures say what to do", () => {
  const { dir, bin } = tempBin();
  const ext = tempExtension(0o755);
  const emptyExt = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-ext-"));
  // A cloned folder that ships its own binary: never chosen.
  const folder = tempExtension(0o755);
  const cases: { name: string; configured?: string; env: { PATH?: string; HOME?: string }; ext?: string; want?: object; error?: RegExp }[] = [
    { name: "setting wins over bundled", configured: bin, env: {}, ext, want: { path: bin, source: "toolhost.path" } },
    { name: "bundled with no setting", env: { PATH: dir }, ext, want: { path: bundledPath(ext, "linux"), source: "bundled" } },
    { name: "PATH when nothing is bundled", configured: "", env: { PATH: dir }, ext: emptyExt, want: { path: bin, source: "PATH" } },
    { name: "~ in the setting", configured: "~/toolhost", env: { HOME: dir }, ext, want: { path: bin, source: "toolhost.path" } },
    { name: "not executable", configured: path.join(dir, "plain"), env: {}, ext, error: /toolhost\.path is set to .* not an executable file/ },
    { name: "missing file", configured: path.join(dir, "nope"), env: {}, ext, error: /toolhost\.path is set to .* not an executable file/ },
    { name: "relative setting", configured: "bin/toolhost", env: { PATH: dir }, ext: folder, error: /toolhost\.path .*relative path/ },
    { name: "workspaceFolder", configured: "${workspaceFolder}/bin/toolhost", env: {}, ext, error: /toolhost\.path .*workspaceFolder/ },
    { name: "nothing anywhere", env: { PATH: "/nonexistent" }, ext: emptyExt, error: /not found.*toolhost\.path/ },
  ];
  for (const c of cases) {
    const got = resolveServerPath(c.configured, c.env, c.ext, "linux");
    if (c.error) {
      assert.ok("error" in got, `${c.name}: expected an error, got ${JSON.stringify(got)}`);
      assert.match(got.error, c.error, c.name);
    } else {
      assert.deepEqual(got, c.want, c.name);
    }
  }
});

test("resolveServerPath makes the bundled binary executable when the VSIX lost its mode", () => {
  const ext = tempExtension(0o644);
  const got = resolveServerPath(undefined, { PATH: "" }, ext, "linux");
  assert.deepEqual(got, { path: bundledPath(ext, "linux"), source: "bundled" });
  assert.ok((fs.statSync(bundledPath(ext, "linux")).mode & 0o111) !== 0);
});

test("a message about toolhost.path names where its value was set and which value a remote window uses", () => {
  // remoteFile: the Remote settings' own value (undefined: none; null: unreadable).
  const cases: { name: string; value?: string; remote?: string; remoteFile?: string | null; origin: string; command: string; says?: RegExp; not?: RegExp }[] = [
    { name: "local window, set", value: "/opt/toolhost", origin: "User", command: "workbench.action.openSettings" },
    { name: "local window, unset", origin: "unset", command: "workbench.action.openSettings" },
    {
      name: "remote, Remote value only", value: "/opt/toolhost", remote: "ssh-remote", remoteFile: "/opt/toolhost", origin: "Remote", command: "workbench.action.openRemoteSettings",
      says: /It is set in the Remote settings \(ssh-remote\), whose value this remote window uses before one in your User settings\./, not: /ignored/,
    },
    {
      // Both set: VS Code hands over the Remote one, whatever the User settings say.
      name: "remote, both", value: "/opt/remote-toolhost", remote: "ssh-remote", remoteFile: "/opt/remote-toolhost", origin: "Remote", command: "workbench.action.openRemoteSettings",
      says: /set in the Remote settings/,
    },
    {
      name: "remote, User value only (handed over)", value: "/home/u/toolhost", remote: "ssh-remote", remoteFile: undefined, origin: "User", command: "workbench.action.openRemoteSettings",
      says: /It is set in your User settings: the Remote settings \(ssh-remote\) have no toolhost\.path, so VS Code handed the User value to this remote window\. Set toolhost\.path in the Remote settings \(ssh-remote\), whose value this window uses first: a change of the User value may not reach this window/, not: /ignored/,
    },
    {
      name: "remote, neither", remote: "ssh-remote", remoteFile: undefined, origin: "unset", command: "workbench.action.openRemoteSettings",
      says: /set toolhost\.path in the Remote settings \(ssh-remote\): VS Code does not always hand a value in your User settings to a remote window/,
    },
    {
      name: "remote, Remote settings unreadable", value: "/opt/toolhost", remote: "ssh-remote", remoteFile: null, origin: "unknown", command: "workbench.action.openRemoteSettings",
      says: /uses toolhost\.path from the Remote settings \(ssh-remote\), else the one in your User settings/, not: /It is set in/,
    },
  ];
  for (const c of cases) {
    const origin = pathOrigin(c.value, c.remote, c.remoteFile);
    assert.equal(origin, c.origin, c.name);
    assert.equal(pathSettings(c.remote).command, c.command, c.name);
    const msg = withPathSettings("toolhost was not found.", c.remote, origin);
    if (c.says) {
      assert.match(msg, c.says, c.name);
    } else {
      assert.equal(msg, "toolhost was not found.", c.name);
    }
    if (c.not) {
      assert.doesNotMatch(msg, c.not, c.name);
    }
  }
});

test("the Remote settings' file is found beside the global storage and read with comments", () => {
  assert.equal(remoteSettingsFile("/home/u/.vscode-server/data/User/globalStorage/toolhost.toolhost"), "/home/u/.vscode-server/data/Machine/settings.json");
  assert.equal(remoteSettingsFile("/srv/storage/toolhost.toolhost"), undefined);
  const cases: { text: string; want: string | undefined }[] = [
    { text: '{\n  // mine\n  "toolhost.path": "/opt/toolhost",\n}', want: "/opt/toolhost" },
    { text: '{"editor.fontSize": 12}', want: undefined },
    { text: '{"toolhost.path": ""}', want: undefined },
    { text: "", want: undefined },
    { text: "[1]", want: undefined },
  ];
  for (const c of cases) {
    assert.equal(settingsFileValue(c.text), c.want, c.text);
  }
});

test("pathSetting takes the user's (or remote) value, and is not settled before VS Code knows the setting", () => {
  const cases: { name: string; inspected: { defaultValue?: unknown; globalValue?: unknown } | undefined; want: { value: string | undefined; settled: boolean } }[] = [
    // An early activation: VS Code has not read the extension's settings, so
    // it has not dropped a User value that a remote window ignores.
    { name: "unknown setting with a value", inspected: { globalValue: "/home/u/bin/toolhost" }, want: { value: "/home/u/bin/toolhost", settled: false } },
    { name: "unknown setting", inspected: undefined, want: { value: undefined, settled: false } },
    { name: "known, set", inspected: { defaultValue: "", globalValue: "/opt/toolhost" }, want: { value: "/opt/toolhost", settled: true } },
    { name: "known, unset", inspected: { defaultValue: "" }, want: { value: undefined, settled: true } },
    { name: "known, not a string", inspected: { defaultValue: "", globalValue: 3 }, want: { value: undefined, settled: true } },
  ];
  for (const c of cases) {
    assert.deepEqual(pathSetting(c.inspected), c.want, c.name);
  }
});
