// Agent Tools MCP through the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json), over Streamable
// HTTP and over stdio (`portos --mcp-stdio`): initialize, list tools, call a
// context tool and a granted semantic tool, see an ungranted one refused.
// Started by run.sh, which provides PORTOS_URL (a running server with Agent
// Tools enabled and readPortos granted), PORTOS_BIN and PORTOS_STDIO_DATA_DIR
// (a data directory with the same settings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const { PORTOS_URL, PORTOS_BIN, PORTOS_STDIO_DATA_DIR } = process.env;

async function exercise(transport) {
  const client = new Client({ name: 'portos-ts-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, 'PortOS Agent Tools');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['search_context', 'get_context', 'list_context', 'resolve_navigation', 'context_profile', 'time_now']) {
      assert.ok(names.includes(name), `${name} is listed: ${names}`);
    }
    assert.ok(!names.includes('brain_capture'), 'writePortos is not granted');

    const profile = await client.callTool({ name: 'context_profile', arguments: {} });
    assert.equal(profile.isError, undefined);
    assert.equal(profile.structuredContent.actions.readPortos, true);
    const page = await client.callTool({ name: 'resolve_navigation', arguments: { query: 'api explorer' } });
    assert.equal(page.structuredContent.match.path, '/explorer');

    const now = await client.callTool({ name: 'time_now', arguments: {} });
    assert.ok(!now.isError, JSON.stringify(now));
    assert.equal(now.structuredContent.state, 'completed');
    assert.match(now.structuredContent.requestId, /^agent-mcp:/);
    assert.deepEqual(JSON.parse(now.content[0].text), now.structuredContent);

    const refused = await client.callTool({ name: 'brain_capture', arguments: { text: 'not allowed' } });
    assert.equal(refused.isError, true);
    assert.equal(refused.content[0].text, 'Unknown or ungranted tool: brain_capture');
  } finally {
    await client.close();
  }
}

test('TypeScript SDK over Streamable HTTP', async () => {
  assert.ok(PORTOS_URL, 'PORTOS_URL is set');
  await exercise(new StreamableHTTPClientTransport(new URL(`${PORTOS_URL}/api/agent-context/mcp`)));
});

test('TypeScript SDK over stdio', async () => {
  assert.ok(PORTOS_BIN && PORTOS_STDIO_DATA_DIR, 'PORTOS_BIN and PORTOS_STDIO_DATA_DIR are set');
  await exercise(
    new StdioClientTransport({
      command: PORTOS_BIN,
      args: ['--mcp-stdio', '--data-dir', PORTOS_STDIO_DATA_DIR],
      stderr: 'ignore',
    }),
  );
});
