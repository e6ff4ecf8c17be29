// Agent Tools MCP through the official TypeScript SDK 2.x client
// (@modelcontextprotocol/client, pinned in package-lock.json), over
// Streamable HTTP and over stdio, at each era the client can be asked for:
// pinned to 2026-07-28, `auto` (it probes `server/discover`, which this
// server answers, so it settles on the 2026 era) and its default (the 2025
// `initialize` handshake). Each lists tools, calls a context tool and a
// granted semantic tool, and sees an ungranted one refused. Started by
// run.sh with the variables client.mjs describes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const { PORTOS_URL, PORTOS_BIN, PORTOS_STDIO_DATA_DIR } = process.env;

const MODES = [
  { label: 'pinned to 2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } }, era: 'modern', version: '2026-07-28' },
  { label: 'auto', options: { versionNegotiation: { mode: 'auto' } }, era: 'modern', version: '2026-07-28' },
  { label: 'default (2025 handshake)', options: {}, era: 'legacy', version: '2025-11-25' },
];

async function exercise(transport, mode) {
  const client = new Client({ name: 'portos-ts-sdk2-test', version: '1.0.0' }, mode.options);
  await client.connect(transport);
  try {
    assert.equal(client.getProtocolEra(), mode.era);
    assert.equal(client.getNegotiatedProtocolVersion(), mode.version);
    assert.equal(client.getServerVersion()?.name, 'PortOS Agent Tools');
    if (mode.era === 'modern') {
      assert.deepEqual(client.getDiscoverResult()?.supportedVersions, ['2026-07-28']);
    }
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['search_context', 'context_profile', 'time_now']) {
      assert.ok(names.includes(name), `${name} is listed: ${names}`);
    }
    assert.ok(!names.includes('brain_capture'), 'writePortos is not granted');

    const profile = await client.callTool({ name: 'context_profile', arguments: {} });
    assert.ok(!profile.isError, JSON.stringify(profile));
    assert.equal(profile.structuredContent.actions.readPortos, true);

    const now = await client.callTool({ name: 'time_now', arguments: {} });
    assert.ok(!now.isError, JSON.stringify(now));
    assert.equal(now.structuredContent.state, 'completed');
    assert.deepEqual(JSON.parse(now.content[0].text), now.structuredContent);

    const refused = await client.callTool({ name: 'brain_capture', arguments: { text: 'not allowed' } });
    assert.equal(refused.isError, true);
    assert.equal(refused.content[0].text, 'Unknown or ungranted tool: brain_capture');
  } finally {
    await client.close();
  }
}

for (const mode of MODES) {
  test(`TypeScript SDK 2.x over Streamable HTTP, ${mode.label}`, async () => {
    assert.ok(PORTOS_URL, 'PORTOS_URL is set');
    await exercise(new StreamableHTTPClientTransport(new URL(`${PORTOS_URL}/api/agent-context/mcp`)), mode);
  });

  test(`TypeScript SDK 2.x over stdio, ${mode.label}`, async () => {
    assert.ok(PORTOS_BIN && PORTOS_STDIO_DATA_DIR, 'PORTOS_BIN and PORTOS_STDIO_DATA_DIR are set');
    await exercise(
      new StdioClientTransport({
        command: PORTOS_BIN,
        args: ['--mcp-stdio', '--data-dir', PORTOS_STDIO_DATA_DIR],
        stderr: 'ignore',
      }),
      mode,
    );
  });
}
