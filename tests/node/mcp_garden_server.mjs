// An MCP server in Node.js written for the tests (tests/mcp/test_mcp_node.py): the
// garden's plant book (read-only) and watering can (side effects), over stdio, with the
// official TypeScript SDK, as a user would bring one to `edge-agent --mcp`.
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const log = process.argv[2]; // where water_plant writes what it poured (optional)
const WATER_ML = { fern: 200, cactus: 20, basil: 150 };
const server = new McpServer({ name: "node-garden", version: "1.0.0" });

server.registerTool(
  "plant_info",
  {
    description: "How many millilitres of water a plant needs a week.",
    inputSchema: { plant: z.string() },
    outputSchema: { plant: z.string(), ml_per_week: z.number().int() },
    annotations: { readOnlyHint: true },
  },
  async ({ plant }) => {
    if (!(plant in WATER_ML)) {
      return { isError: true, content: [{ type: "text", text: `no plant called ${plant}` }] };
    }
    const result = { plant, ml_per_week: WATER_ML[plant] };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  },
);

server.registerTool(
  "water_plant",
  {
    description: "Water a plant with some millilitres of water.",
    inputSchema: { plant: z.string(), ml: z.number().int().positive() },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  async ({ plant, ml }) => {
    if (log) appendFileSync(log, `${plant} ${ml}\n`);
    return { content: [{ type: "text", text: `watered the ${plant} with ${ml} ml` }] };
  },
);

await server.connect(new StdioServerTransport());
