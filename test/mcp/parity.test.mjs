// `npm test` (run by `make test-node` with TOOLHOST_BIN set): the side-by-side
// parity check. The same cases run against `toolhost mcp` and Claude Code's
// own `claude mcp serve` (the npm package pinned in package.json, offline,
// with a throwaway home), each in its own copy of the same fixture folder;
// each case's outcome is reduced to what a model acts on (whether the call
// failed, the file on disk, the image it got, key phrases) and the two are
// compared. A difference fails the check unless it is one of the documented
// intentional differences below (docs/tools.md).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync, crc32 } from "node:zlib";
import { randomBytes } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { compareListings, compareSDK, sdkInputs, unexplained } from "./schemas.mjs";

const bin = process.env.TOOLHOST_BIN;
const here = dirname(fileURLToPath(import.meta.url));
const claude = join(here, "node_modules", ".bin", "claude");
const sdkTools = join(here, "node_modules", "@anthropic-ai", "claude-code", "sdk-tools.d.ts");

// allowed are the documented intentional differences: case name → why,
// with the section of docs/tools.md that says so. Any other difference
// fails the check.
const allowed = new Map([
  ["a whole-file Read over 256 KB", "docs/tools.md, Read: a whole-file read of a file over 256 KB gets the partial first page where Claude Code answers a size error"],
  ["an image whose bytes do not decode is an error", "docs/tools.md, Read: an image's pixel data is checked whole before it is sent; Claude Code sends a header that reads over damaged pixel data, which the API refuses"],
  ["the Skill tool's description lists the user's and the project's skills", "docs/tools.md, Skill: the skills are listed in the tool's description, where Claude Code's CLI names them in the conversation (which an MCP server cannot reach) and its MCP server lists none"],
  ["Write keeps UTF-16BE and its BOM", "docs/tools.md, Write: a UTF-16BE file is written back in UTF-16BE, where Claude Code refuses to write it"],
]);

// png is a w×h RGB image as PNG bytes: every pixel grey, or each row
// from row(y) (a filter byte, then w×3 bytes).
function png(w, h, row = () => Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, 0x80)])) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const raw = Buffer.concat(Array.from({ length: h }, (_, y) => row(y)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

// dimensions reads an image's size from PNG or JPEG bytes.
function dimensions(buf) {
  if (buf.subarray(1, 4).toString("latin1") === "PNG") return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
  if (buf[0] === 0xff && buf[1] === 0xd8) {
    for (let i = 2; i + 9 < buf.length; ) {
      const marker = buf[i + 1];
      const len = buf.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        return [buf.readUInt16BE(i + 7), buf.readUInt16BE(i + 5)];
      }
      i += 2 + len;
    }
  }
  return null;
}

// image is what a model gets of an image result: its type and size.
// toolhost answers with an MCP image block; Claude Code's server with its
// tool's JSON output as text ({type: "image", file: {base64, type}}).
function image(res) {
  let data, mimeType;
  const block = res.content?.find((c) => c.type === "image");
  if (block) {
    [data, mimeType] = [block.data, block.mimeType];
  } else {
    try {
      const out = JSON.parse(text(res));
      if (out?.type === "image") [data, mimeType] = [out.file.base64, out.file.type];
    } catch {
      // not JSON: no image
    }
  }
  if (!data) return null;
  const dims = dimensions(Buffer.from(data, "base64"));
  return { mimeType, width: dims?.[0], height: dims?.[1] };
}

// structured is a result's structured output: toolhost's
// structuredContent, or the JSON text Claude Code's server answers with.
function structured(res) {
  if (res.structuredContent) return res.structuredContent;
  try {
    return JSON.parse(text(res));
  } catch {
    return null;
  }
}

const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const hex = (dir, name) => readFileSync(join(dir, name)).toString("hex");

// files lists the fixture folder's files, recursively, relative.
function files(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  ).sort();
}

const utf16le = (s) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
const utf8bom = (s) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(s, "utf8")]);
const utf16be = (s) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(s, "utf16le").swap16()]);

// noisePNG is a w×h RGB image of random pixels: it does not compress, so
// at 1900×1900 its base64 is far over the Messages API's 5 MB per image.
const noisePNG = (w, h) => png(w, h, () => Buffer.concat([Buffer.from([0]), randomBytes(w * 3)]));

// imageData is the base64 an image result carries for SDK and hook
// consumers: toolhost's structuredContent.file.base64, or the JSON text of
// Claude Code's server.
function imageData(res) {
  const out = structured(res);
  return out?.type === "image" ? out.file?.base64 ?? null : null;
}

// readOf is a case that Reads file (holding bytes); observe reduces the
// result.
function readOf(name, file, bytes, observe) {
  return {
    name,
    setup: (dir) => writeFileSync(join(dir, file), bytes),
    calls: (dir) => [["Read", { file_path: join(dir, file) }]],
    observe: (_dir, [r]) => observe(r),
  };
}

// changeAfterRead is a case that Reads file (holding bytes), then changes
// it with tool (Write or Edit, with args); the outcome is whether the
// change failed and the bytes on disk.
function changeAfterRead(name, file, bytes, tool, args) {
  return {
    name,
    setup: (dir) => writeFileSync(join(dir, file), bytes),
    calls: (dir) => [["Read", { file_path: join(dir, file) }], [tool, { file_path: join(dir, file), ...args }]],
    observe: (dir, [, change]) => ({ isError: !!change.isError, disk: hex(dir, file) }),
  };
}

// cases are issue 29's differences. Each writes its files into the
// fixture folder (setup), makes its calls in order, and reduces what it
// saw (its calls' results and the server's tool list) to the outcome
// compared (observe).
const cases = [
  readOf("PNG bytes named .jpg are sent as image/png", "shot.jpg", png(4, 3), (r) => ({ isError: !!r.isError, image: image(r) })),
  {
    name: "a 1×9000 PNG is scaled to at most 2000 px, keeping its aspect",
    setup: (dir) => writeFileSync(join(dir, "tall.png"), png(1, 9000)),
    calls: (dir) => [["Read", { file_path: join(dir, "tall.png") }]],
    observe: (_dir, [r]) => {
      const img = image(r);
      return { isError: !!r.isError, mimeType: img?.mimeType, fits: !!img && Math.max(img.width, img.height) <= 2000 && img.height >= img.width };
    },
  },
  {
    name: "an empty .png is an error that says it is empty",
    setup: (dir) => writeFileSync(join(dir, "empty.png"), ""),
    calls: (dir) => [["Read", { file_path: join(dir, "empty.png") }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, image: image(r), saysEmpty: /empty/i.test(text(r)) }),
  },
  changeAfterRead("Write keeps UTF-16LE and its BOM", "wide.txt", utf16le("old\r\n"), "Write", { content: "new é\n" }),
  changeAfterRead("Write keeps a UTF-8 BOM", "bom.txt", utf8bom("old\n"), "Write", { content: "new\n" }),
  changeAfterRead("Edit of a UTF-16LE file keeps its encoding", "edit16.txt", utf16le("alpha\nbeta\n"), "Edit", { old_string: "beta", new_string: "gamma" }),
  {
    name: "Bash keeps the new folder only after a command that succeeded",
    setup: (dir) => mkdirSync(join(dir, "sub"), { recursive: true }),
    calls: () => [["Bash", { command: "cd sub && false" }], ["Bash", { command: "pwd" }], ["Bash", { command: "cd sub" }], ["Bash", { command: "pwd" }], ["Bash", { command: "cd .." }]],
    observe: (dir, [failed, afterFailed, , afterSucceeded]) => ({
      failedIsError: !!failed.isError,
      afterFailed: text(afterFailed).includes(join(dir, "sub")) ? "sub" : text(afterFailed).includes(dir) ? "root" : text(afterFailed),
      afterSucceeded: text(afterSucceeded).includes(join(dir, "sub")) ? "sub" : text(afterSucceeded),
    }),
  },
  {
    name: "Edit of a binary file after its Read failed says it is binary, not to read it first",
    setup: (dir) => writeFileSync(join(dir, "blob.bin"), Buffer.from([0, 1, 2, 0, 0xff, 0x10, 0, 0x41])),
    calls: (dir) => [["Read", { file_path: join(dir, "blob.bin") }], ["Edit", { file_path: join(dir, "blob.bin"), old_string: "A", new_string: "B" }]],
    observe: (dir, [r, e]) => ({ readIsError: !!r.isError, editIsError: !!e.isError, asksToRead: /read it first|has not been read/i.test(text(e)), disk: hex(dir, "blob.bin") }),
  },
  {
    name: "a NUL byte in a text file is shown, not refused",
    setup: (dir) => writeFileSync(join(dir, "nul.txt"), "one\0two\nthree\n"),
    calls: (dir) => [["Read", { file_path: join(dir, "nul.txt") }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, showsThree: text(r).includes("three") }),
  },
  {
    name: "a negative offset reads from line 1",
    setup: (dir) => writeFileSync(join(dir, "lines.txt"), "first\nsecond\n"),
    calls: (dir) => [["Read", { file_path: join(dir, "lines.txt"), offset: -3 }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, showsFirst: text(r).includes("first") }),
  },
  {
    name: "a long output is saved whole, outside the project",
    setup: () => {},
    calls: () => [["Bash", { command: "seq 1 40000" }]],
    observe: (dir, [r]) => {
      const out = structured(r) ?? {};
      const saved = out.persistedOutputPath;
      return {
        isError: !!r.isError,
        shows: /(^|\n|")1\\?n?\n?2/.test(text(r)),
        savedOutside: !!saved && !saved.startsWith(dir + "/"),
        savedSize: saved ? statSync(saved).size : null,
        persistedOutputSize: out.persistedOutputSize ?? null,
        newFiles: files(dir),
      };
    },
  },
  {
    name: "Write over a Latin-1 file is refused and keeps its bytes",
    setup: (dir) => writeFileSync(join(dir, "latin.txt"), Buffer.from("caf\xe9\n", "latin1")),
    calls: (dir) => [["Read", { file_path: join(dir, "latin.txt") }], ["Write", { file_path: join(dir, "latin.txt"), content: "new\n" }]],
    observe: (dir, [r, w]) => ({ readIsError: !!r.isError, writeIsError: !!w.isError, disk: hex(dir, "latin.txt") }),
  },
  {
    name: "Edit of a binary file without a Read is refused at once",
    setup: (dir) => writeFileSync(join(dir, "blob2.bin"), Buffer.from([0x41, 0, 0, 0x42])),
    calls: (dir) => [["Edit", { file_path: join(dir, "blob2.bin"), old_string: "A", new_string: "C" }]],
    observe: (dir, [e]) => ({ isError: !!e.isError, asksToRead: /read it first|has not been read/i.test(text(e)), disk: hex(dir, "blob2.bin") }),
  },
  {
    name: "a whole-file Read over 256 KB",
    setup: (dir) => writeFileSync(join(dir, "big.txt"), Array.from({ length: 40000 }, (_, i) => `line ${i + 1} of a big file`).join("\n")),
    calls: (dir) => [["Read", { file_path: join(dir, "big.txt") }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, showsFirstLine: text(r).includes("line 1 of a big file") }),
  },
  {
    name: "a 9000×2 PNG is scaled within 2000 px, under the API's 8000 px limit",
    setup: (dir) => writeFileSync(join(dir, "wide.png"), png(9000, 2)),
    calls: (dir) => [["Read", { file_path: join(dir, "wide.png") }]],
    observe: (_dir, [r]) => {
      const img = image(r);
      return { isError: !!r.isError, fits: !!img && img.width <= 2000 && img.width >= img.height };
    },
  },
  {
    name: "an image over the API's 5 MB is sent under it",
    setup: (dir) => writeFileSync(join(dir, "noise.png"), noisePNG(1900, 1900)),
    calls: (dir) => [["Read", { file_path: join(dir, "noise.png") }]],
    observe: (_dir, [r]) => {
      const data = r.content?.find((c) => c.type === "image")?.data ?? imageData(r);
      return { isError: !!r.isError, sent: !!data, underLimit: !!data && data.length <= 5 * 1024 * 1024 };
    },
  },
  readOf("an image whose bytes do not decode is an error", "broken.png", Buffer.concat([png(4, 4).subarray(0, 40), Buffer.alloc(64, 0x55)]),
    (r) => ({ isError: !!r.isError, image: image(r) })),
  {
    name: "an image result carries its base64 for SDK consumers",
    setup: (dir) => writeFileSync(join(dir, "small.png"), png(3, 2)),
    calls: (dir) => [["Read", { file_path: join(dir, "small.png") }]],
    observe: (_dir, [r]) => {
      const data = imageData(r);
      return { isError: !!r.isError, decodes: !!data && JSON.stringify(dimensions(Buffer.from(data, "base64"))) === "[3,2]" };
    },
  },
  changeAfterRead("Write keeps UTF-16BE and its BOM", "wide-be.txt", utf16be("old\n"), "Write", { content: "new é\n" }),
  changeAfterRead("Edit keeps a UTF-8 BOM", "edit-bom.txt", utf8bom("alpha\nbeta\n"), "Edit", { old_string: "beta", new_string: "gamma" }),
  changeAfterRead("Edit over a Latin-1 file is refused and keeps its bytes", "latin-edit.txt", Buffer.from("caf\xe9 au lait\n", "latin1"), "Edit", { old_string: "lait", new_string: "miel" }),
  {
    name: "a command past its timeout says after how long",
    setup: () => {},
    calls: () => [["Bash", { command: "sleep 30", timeout: 1000 }]],
    // Claude Code's server answers a timed-out command as text (exit 143 and
    // the time); the structured timedOutAfterMs of its SDK schema is
    // checked in Go (TestBashTimeoutKillsGrandchildren). Compared here: the time is told.
    observe: (_dir, [r]) => ({ saysTimedOut: /timed out after (1s|1000 ms)/.test(text(r)) }),
  },
  {
    name: "a repeated Read of an unchanged file is answered in full",
    setup: (dir) => writeFileSync(join(dir, "again.txt"), "same text\n"),
    calls: (dir) => [["Read", { file_path: join(dir, "again.txt") }], ["Read", { file_path: join(dir, "again.txt") }]],
    observe: (_dir, [, r]) => ({ isError: !!r.isError, showsText: text(r).includes("same text") }),
  },
  // Skills: the user's skill (written into the shared home by before) and
  // the project's. Both servers run in bypassPermissions, which trusts the
  // folder in toolhost; before trust toolhost neither lists nor loads a
  // project skill (testdata/sessions/skills.txtar). Claude Code's server
  // answers a loaded skill with its name (the CLI then adds the skill's
  // text to the conversation), toolhost with the text itself.
  {
    name: "the Skill tool's description lists the user's and the project's skills",
    setup: (dir) => {
      mkdirSync(join(dir, ".claude", "skills", "proj"), { recursive: true });
      writeFileSync(join(dir, ".claude", "skills", "proj", "SKILL.md"), "---\nname: proj-checks\ndescription: Runs the project's checks.\n---\nRun make check and report.\n");
    },
    calls: () => [],
    observe: (_dir, _results, listed) => {
      const skill = listed.find((t) => t.name === "Skill");
      return { listed: !!skill, user: /greet-dutch/.test(skill?.description ?? ""), project: /proj-checks/.test(skill?.description ?? "") };
    },
  },
  {
    name: "Skill loads a user skill",
    setup: () => {},
    calls: () => [["Skill", { skill: "greet-dutch" }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, namesIt: /greet-dutch|Hallo/.test(text(r)) }),
  },
  {
    name: "Skill loads a project skill",
    setup: () => {},
    calls: () => [["Skill", { skill: "proj-checks" }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, namesIt: /proj-checks|make check/.test(text(r)) }),
  },
  {
    name: "Skill of an unknown name is an error",
    setup: () => {},
    calls: () => [["Skill", { skill: "no-such-skill" }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError }),
  },
  // ToolSearch: Claude Code's server answers the names it matched (the
  // CLI then loads their definitions), toolhost the definitions.
  {
    name: "ToolSearch select: loads the deferred tool named",
    setup: () => {},
    calls: () => [["ToolSearch", { query: "select:NotebookEdit" }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, namesIt: text(r).includes("NotebookEdit") }),
  },
  {
    name: "ToolSearch by keywords finds a deferred tool",
    setup: () => {},
    calls: () => [["ToolSearch", { query: "jupyter notebook cell", max_results: 3 }]],
    observe: (_dir, [r]) => ({ isError: !!r.isError, namesIt: text(r).includes("NotebookEdit") }),
  },
];

// fixture makes a fresh fixture folder with every case's files.
function fixture(root, name) {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const c of cases) c.setup(dir);
  return dir;
}

// run starts one server in dir, lists its tools, runs every case in order
// over one connection and returns each case's outcome (and the listing, as
// outcomes.tools).
async function run(command, args, dir, env, elicit) {
  const client = new Client({ name: "toolhost-parity", version: "1.0.0" }, elicit ? { capabilities: { elicitation: { form: {} } } } : {});
  await client.connect(new StdioClientTransport({ command, args, cwd: dir, env, stderr: "ignore" }));
  const outcomes = {};
  try {
    const listed = (await client.listTools()).tools;
    outcomes.tools = listed;
    for (const c of cases) {
      const before = new Set(files(dir));
      const results = [];
      for (const [name, args] of c.calls(dir)) {
        results.push(await client.callTool({ name, arguments: args }));
      }
      const outcome = c.observe(dir, results, listed);
      // Only what the case's calls left in the folder counts.
      if (outcome.newFiles) outcome.newFiles = outcome.newFiles.filter((f) => !before.has(f));
      outcomes[c.name] = { outcome, texts: results.map(text).map((t) => t.slice(0, 300)) };
    }
  } finally {
    await client.close();
  }
  return outcomes;
}

let root;
let ours;
let theirs;

before(async () => {
  assert.ok(bin, "set TOOLHOST_BIN to the toolhost binary (make test-node does)");
  root = mkdtempSync(join(tmpdir(), "toolhost-parity-"));
  const home = join(root, "home");
  mkdirSync(join(home, ".config", "toolhost"), { recursive: true });
  // Claude Code's server asks nothing: toolhost runs without prompts too.
  writeFileSync(join(home, ".config", "toolhost", "settings.json"), JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }));
  // The user's skill, where both look for it (~/.claude/skills).
  mkdirSync(join(home, ".claude", "skills", "greet"), { recursive: true });
  writeFileSync(join(home, ".claude", "skills", "greet", "SKILL.md"), "---\nname: greet-dutch\ndescription: Greets the user in Dutch.\n---\nSay Hallo, then the user's name.\n");
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
  };
  [ours, theirs] = await Promise.all([
    run(bin, ["mcp"], fixture(root, "toolhost"), env, false),
    run(claude, ["mcp", "serve"], fixture(root, "claude"), env, false),
  ]);
});

after(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

// The input schemas: see schemas.mjs for what is compared and why.
test("parity: the input schemas of the tools both list, and of the rest against sdk-tools.d.ts", () => {
  const listed = compareListings(ours.tools, theirs.tools);
  const sdk = compareSDK(ours.tools, theirs.tools, sdkInputs(sdkTools));
  // So that the test cannot pass by comparing nothing.
  assert.ok(listed.compared.length >= 12, `only ${listed.compared} are listed by both servers`);
  assert.ok(sdk.compared.length >= 10, `only ${sdk.compared} are compared with sdk-tools.d.ts`);
  if (process.env.PARITY_SHOW) console.log(`# compared: ${listed.compared.join(" ")}; with sdk-tools.d.ts: ${sdk.compared.join(" ")}`);
  const { extra, gone } = unexplained([...listed.differences, ...sdk.differences]);
  assert.deepEqual(extra, [], "toolhost's input schemas differ from Claude Code's where no intended difference is listed (schemas.mjs)");
  assert.deepEqual(gone, [], "these intended differences no longer exist: drop them from schemas.mjs");
});

for (const c of cases) {
  test(`parity: ${c.name}`, () => {
    const a = ours[c.name];
    const b = theirs[c.name];
    const same = JSON.stringify(a.outcome) === JSON.stringify(b.outcome);
    if (process.env.PARITY_SHOW) console.log(`# ${c.name}\n#  toolhost: ${JSON.stringify(a)}\n#  claude:   ${JSON.stringify(b)}`);
    if (allowed.has(c.name)) {
      if (same) console.log(`# "${c.name}" is listed as an intentional difference but now agrees with Claude Code: drop it from the list`);
      return;
    }
    assert.deepEqual(a.outcome, b.outcome, `toolhost differs from Claude Code on "${c.name}" (not a documented difference):\n toolhost: ${JSON.stringify(a.texts)}\n claude:   ${JSON.stringify(b.texts)}`);
  });
}
