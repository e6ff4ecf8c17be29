// The homelab's long-running tools as MCP tasks through the official
// TypeScript SDKs (pinned in package-lock.json), over Streamable HTTP:
// - @modelcontextprotocol/sdk 1.x, its experimental tasks client at
//   2025-11-25 (`client.experimental.tasks`: callToolStream, getTask,
//   cancelTask, listTasks);
// - @modelcontextprotocol/client 2.x at 2025-11-25, which has no tasks
//   client but ships that revision's task methods and schemas
//   (`specTypeSchemas`), sent with `client.request`;
// - the same 2.x at 2026-07-28, which has no task API at all: `callTool`
//   rejects a `resultType: "task"` answer (UnsupportedResultType) and its
//   Tool type has no `execution`, so it does not declare the tasks
//   extension, and the call waits for the result.
// At 2025-11-25 a parked retirement shows `working` (that revision cannot
// ask the requestor for a person's confirmation); the job is
// `input_required` and the person confirms it over HTTP.
// Started by run.sh with HOMELAB_LOCKED_URL and HOMELAB_TOKEN (see
// homelab_jobs.py).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport, specTypeSchemas } from '@modelcontextprotocol/client';

const { HOMELAB_LOCKED_URL, HOMELAB_TOKEN } = process.env;
const auth = { authorization: `Bearer ${HOMELAB_TOKEN}` };
const endpoint = () => new URL(`${HOMELAB_LOCKED_URL}/mcp`);
const FINAL = ['completed', 'failed', 'cancelled'];
const hostsOf = (result) => result.structuredContent.result.hosts.map((host) => host.name);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A port that answers, so a probe's hosts are reachable.
const listener = createServer((socket) => socket.end());
let port;
before(async () => {
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = listener.address().port;
});
after(() => listener.close());

/** The job behind a task over HTTP: read it, or `confirm` it as a person. */
async function job(taskId, action, body) {
  const response = await fetch(`${HOMELAB_LOCKED_URL}/api/tools/jobs/${taskId}${action ? `/${action}` : ''}`, {
    method: action ? 'POST' : 'GET',
    headers: { ...auth, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  assert.equal(response.status, 200, `${action ?? 'GET'} job ${taskId}`);
  return response.json();
}

/** Two hosts to probe and two to retire, each role the test's own. */
async function addHosts(client, prefix, probeRole, retireRole) {
  const named = (role) => [1, 2].map((n) => `${prefix}-${role}-${n}`);
  for (const [role, names] of [[probeRole, named(probeRole)], [retireRole, named(retireRole)]]) {
    for (const name of names) {
      const added = await client.callTool({ name: 'lab_hosts_add', arguments: { name, address: '127.0.0.1', role } });
      assert.ok(!added.isError, JSON.stringify(added));
    }
  }
  return [named(probeRole), named(retireRole)];
}

test('TypeScript SDK 1.x experimental tasks against the homelab jobs', async () => {
  const client = new Client1({ name: 'portos-ts-sdk-jobs-test', version: '1.0.0' });
  await client.connect(new Transport1(endpoint(), { requestInit: { headers: auth } }));
  try {
    assert.deepEqual(client.getServerCapabilities().tasks.requests.tools.call, {});
    const execution = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool.execution]));
    assert.equal(execution.lab_hosts_probe.taskSupport, 'optional');
    assert.equal(execution.lab_hosts_retire.taskSupport, 'optional');
    const [aps, nases] = await addHosts(client, 'ts1', 'access-point', 'nas');

    // Without a task the call simply waits for the result.
    const waited = await client.callTool({ name: 'lab_hosts_probe', arguments: { port, role: 'access-point' } });
    assert.deepEqual(hostsOf(waited), aps);

    // callToolStream asks for a task itself, the tool being listed as able.
    const seen = [];
    const probing = client.experimental.tasks.callToolStream({
      name: 'lab_hosts_probe',
      arguments: { port, role: 'access-point' },
    });
    for await (const message of probing) seen.push(message);
    assert.equal(seen[0].type, 'taskCreated', JSON.stringify(seen[0]));
    const probed = seen.at(-1);
    assert.equal(probed.type, 'result', JSON.stringify(probed));
    assert.deepEqual(hostsOf(probed.result), aps);
    assert.ok(probed.result.structuredContent.result.hosts.every((host) => host.reachable));

    // A probe pausing a minute between its two hosts, cancelled.
    let cancelledId;
    const cancelling = client.experimental.tasks.callToolStream({
      name: 'lab_hosts_probe',
      arguments: { port, role: 'access-point', pauseMs: 60000 },
    });
    for await (const message of cancelling) {
      if (message.type === 'taskCreated') {
        cancelledId = message.task.taskId;
        assert.equal((await client.experimental.tasks.cancelTask(cancelledId)).status, 'cancelled');
      } else if (message.type !== 'taskStatus') {
        assert.equal(message.type, 'error', JSON.stringify(message));
        assert.match(message.error.message, /was cancelled/);
      }
    }
    assert.equal((await client.experimental.tasks.getTask(cancelledId)).status, 'cancelled');
    assert.equal((await job(cancelledId)).state, 'cancelled');
    const { tasks } = await client.experimental.tasks.listTasks();
    assert.ok(tasks.some((task) => task.taskId === cancelledId && task.status === 'cancelled'));

    // The retirement parks; a person confirms it while the stream polls.
    let retired;
    const retiring = client.experimental.tasks.callToolStream({ name: 'lab_hosts_retire', arguments: { role: 'nas' } });
    for await (const message of retiring) {
      if (message.type === 'taskCreated') {
        const parked = await client.experimental.tasks.getTask(message.task.taskId);
        assert.equal(parked.status, 'working');
        assert.match(parked.statusMessage, /confirm/);
        assert.equal((await job(message.task.taskId)).state, 'input_required');
        assert.equal((await job(message.task.taskId, 'confirm', { approve: true })).state, 'working');
      }
      retired = message;
    }
    assert.equal(retired.type, 'result', JSON.stringify(retired));
    assert.deepEqual(retired.result.structuredContent.result.removed.map((host) => host.name), nases);
    const left = await client.callTool({ name: 'lab_hosts_list', arguments: { role: 'nas' } });
    assert.deepEqual(hostsOf(left), []);
  } finally {
    await client.close();
  }
});

test('TypeScript SDK 2.x task methods at 2025-11-25 against the homelab jobs', async () => {
  const client = new Client({ name: 'portos-ts-sdk2-jobs-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint(), { requestInit: { headers: auth } }));
  const send = (method, params, schema) => client.request({ method, params }, schema);
  const getTask = (taskId) => send('tasks/get', { taskId }, specTypeSchemas.GetTaskResult);
  const result = (taskId) => send('tasks/result', { taskId }, specTypeSchemas.CallToolResult);
  const asTask = (name, args) =>
    send('tools/call', { name, arguments: args, task: { ttl: 60000 } }, specTypeSchemas.CreateTaskResult);
  try {
    assert.equal(client.getProtocolEra(), 'legacy');
    assert.deepEqual(client.getServerCapabilities().tasks.requests.tools.call, {});
    const execution = Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool.execution]));
    assert.equal(execution.lab_hosts_probe.taskSupport, 'optional');
    const [servers, others] = await addHosts(client, 'ts2', 'server', 'other');

    let { task } = await asTask('lab_hosts_probe', { port, role: 'server' });
    assert.equal(task.status, 'working');
    while (!FINAL.includes(task.status)) {
      await sleep(task.pollInterval ?? 1000);
      task = await getTask(task.taskId);
    }
    assert.equal(task.status, 'completed');
    const probed = await result(task.taskId);
    assert.deepEqual(hostsOf(probed), servers);
    assert.equal(probed._meta['io.modelcontextprotocol/related-task'].taskId, task.taskId);

    // A probe pausing a minute between its two hosts, cancelled.
    ({ task } = await asTask('lab_hosts_probe', { port, role: 'server', pauseMs: 60000 }));
    const cancelled = await send('tasks/cancel', { taskId: task.taskId }, specTypeSchemas.CancelTaskResult);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await getTask(task.taskId)).status, 'cancelled');
    assert.equal((await job(task.taskId)).state, 'cancelled');
    const { tasks } = await send('tasks/list', {}, specTypeSchemas.ListTasksResult);
    assert.ok(tasks.some((listed) => listed.taskId === task.taskId && listed.status === 'cancelled'));

    ({ task } = await asTask('lab_hosts_retire', { role: 'other' }));
    assert.equal((await getTask(task.taskId)).status, 'working');
    assert.equal((await job(task.taskId)).state, 'input_required');
    assert.equal((await job(task.taskId, 'confirm', { approve: true })).state, 'working');
    const retired = await result(task.taskId);
    assert.deepEqual(retired.structuredContent.result.removed.map((host) => host.name), others);
    const left = await client.callTool({ name: 'lab_hosts_list', arguments: { role: 'other' } });
    assert.deepEqual(hostsOf(left), []);
  } finally {
    await client.close();
  }
});

test('TypeScript SDK 2.x at 2026-07-28 waits for a long-running tool', async () => {
  const client = new Client(
    { name: 'portos-ts-sdk2-jobs-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(endpoint(), { requestInit: { headers: auth } }));
  try {
    assert.equal(client.getProtocolEra(), 'modern');
    // The SDK's 2026 Tool drops `execution`: read the listing as sent.
    const raw = { '~standard': { version: 1, vendor: 'portos-test', validate: (value) => ({ value }) } };
    const { tools } = await client.request({ method: 'tools/list', params: {} }, raw);
    assert.equal(tools.find((tool) => tool.name === 'lab_hosts_probe').execution.taskSupport, 'optional');
    const added = await client.callTool({
      name: 'lab_hosts_add',
      arguments: { name: 'ts3-server', address: '127.0.0.1', role: 'server' },
    });
    assert.ok(!added.isError, JSON.stringify(added));
    const waited = await client.callTool({ name: 'lab_hosts_probe', arguments: { port, role: 'server' } });
    assert.ok(!waited.isError, JSON.stringify(waited));
    assert.ok(hostsOf(waited).includes('ts3-server'), JSON.stringify(waited.structuredContent));
  } finally {
    await client.close();
  }
});
