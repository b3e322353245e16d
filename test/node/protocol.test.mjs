// Drives a real `toolhost serve` process from Node with vscode-jsonrpc, the
// JSON-RPC library under VS Code's language client: framing, lifecycle,
// listTools/callTool, edits applied by the client, a permission prompt, a
// question, the trust question, and cancellation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
// vscode-jsonrpc is CommonJS: its named exports come through the default.
import rpc from 'vscode-jsonrpc/node.js';
import { applyTextEdits } from './textedits.mjs';

const bin = process.env.TOOLHOST_BIN;

// startEditor spawns the server and connects a client that answers the
// server's requests the way an editor would.
function startEditor(root) {
  // The trust the editor gives the folder is kept in a config folder of the
  // test's own, not the developer's.
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-node-config-'));
  const child = spawn(bin, ['serve'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: config } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const conn = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  const editor = {
    conn, exited, stderr: () => stderr,
    // buffers holds the documents the editor changed, by path.
    buffers: new Map(),
    applyEdits: [],
    permissions: [],
    questions: [],
    trustQuestions: [],
  };
  // mcpPrompt resolves with the first permission request for an MCP server.
  let gotMCPPrompt;
  editor.mcpPrompt = new Promise((resolve) => { gotMCPPrompt = resolve; });
  conn.onRequest('workspace/applyEdit', (params) => {
    editor.applyEdits.push(params);
    for (const change of params.edit.documentChanges) {
      if (change.kind === 'create') {
        editor.buffers.set(fileURLToPath(change.uri), '');
        continue;
      }
      const file = fileURLToPath(change.textDocument.uri);
      const before = editor.buffers.has(file) ? editor.buffers.get(file) : fs.readFileSync(file, 'utf8');
      editor.buffers.set(file, applyTextEdits(before, change.edits));
    }
    return { applied: true };
  });
  conn.onRequest('toolhost/requestPermission', (params) => {
    editor.permissions.push(params);
    // Tools may run; a project's MCP server may not start.
    if (params.toolName.startsWith('mcp__')) {
      gotMCPPrompt(params);
      return { decision: 'deny', message: 'not in this test' };
    }
    return { decision: 'allow' };
  });
  // The folder asks to start an MCP server: the user trusts it, so the
  // server then asks once more, for that server.
  conn.onRequest('toolhost/requestTrust', (params) => {
    editor.trustQuestions.push(params);
    return { trust: true };
  });
  conn.onRequest('toolhost/askUserQuestion', (params) => {
    editor.questions.push(params);
    const answers = {};
    for (const q of params.questions) answers[q.question] = q.options[1].label;
    return { answers };
  });
  conn.listen();
  return editor;
}

function sampleWorkspace() {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-node-')));
  fs.writeFileSync(path.join(root, 'hello.txt'), 'hello\nworld\n');
  fs.writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({
    mcpServers: { local: { command: process.execPath, args: ['-e', 'setTimeout(() => {}, 1e6)'] } },
  }));
  return root;
}

async function initialize(editor, root) {
  const result = await editor.conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(root).href,
    capabilities: {
      workspace: { applyEdit: true, workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } },
      experimental: { toolhost: { requestPermission: true, askUserQuestion: true, requestTrust: true } },
    },
  });
  await editor.conn.sendNotification('initialized', {});
  return result;
}

async function shutdown(editor) {
  await editor.conn.sendRequest('shutdown');
  await editor.conn.sendNotification('exit');
  const code = await editor.exited;
  editor.conn.dispose();
  return code;
}

test('toolhost serve speaks LSP-framed JSON-RPC to vscode-jsonrpc', { skip: !bin && 'set TOOLHOST_BIN' }, async (t) => {
  const root = sampleWorkspace();
  const editor = startEditor(root);
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));

  const init = await initialize(editor, root);
  assert.equal(init.serverInfo.name, 'toolhost');
  assert.ok(init.capabilities.experimental.toolhost.methods.includes('toolhost/callTool'));

  await t.test('listTools gives definitions with registry state', async () => {
    const { tools } = await editor.conn.sendRequest('toolhost/listTools', { format: 'anthropic' });
    const read = tools.find((x) => x.name === 'Read');
    assert.ok(read, 'Read is listed');
    assert.equal(read.input_schema.type, 'object');
    assert.deepEqual(read.input_schema.required, ['file_path']);
    assert.equal(read.category, 'core');
    assert.equal(read.autoAllowed, true);
    const openai = await editor.conn.sendRequest('toolhost/listTools', { format: 'openai' });
    assert.equal(openai.tools[0].type, 'function');
  });

  await t.test('callTool Read returns numbered lines', async () => {
    const res = await editor.conn.sendRequest('toolhost/callTool', {
      name: 'Read', callId: 'toolu_1', input: { file_path: path.join(root, 'hello.txt') },
    });
    assert.equal(res.isError, false);
    assert.equal(res.callId, 'toolu_1');
    assert.equal(res.content[0].text, '     1\thello\n     2\tworld\n');
    assert.equal(typeof res.durationMs, 'number');
  });

  await t.test('callTools answers a model turn in the order given', async () => {
    const { results } = await editor.conn.sendRequest('toolhost/callTools', {
      calls: [
        { callId: 'toolu_a', name: 'Read', input: { file_path: 'hello.txt' } },
        { callId: 'toolu_b', name: 'NoSuchTool', input: {} },
        { callId: 'toolu_c', name: 'Glob', input: { pattern: '*.txt' } },
      ],
    });
    assert.deepEqual(results.map((r) => r.callId), ['toolu_a', 'toolu_b', 'toolu_c']);
    assert.equal(results[0].content[0].text, '     1\thello\n     2\tworld\n');
    assert.equal(results[1].isError, true);
    assert.match(results[2].content[0].text, /hello\.txt/);
  });

  await t.test('a tool error is a result, a protocol fault a ResponseError', async () => {
    const res = await editor.conn.sendRequest('toolhost/callTool', { name: 'Read', input: {} });
    assert.equal(res.isError, true);
    assert.match(res.content[0].text, /^Error: .*file_path/);
    await assert.rejects(editor.conn.sendRequest('toolhost/callTool', { input: {} }),
      (err) => err.code === -32602 && /"name"/.test(err.message));
    await assert.rejects(editor.conn.sendRequest('toolhost/nope', {}), (err) => err.code === -32601);
  });

  await t.test('Edit goes through workspace/applyEdit and lands on disk', async () => {
    const file = path.join(root, 'hello.txt');
    const res = await editor.conn.sendRequest('toolhost/callTool', {
      name: 'Edit', input: { file_path: file, old_string: 'world', new_string: 'there' },
    });
    assert.equal(res.isError, false, res.content[0].text);
    assert.equal(editor.applyEdits.length, 1);
    assert.equal(editor.buffers.get(file), 'hello\nthere\n');
    // The client does not save applied edits, so the server wrote the file.
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello\nthere\n');
  });

  await t.test('the untrusted folder is asked about with the server\'s command; trusted, the server asks permission first; denied, it stays stopped', async () => {
    const mcpPrompt = await editor.mcpPrompt;
    assert.equal(editor.trustQuestions.length, 1);
    assert.equal(editor.trustQuestions[0].folder, root);
    assert.match(editor.trustQuestions[0].items[0].what, /MCP server "local" runs: /);
    assert.equal(mcpPrompt.toolName, 'mcp__local');
    assert.match(mcpPrompt.title, /local/);
    const status = await editor.conn.sendRequest('toolhost/status', {});
    const local = status.mcpServers.find((s) => s.name === 'local');
    assert.ok(local && local.state !== 'connected', JSON.stringify(status.mcpServers));
  });

  await t.test('AskUserQuestion goes to toolhost/askUserQuestion', async () => {
    const res = await editor.conn.sendRequest('toolhost/callTool', {
      name: 'AskUserQuestion',
      input: { questions: [{ question: 'Tabs or spaces?', header: 'Indent', multiSelect: false,
        options: [{ label: 'Tabs', description: 'One per level.' }, { label: 'Spaces', description: 'Four per level.' }] }] },
    });
    assert.equal(editor.questions.length, 1);
    assert.match(res.content[0].text, /Spaces/);
  });

  await t.test('a cancelled request is answered -32800 and the server keeps serving', async () => {
    const source = new rpc.CancellationTokenSource();
    const pending = editor.conn.sendRequest('toolhost/callTool', {
      name: 'Bash', input: { command: 'sleep 30', description: 'Wait a long time' },
    }, source.token);
    source.cancel();
    await assert.rejects(pending, (err) => err.code === -32800);
    const res = await editor.conn.sendRequest('toolhost/callTool', {
      name: 'Read', input: { file_path: path.join(root, 'hello.txt') },
    });
    assert.equal(res.isError, false);
  });

  assert.equal(await shutdown(editor), 0, editor.stderr());
});

test('exit without shutdown ends the server with code 1', { skip: !bin && 'set TOOLHOST_BIN' }, async () => {
  const root = sampleWorkspace();
  try {
    const editor = startEditor(root);
    await initialize(editor, root);
    await editor.conn.sendNotification('exit');
    assert.equal(await editor.exited, 1);
    editor.conn.dispose();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
