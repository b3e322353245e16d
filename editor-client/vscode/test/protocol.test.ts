import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

// The extension names toolhost's methods only through src/logic/protocol.ts
// (in string literals; comments may name them).
test("protocol names live in one file", () => {
  const src = path.resolve(__dirname, "../../src");
  const files = [src, path.join(src, "logic")].flatMap((dir) =>
    fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => path.join(dir, f)),
  );
  assert.ok(files.length > 10);
  for (const file of files) {
    if (file.endsWith(path.join("logic", "protocol.ts"))) {
      continue;
    }
    const named = fs.readFileSync(file, "utf8").match(/["'](toolhost|workspace|window)\/[A-Za-z/]+["']/g);
    assert.equal(named, null, `${path.relative(src, file)} names ${named} outside logic/protocol.ts`);
  }
});
