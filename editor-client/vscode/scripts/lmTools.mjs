// Sets contributes.languageModelTools of package.json to the list read on
// stdin (`toolhost tools lm`, run by `make docs`). VS Code reads the tools
// of agent mode from package.json only; a Go test fails when it is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "package.json");
const tools = JSON.parse(readFileSync(0, "utf8"));
if (!Array.isArray(tools) || tools.length === 0) {
  console.error("lmTools.mjs: expected the JSON array of `toolhost tools lm` on stdin");
  process.exit(1);
}
const pkg = JSON.parse(readFileSync(file, "utf8"));
pkg.contributes.languageModelTools = tools;
writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
console.log(`wrote ${tools.length} language-model tools to ${file}`);
