// The homelab's MCP offers beyond tools through the official TypeScript SDK
// 2.x client (@modelcontextprotocol/client, pinned in package-lock.json),
// over Streamable HTTP at both eras (pinned to 2026-07-28: multi-round
// calls; the default 2025 handshake: requests of the server on the call's
// stream): the inventory resource and a host through the template (its
// name completed), the triage prompt with the host embedded, the audit's
// progress, and a removal the client confirms through an elicitation.
// Started by run.sh with HOMELAB_URL (readLab and writeLab granted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const { HOMELAB_URL } = process.env;

const MODES = [
  { label: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { label: '2025 handshake', options: {} },
];

async function connected(mode, answer) {
  const client = new Client(
    { name: 'homelab-ts-offers', version: '1.0.0' },
    { capabilities: { elicitation: {} }, ...mode.options },
  );
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { confirm: answer } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${HOMELAB_URL}/mcp`)));
  return { client, asked };
}

for (const mode of MODES) {
  test(`TypeScript SDK 2.x reads, prompts, follows progress and confirms at ${mode.label}`, async () => {
    assert.ok(HOMELAB_URL, 'HOMELAB_URL is set');
    const host = `ts-${mode.label.replace(/[^a-z0-9]/gi, '').toLowerCase()}`;
    const { client, asked } = await connected(mode, true);
    try {
      const added = await client.callTool({ name: 'lab_hosts_add', arguments: { name: host, address: '10.0.2.1' } });
      assert.ok(!added.isError, JSON.stringify(added));

      const { resources } = await client.listResources();
      assert.deepEqual(resources.map((resource) => resource.uri), ['lab://hosts']);
      const inventory = await client.readResource({ uri: 'lab://hosts' });
      assert.match(inventory.contents[0].text, new RegExp(`\\| ${host} \\| 10\\.0\\.2\\.1 \\|`));
      const { resourceTemplates } = await client.listResourceTemplates();
      assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate), ['lab://hosts/{name}']);
      const one = await client.readResource({ uri: `lab://hosts/${host}` });
      assert.equal(JSON.parse(one.contents[0].text).address, '10.0.2.1');
      const completed = await client.complete({
        ref: { type: 'ref/resource', uri: 'lab://hosts/{name}' },
        argument: { name: 'name', value: 'ts-' },
      });
      assert.ok(completed.completion.values.includes(host), JSON.stringify(completed));

      const prompt = await client.getPrompt({ name: 'lab.triage', arguments: { host } });
      assert.equal(prompt.messages[0].content.type, 'resource');
      assert.equal(prompt.messages[0].content.resource.uri, `lab://hosts/${host}`);

      const heard = [];
      const audited = await client.callTool(
        { name: 'lab_hosts_audit', arguments: {} },
        { onprogress: (progress) => heard.push(progress) },
      );
      assert.ok(!audited.isError, JSON.stringify(audited));
      assert.ok(heard.length > 0, 'progress was reported');
      const last = heard.at(-1);
      assert.equal(last.progress, last.total);

      const removed = await client.callTool({ name: 'lab_hosts_remove', arguments: { name: host } });
      assert.ok(!removed.isError, JSON.stringify(removed));
      assert.equal(removed.structuredContent.result.host.name, host);
      assert.equal(asked.length, 1);
      assert.match(asked[0], new RegExp(host));
    } finally {
      await client.close();
    }
  });
}
