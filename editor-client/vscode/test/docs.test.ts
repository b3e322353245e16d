import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

// The extension's folder (tests run from out/test/).
const root = path.resolve(__dirname, "../..");
const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
const editorsPage = fs.readFileSync(path.resolve(root, "../../docs/editors.md"), "utf8");

test("docs/editors.md's settings table has every setting, with its default", () => {
  const props: Record<string, { default?: unknown }> = pkg.contributes.configuration.properties;
  const rows = new Map<string, string>();
  for (const m of editorsPage.matchAll(/^\| `(toolhost\.[\w.]+)` \| `([^`]*)` \|/gm)) {
    rows.set(m[1], m[2]);
  }
  assert.ok(rows.size > 0, "found the settings table");
  for (const [key, p] of Object.entries(props)) {
    assert.ok(rows.has(key), `docs/editors.md lacks a row for the setting ${key}`);
    const want = typeof p.default === "string" ? (p.default === "" ? '""' : p.default) : JSON.stringify(p.default);
    assert.equal(rows.get(key), want, `docs/editors.md gives ${key} the default ${rows.get(key)}, package.json ${want}`);
  }
  for (const key of rows.keys()) {
    assert.ok(key in props, `docs/editors.md documents ${key}, which package.json does not contribute`);
  }
});

test("every palette command the docs name in italics exists", () => {
  const titles = new Set<string>(
    pkg.contributes.commands.map((c: { title: string; category?: string }) => `${c.category ?? ""}: ${c.title}`),
  );
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  let named = 0;
  for (const text of [editorsPage, readme]) {
    for (const m of text.matchAll(/\*(toolhost: [^*]+?)\*/g)) {
      const name = m[1].replace(/\s+/g, " ");
      // Status bar texts are written the same way; they hold a count or a
      // state, never a command's verb.
      if (/^toolhost: (N |\d|watching|starting|crashed|stopped|not found)/.test(name)) {
        continue;
      }
      named++;
      assert.ok(titles.has(name), `the docs name the command "${name}", which package.json does not contribute`);
    }
  }
  assert.ok(named > 3, `found the commands the docs name (${named})`);
});
