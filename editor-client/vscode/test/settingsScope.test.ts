import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8"));
const properties: Record<string, { scope?: string }> = manifest.contributes.configuration.properties;

// A folder's own .vscode/settings.json is written by whoever wrote the
// repository. Once VS Code trusts the folder, its values win over the
// user's, so a setting that loosens toolhost's permissions must be one only
// the user (or the remote machine) can set.
test("the permission mode cannot come from a folder's .vscode/settings.json", () => {
  const scope = properties["toolhost.permissionMode"]?.scope;
  assert.ok(scope === "machine" || scope === "application", `toolhost.permissionMode has scope ${scope ?? "window (the default)"}`);
});

// The binary the extension starts runs the moment a folder opens: a
// repository that chose it would run its own program before any trust
// question, whether VS Code trusts the folder or workspace trust is off.
test("the binary cannot come from a folder's .vscode/settings.json", () => {
  const scope = properties["toolhost.path"]?.scope;
  assert.ok(scope === "machine" || scope === "application", `toolhost.path has scope ${scope ?? "window (the default)"}`);
});
