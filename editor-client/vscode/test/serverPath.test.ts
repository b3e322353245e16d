import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { expandPath, findOnPath, resolveServerPath } from "../src/logic/serverPath";

function tempBin(): { dir: string; bin: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolhost-path-"));
  const bin = path.join(dir, "toolhost");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "plain"), "", { mode: 0o644 });
  return { dir, bin };
}

test("expandPath expands ~ and ${workspaceFolder}", () => {
  assert.equal(expandPath("~/bin/toolhost", "/home/u", undefined), "/home/u/bin/toolhost");
  assert.equal(expandPath("${workspaceFolder}/bin/toolhost", "/h", "/w"), "/w/bin/toolhost");
  assert.equal(expandPath("bin/toolhost", "/h", "/w"), "/w/bin/toolhost");
  assert.equal(expandPath("/opt/toolhost", "/h", "/w"), "/opt/toolhost");
});

test("findOnPath finds executables only", () => {
  const { dir, bin } = tempBin();
  assert.equal(findOnPath("toolhost", `/nonexistent${path.delimiter}${dir}`), bin);
  assert.equal(findOnPath("plain", dir), undefined);
  assert.equal(findOnPath("toolhost", ""), undefined);
});

test("resolveServerPath uses the setting, else PATH, and explains failures", () => {
  const { dir, bin } = tempBin();
  assert.deepEqual(resolveServerPath(bin, {}, undefined), { path: bin });
  assert.deepEqual(resolveServerPath("", { PATH: dir }, undefined), { path: bin });
  const notExec = resolveServerPath(path.join(dir, "plain"), {}, undefined);
  assert.match((notExec as { error: string }).error, /not an executable file/);
  const missing = resolveServerPath(undefined, { PATH: "/nonexistent" }, undefined);
  assert.match((missing as { error: string }).error, /not found on PATH/);
});
