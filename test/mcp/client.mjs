// A scripted MCP client built on the official TypeScript SDK, used by the Go
// integration test of `toolhost mcp`: it starts the server command, lists
// the tools, runs the given calls in order and prints one JSON document
// with what it saw.
//
// usage: node client.mjs '<json>'   where json is
//   {"command": "...", "args": [...], "cwd": "...",
//    "elicitation": "allow" | "deny" | "none",   (how permission forms are
//      answered; question forms get their first options, or are declined
//      with "deny")
//    "calls": [{"name": "...", "arguments": {...}, "progress": true}]}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const spec = JSON.parse(process.argv[2]);
const capabilities = spec.elicitation && spec.elicitation !== "none" ? { elicitation: { form: {} } } : {};
const client = new Client({ name: "toolhost-node-test-client", version: "1.0.0" }, { capabilities });

const elicitations = [];
if (capabilities.elicitation) {
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push(request.params.message);
    const props = request.params.requestedSchema?.properties ?? {};
    if ("decision" in props) {
      return { action: "accept", content: { decision: spec.elicitation } };
    }
    if (spec.elicitation === "deny") {
      return { action: "decline" };
    }
    // A question form: pick the first option of every question.
    const content = {};
    for (const [key, prop] of Object.entries(props)) {
      content[key] = prop.type === "array" ? [prop.items.enum[0]] : prop.enum?.[0] ?? "";
    }
    return { action: "accept", content };
  });
}

const transport = new StdioClientTransport({
  command: spec.command,
  args: spec.args ?? [],
  cwd: spec.cwd,
  stderr: "inherit",
});
await client.connect(transport);

const out = {
  serverInfo: client.getServerVersion(),
  protocolVersion: transport.protocolVersion ?? null,
  tools: [],
  results: [],
  elicitations,
};
const listed = await client.listTools();
out.tools = listed.tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null }));

for (const call of spec.calls ?? []) {
  const progress = [];
  const options = call.progress ? { onprogress: (p) => progress.push(p) } : {};
  try {
    const result = await client.callTool({ name: call.name, arguments: call.arguments ?? {} }, undefined, options);
    out.results.push({ name: call.name, isError: result.isError ?? false, content: result.content, progress });
  } catch (err) {
    out.results.push({ name: call.name, protocolError: String(err), progress });
  }
}

await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
