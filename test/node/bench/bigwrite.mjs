// Times a Write of a large file that changes every line, through an editor
// built on vscode-jsonrpc (the JSON-RPC library under VS Code's language
// client): the file is open in the editor, which applies the server's
// workspace/applyEdit to its buffer, reports it with didChange, answers
// "applied", and the server then writes the file. Each run starts a new
// server and checks that the buffer and the disk hold the new content.
//
//   TOOLHOST_BIN=bin/toolhost node test/node/bench/bigwrite.mjs [-mb 5] [-runs 5]
//
// bench/stdio times the same with a client of its own in Go; this one adds
// the editor library's own cost, as a VS Code user has it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node.js';
import { applyTextEdits } from '../textedits.mjs';

const target = 300; // ms, the target for this Write

function flag(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function run(bin, dir, file, oldText, newText) {
  fs.writeFileSync(file, oldText);
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-bench-config-'));
  const child = spawn(bin, ['serve'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, XDG_CONFIG_HOME: config } });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const uri = pathToFileURL(file).href;
  let buffer = oldText;
  let version = 1;
  conn.onRequest('workspace/applyEdit', (params) => {
    for (const change of params.edit.documentChanges) {
      if (change.textDocument?.uri !== uri) return { applied: false, failureReason: 'not the open document' };
      buffer = applyTextEdits(buffer, change.edits);
      version++;
      conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ text: buffer }],
      });
    }
    return { applied: true };
  });
  conn.onRequest(() => { throw new Error('the benchmark answers only workspace/applyEdit'); });
  conn.onNotification(() => {});
  conn.listen();
  try {
    await conn.sendRequest('initialize', {
      processId: process.pid, rootUri: pathToFileURL(dir).href,
      capabilities: { workspace: { applyEdit: true } },
      initializationOptions: { permissions: { defaultMode: 'bypassPermissions' } },
    });
    conn.sendNotification('initialized', {});
    conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'plaintext', version, text: oldText } });
    await conn.sendRequest('toolhost/callTool', { name: 'Read', input: { file_path: file, limit: 5 } });
    const t0 = performance.now();
    const res = await conn.sendRequest('toolhost/callTool', { name: 'Write', input: { file_path: file, content: newText } });
    const took = performance.now() - t0;
    if (res.isError) throw new Error(`the Write failed: ${JSON.stringify(res.content).slice(0, 300)}`);
    if (buffer !== newText) throw new Error('the editor buffer does not hold the new content');
    if (fs.readFileSync(file, 'utf8') !== newText) throw new Error('the file on disk does not hold the new content');
    await conn.sendRequest('shutdown');
    conn.sendNotification('exit');
    return took;
  } finally {
    await exited;
    conn.dispose();
    fs.rmSync(config, { recursive: true, force: true });
  }
}

const bin = process.env.TOOLHOST_BIN;
if (!bin) {
  console.error('bigwrite: set TOOLHOST_BIN to the toolhost binary (make build makes bin/toolhost)');
  process.exit(2);
}
const mb = flag('-mb', 5);
const runs = flag('-runs', 5);
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-bigwrite-')));
try {
  const lines = [];
  let size = 0;
  for (let n = 1; size < mb << 20; n++) {
    const line = `line ${n}: the quick brown fox jumps over the lazy dog\n`;
    lines.push(line);
    size += line.length;
  }
  const oldText = lines.join('');
  const newText = oldText.toUpperCase();
  const file = path.join(dir, 'rewrite.txt');
  const times = [];
  for (let i = 0; i < runs; i++) {
    times.push(await run(path.resolve(bin), dir, file, oldText, newText));
    process.stderr.write(`run ${i + 1}/${runs}: ${times.at(-1).toFixed(0)} ms\n`);
  }
  times.sort((a, b) => a - b);
  const p = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const p50 = p(0.5);
  console.log(`Write ${mb} MB, every line changed, through a vscode-jsonrpc editor (${runs} runs): ` +
    `p50 ${p50.toFixed(0)} ms, p90 ${p(0.9).toFixed(0)} ms; target p50 ≤ ${target} ms: ` +
    `${(p50 / target).toFixed(2)}×, ${p50 <= target ? 'meets' : 'misses'}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
