"""The homelab's long-running tools (lab_hosts_probe, lab_hosts_retire) as
MCP tasks at 2026-07-28, through the official Python SDK 2.x (`mcp`, pinned
in requirements.txt), over Streamable HTTP and over stdio.

The SDK has no tasks client of its own: tasks left the core protocol at
2026-07-28 for the `io.modelcontextprotocol/tasks` extension, and what the
SDK offers for it is its extension API (SEP-2133): a `ClientExtension` that
advertises the identifier in every request's client capabilities, a
`ResultClaim` that lets `tools/call` answer `resultType: "task"` (resolved
transparently by `Client.call_tool`, or handed over with
`session.call_tool(..., allow_claimed=True)`), and `session.send_request`
for the extension's `tasks/get`, `tasks/update` and `tasks/cancel`. The
extension is written on it below as an application would.

Started by run.sh with HOMELAB_LOCKED_URL (a homelab server with a
password), HOMELAB_TOKEN (a session on it, Agent Tools granted readLab
and writeLab), HOMELAB_BIN and HOMELAB_STDIO_DATA_DIR.
"""

import asyncio
import json
import os
import socket
import sys
import urllib.request
from typing import Any, Literal

import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"
FINAL = {"completed", "failed", "cancelled"}


class CreateTaskResult(types.Result):
    """`tools/call` answered with a task instead of its result."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class Task(types.Result):
    """`tasks/get`: the task with its input requests or its final result."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    input_requests: dict[str, Any] | None = None
    result: dict[str, Any] | None = None


class TaskParams(types.RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: types.InputResponses


# `name_param` puts the task id in the Mcp-Name header, as the extension
# requires over Streamable HTTP (intermediaries route a task's requests by it).
class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param = "taskId"


class UpdateTask(types.Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param = "taskId"


async def get_task(session, task_id):
    return await session.send_request(GetTask(params=TaskParams(task_id=task_id)), Task)


async def until(session, task_id, statuses):
    """Polls at the server's pollIntervalMs, as the extension asks."""
    while (task := await get_task(session, task_id)).status not in statuses:
        await asyncio.sleep((task.poll_interval_ms or 1000) / 1000)
    return task


class Tasks(ClientExtension):
    identifier = TASKS

    def __init__(self):
        self.followed = []  # the tasks `call_tool` followed to their end

    def claims(self):
        return [ResultClaim(result_type="task", model=CreateTaskResult, resolve=self.finish)]

    async def finish(self, created: CreateTaskResult, ctx: ClaimContext) -> types.CallToolResult:
        self.followed.append(created.task_id)
        task = await until(ctx.session, created.task_id, FINAL)
        assert task.status == "completed", task
        return types.CallToolResult.model_validate(task.result)


def job(task_id):
    """The job behind a task, as a person's HTTP client reads it."""
    request = urllib.request.Request(
        f"{os.environ['HOMELAB_LOCKED_URL']}/api/tools/jobs/{task_id}",
        headers={"authorization": f"Bearer {os.environ['HOMELAB_TOKEN']}"},
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def hosts_of(result):
    return [host["name"] for host in result.structured_content["result"]["hosts"]]


async def exercise(connect, label, port, over_http):
    prefix = "http" if over_http else "stdio"
    routers = [f"{prefix}-router-{n}" for n in (1, 2)]
    cameras = [f"{prefix}-camera-{n}" for n in (1, 2)]
    # Without the extension declared the call simply waits for the result.
    async with connect([]) as plain:
        for name, role in [(n, "router") for n in routers] + [(n, "camera") for n in cameras]:
            added = await plain.call_tool("lab_hosts_add", {"name": name, "address": "127.0.0.1", "role": role})
            assert not added.is_error, added
        waited = await plain.call_tool("lab_hosts_probe", {"port": port, "role": "router"})
        assert not waited.is_error, waited
        assert hosts_of(waited) == routers, waited.structured_content

    tasks = Tasks()
    async with connect([tasks]) as client:
        assert TASKS in client.session.discover_result.capabilities.extensions
        execution = {tool.name: tool.execution for tool in (await client.list_tools()).tools}
        assert execution["lab_hosts_probe"].task_support == "optional", execution
        assert execution["lab_hosts_retire"].task_support == "optional", execution
        assert execution["lab_hosts_list"] is None, execution
        try:
            await get_task(client.session, "no-such-task")
            raise AssertionError("an unknown task was found")
        except MCPError as unknown:
            assert unknown.code == -32602, unknown.error

        # call_tool follows the task to its end and answers its result.
        probed = await client.call_tool("lab_hosts_probe", {"port": port, "role": "router"})
        assert len(tasks.followed) == 1, "the probe ran as a task"
        assert hosts_of(probed) == routers, probed.structured_content
        assert all(host["reachable"] for host in probed.structured_content["result"]["hosts"])

        # A probe pausing a minute between its two hosts, cancelled.
        created = await client.session.call_tool(
            "lab_hosts_probe", {"port": port, "role": "router", "pauseMs": 60000}, allow_claimed=True
        )
        assert isinstance(created, CreateTaskResult) and created.status == "working", created
        ack = await client.session.send_request(
            CancelTask(params=TaskParams(task_id=created.task_id)), types.EmptyResult
        )
        assert ack.result_type == "complete", ack
        cancelled = await until(client.session, created.task_id, FINAL)
        assert cancelled.status == "cancelled", cancelled
        if over_http:
            assert job(created.task_id)["state"] == "cancelled"

        # The retirement waits for a confirmation, answered in the task.
        created = await client.session.call_tool("lab_hosts_retire", {"role": "camera"}, allow_claimed=True)
        assert isinstance(created, CreateTaskResult), created
        parked = await until(client.session, created.task_id, {"input_required"} | FINAL)
        assert parked.status == "input_required", parked
        confirm = parked.input_requests["confirm"]
        assert confirm["method"] == "elicitation/create", confirm
        assert confirm["params"]["requestedSchema"]["required"] == ["confirm"], confirm
        if over_http:
            assert job(created.task_id)["state"] == "input_required"
        approve = types.ElicitResult(action="accept", content={"confirm": True})
        ack = await client.session.send_request(
            UpdateTask(params=UpdateParams(task_id=created.task_id, input_responses={"confirm": approve})),
            types.EmptyResult,
        )
        assert ack.result_type == "complete", ack
        done = await until(client.session, created.task_id, FINAL)
        assert done.status == "completed", done
        removed = done.result["structuredContent"]["result"]["removed"]
        assert [host["name"] for host in removed] == cameras, done.result
        left = await client.call_tool("lab_hosts_list", {"role": "camera"})
        assert hosts_of(left) == [], left.structured_content
    print(f"ok - Python SDK tasks extension against the homelab's jobs over {label}")


async def main():
    endpoint = f"{os.environ['HOMELAB_LOCKED_URL']}/mcp"
    auth = {"authorization": f"Bearer {os.environ['HOMELAB_TOKEN']}"}
    stdio = StdioServerParameters(
        command=os.environ["HOMELAB_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["HOMELAB_STDIO_DATA_DIR"]],
    )
    # A port that answers, so a probe's hosts are reachable.
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        async with httpx2.AsyncClient(headers=auth, timeout=30) as http:
            await exercise(
                lambda extensions: Client(streamable_http_client(endpoint, http_client=http), extensions=extensions),
                "Streamable HTTP",
                port,
                over_http=True,
            )
        await exercise(lambda extensions: Client(stdio, extensions=extensions), "stdio", port, over_http=False)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
