"""Agent Tools MCP through the official Python SDK 1.x client (`mcp` 1.x,
pinned in requirements-v1.txt: the line most installed clients still run),
over Streamable HTTP and over stdio: the 2025 `initialize` handshake, list
tools, call a context tool and a granted semantic tool, see an ungranted one
refused. Started by run.sh (see client.mjs for the variables).
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamablehttp_client


async def exercise(session, label):
    initialized = await session.initialize()
    assert initialized.protocolVersion in ("2025-06-18", "2025-11-25"), initialized.protocolVersion
    assert initialized.serverInfo.name == "PortOS Agent Tools", initialized.serverInfo
    names = [tool.name for tool in (await session.list_tools()).tools]
    for name in ["search_context", "context_profile", "time_now"]:
        assert name in names, f"{label}: {name} is listed: {names}"
    assert "brain_capture" not in names, f"{label}: writePortos is not granted"

    profile = await session.call_tool("context_profile", {})
    assert not profile.isError, profile
    assert profile.structuredContent["actions"]["readPortos"] is True

    now = await session.call_tool("time_now", {})
    assert not now.isError, now
    assert now.structuredContent["state"] == "completed", now.structuredContent
    assert json.loads(now.content[0].text) == now.structuredContent

    refused = await session.call_tool("brain_capture", {"text": "not allowed"})
    assert refused.isError, refused
    assert refused.content[0].text == "Unknown or ungranted tool: brain_capture"
    print(f"ok - Python SDK 1.x over {label}: {initialized.protocolVersion}")


async def main():
    url = os.environ["PORTOS_URL"]
    async with streamablehttp_client(f"{url}/api/agent-context/mcp") as (read, write, _):
        async with ClientSession(read, write) as session:
            await exercise(session, "Streamable HTTP")
    stdio = StdioServerParameters(
        command=os.environ["PORTOS_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["PORTOS_STDIO_DATA_DIR"]],
    )
    async with stdio_client(stdio) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
