"""The homelab's long-running tools as MCP 2025-11-25 tasks, through the
official Python SDK 1.x (`mcp`, pinned in requirements-v1.txt) and its
experimental tasks client (`session.experimental`: `call_tool_as_task`,
`poll_task`, `get_task`, `get_task_result`, `cancel_task`, `list_tasks`),
over Streamable HTTP.

That revision gives a task no way to ask for a person's confirmation short
of a server-to-client request, so the server shows a parked retirement as
`working` (with a status message); the job itself is `input_required`, and
the person confirms it over HTTP, as PortOS's own UI does.

Started by run.sh with HOMELAB_LOCKED_URL and HOMELAB_TOKEN (see
homelab_jobs.py).
"""

import asyncio
import json
import os
import socket
import sys
import urllib.request
import warnings

from mcp import ClientSession, McpError
from mcp.client.streamable_http import streamablehttp_client
from mcp.types import CallToolResult

# The 1.x line warns that this API goes away in 2.x; it is the API under test.
warnings.filterwarnings("ignore", message="The experimental tasks API is deprecated")

URL = os.environ["HOMELAB_LOCKED_URL"]
AUTH = {"authorization": f"Bearer {os.environ['HOMELAB_TOKEN']}"}


def job(task_id, action=None, body=None):
    """The job behind a task over HTTP: read it, or `confirm` it as a person."""
    path = f"{URL}/api/tools/jobs/{task_id}" + (f"/{action}" if action else "")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(path, data=data, headers={**AUTH, "content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def hosts_of(result):
    return [host["name"] for host in result.structuredContent["result"]["hosts"]]


async def exercise(session, port):
    initialized = await session.initialize()
    assert initialized.protocolVersion == "2025-11-25", initialized.protocolVersion
    assert initialized.capabilities.tasks.requests.tools.call is not None, initialized.capabilities
    execution = {tool.name: tool.execution for tool in (await session.list_tools()).tools}
    assert execution["lab_hosts_probe"].taskSupport == "optional", execution
    assert execution["lab_hosts_retire"].taskSupport == "optional", execution
    assert execution["lab_hosts_list"] is None, execution

    switches, printers = ["v1-switch-1", "v1-switch-2"], ["v1-printer-1", "v1-printer-2"]
    for name, role in [(n, "switch") for n in switches] + [(n, "printer") for n in printers]:
        added = await session.call_tool("lab_hosts_add", {"name": name, "address": "127.0.0.1", "role": role})
        assert not added.isError, added

    # Without `task` the call simply waits for the result.
    waited = await session.call_tool("lab_hosts_probe", {"port": port, "role": "switch"})
    assert not waited.isError and hosts_of(waited) == switches, waited.structuredContent

    created = await session.experimental.call_tool_as_task("lab_hosts_probe", {"port": port, "role": "switch"})
    task_id = created.task.taskId
    assert created.task.status == "working", created
    statuses = [task.status async for task in session.experimental.poll_task(task_id)]
    assert statuses[-1] == "completed", statuses
    probed = await session.experimental.get_task_result(task_id, CallToolResult)
    assert hosts_of(probed) == switches, probed.structuredContent
    assert all(host["reachable"] for host in probed.structuredContent["result"]["hosts"])
    assert probed.meta["io.modelcontextprotocol/related-task"]["taskId"] == task_id
    try:
        await session.experimental.cancel_task(task_id)
        raise AssertionError("a completed task was cancelled")
    except McpError as ended:
        assert ended.error.code == -32602, ended.error

    # A probe pausing a minute between its two hosts, cancelled.
    created = await session.experimental.call_tool_as_task(
        "lab_hosts_probe", {"port": port, "role": "switch", "pauseMs": 60000}
    )
    cancelled = await session.experimental.cancel_task(created.task.taskId)
    assert cancelled.status == "cancelled", cancelled
    assert (await session.experimental.get_task(created.task.taskId)).status == "cancelled"
    assert job(created.task.taskId)["state"] == "cancelled"
    listed = {task.taskId: task.status for task in (await session.experimental.list_tasks()).tasks}
    assert listed[task_id] == "completed" and listed[created.task.taskId] == "cancelled", listed

    created = await session.experimental.call_tool_as_task("lab_hosts_retire", {"role": "printer"})
    task_id = created.task.taskId
    parked = await session.experimental.get_task(task_id)
    assert parked.status == "working" and "confirm" in parked.statusMessage, parked
    assert job(task_id)["state"] == "input_required"
    # tasks/result waits for the end, so until a person confirms.
    result = asyncio.create_task(session.experimental.get_task_result(task_id, CallToolResult))
    await asyncio.sleep(0.5)
    assert not result.done(), "tasks/result answered a parked task"
    confirmed = await asyncio.to_thread(job, task_id, "confirm", {"approve": True})
    assert confirmed["state"] == "working", confirmed
    retired = await result
    assert not retired.isError, retired
    removed = [host["name"] for host in retired.structuredContent["result"]["removed"]]
    assert removed == printers, retired.structuredContent
    left = await session.call_tool("lab_hosts_list", {"role": "printer"})
    assert hosts_of(left) == [], left.structuredContent
    print(f"ok - Python SDK 1.x experimental tasks against the homelab's jobs: {initialized.protocolVersion}")


async def main():
    # A port that answers, so a probe's hosts are reachable.
    with socket.create_server(("127.0.0.1", 0)) as listener:
        async with streamablehttp_client(f"{URL}/mcp", headers=AUTH) as (read, write, _):
            async with ClientSession(read, write) as session:
                await exercise(session, listener.getsockname()[1])


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
