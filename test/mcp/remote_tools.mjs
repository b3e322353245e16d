// A stdio MCP server of 40 stand-in tools, for listing.test.mjs: the shape
// of mcpserver/deferred_test.go's remoteTool (a two-sentence description,
// five documented properties), which toolhost lists at about 760 bytes a
// tool, the size of a real server's (@modelcontextprotocol/server-filesystem
// averages 725). Usage: node remote_tools.mjs SERVER_NAME, where
// SERVER_NAME is the name the client configures it under, so that the
// description names the tool as the client does (mcp__SERVER__TOOL).
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = process.argv[2] ?? "remote";
const tools = Array.from({ length: 40 }, (_, i) => ({
  name: `list_items_${i}`,
  description: `Calls mcp__${server}__list_items_${i}. Talks to the remote service and returns what it answers, as JSON text.`,
  inputSchema: {
    type: "object",
    properties: {
      owner: { type: "string", description: "Repository owner (user or organisation)." },
      repo: { type: "string", description: "Repository name." },
      title: { type: "string", description: "Title of the item to create or change." },
      body: { type: "string", description: "Body text, Markdown allowed." },
      page: { type: "number", description: "Page of results, from 1." },
    },
    required: ["owner", "repo"],
    additionalProperties: false,
  },
}));
const srv = new Server({ name: server, version: "1.0.0" }, { capabilities: { tools: {} } });
srv.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
srv.setRequestHandler(CallToolRequestSchema, async (req) => ({
  content: [{ type: "text", text: `${req.params.name} got ${JSON.stringify(req.params.arguments)}` }],
}));
await srv.connect(new StdioServerTransport());
